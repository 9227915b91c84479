// What a start on the KV runtime says it does: resume, restore, or begin
// anew (the one line that tells them apart).

import assert from "node:assert/strict";
import { ManualClock } from "../../src/time/clock.ts";
import { WatermarkStrategy } from "../../src/time/watermark_strategy.ts";
import { StreamEnvironment } from "../../src/api/stream_environment.ts";
import { ScriptedSource } from "../../src/connectors/sources/scripted.ts";
import { CollectSink } from "../../src/connectors/sinks/collect.ts";
import type { CompletedCheckpoint } from "../../src/actors/checkpoint.ts";
import { kvStartOf } from "../../src/cli/job_file.ts";

const CHECKPOINT = { id: 7, createdAt: 70 } as CompletedCheckpoint;
const FROM_7 = { id: 7, createdAt: 70 };

Deno.test("kvStartOf() says starting afresh or from the checkpoint before a job ran, and resuming after (from no known checkpoint), unless --restore asks otherwise", async () => {
  using kv = await Deno.openKv(":memory:");
  const job = { name: "numbers" };
  assert.deepEqual(await kvStartOf(kv, job, "latest", null), {
    text: "starting afresh",
    restoredFrom: null,
  });
  assert.deepEqual(await kvStartOf(kv, job, "latest", CHECKPOINT), {
    text: "starting from checkpoint 7",
    restoredFrom: FROM_7,
  });
  const clock = new ManualClock(0);
  const env = new StreamEnvironment({ jobName: "numbers", clock });
  env.fromSource(
    new ScriptedSource([{ at: 0, value: 1 }]),
    WatermarkStrategy.noWatermarks<number>(),
    "numbers",
  ).sinkTo(new CollectSink<number>());
  const runtime = env.createKvRuntime({ kv, leaseMs: 1_000 });
  await runtime.tick();
  assert.deepEqual(await kvStartOf(kv, job, "latest", CHECKPOINT), {
    text: "resuming from its actors' committed state",
    restoredFrom: undefined,
  });
  assert.deepEqual(await kvStartOf(kv, job, "none", null), {
    text: "starting afresh",
    restoredFrom: null,
  });
  assert.deepEqual(await kvStartOf(kv, job, 7, CHECKPOINT), {
    text: "starting from checkpoint 7",
    restoredFrom: FROM_7,
  });
  runtime.stop();
  await runtime.run();
});
