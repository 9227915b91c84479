// The KV runtime refuses a checkpoint snapshot it cannot store as the
// local runtime does: a TypeError naming the actor (encodeSnapshot, one
// check for both runtimes), not a bare DataCloneError.

import assert from "node:assert/strict";
import { ManualClock } from "../../../src/time/clock.ts";
import { WatermarkStrategy } from "../../../src/time/watermark_strategy.ts";
import { StreamEnvironment } from "../../../src/api/stream_environment.ts";
import { ScriptedSource } from "../../../src/connectors/sources/scripted.ts";
import type { Sink } from "../../../src/runtime/sink.ts";
import { encodeSnapshot } from "../../../src/actors/snapshot_encoding.ts";

// A transactional sink whose transaction cannot be stored: a function.
const unstorable: Sink<number> = {
  name: "unstorable",
  createWriter: () => ({
    write() {},
    snapshotState: () => ({ commit: () => {} }),
  }),
};

Deno.test("KvRuntime names the actor whose checkpoint snapshot cannot be structured-cloned", async () => {
  using kv = await Deno.openKv(":memory:");
  const clock = new ManualClock(0);
  const env = new StreamEnvironment({
    jobName: "fn",
    clock,
    checkpointIntervalMs: 10,
  });
  env.fromSource(
    new ScriptedSource(
      Array.from({ length: 50 }, (_, i) => ({ at: i * 10, value: i })),
    ),
    WatermarkStrategy.noWatermarks<number>(),
    "numbers",
  ).sinkTo(unstorable);
  const runtime = env.createKvRuntime({ kv, leaseMs: 1_000 });
  const actor = "fn/source-0/0";
  const error = console.error;
  console.error = () => {};
  try {
    for (
      let round = 0;
      round < 2_000 && !runtime.errors.has(actor) && !runtime.finished;
      round++
    ) {
      if (await runtime.tick()) continue;
      clock.set(Math.max(runtime.nextWakeup(), clock.now() + 1));
    }
  } finally {
    console.error = error;
  }
  const failed = runtime.errors.get(actor);
  assert.ok(
    failed,
    `no error for ${actor}: ${
      (await runtime.status()).map((s) => s.id)
    } ${runtime.finished}`,
  );
  assert.equal(failed.name, "TypeError");
  assert.match(
    failed.message,
    /^Cannot checkpoint actor 'fn\/source-0\/0' as its snapshot must be structured-cloneable/,
  );
});

Deno.test("encodeSnapshot() refuses an undefined snapshot by the actor's name", () => {
  assert.throws(() => encodeSnapshot("job/op-1/2", undefined), {
    name: "TypeError",
    message:
      "Cannot checkpoint actor 'job/op-1/2' as its snapshot must be defined: current value is undefined",
  });
});
