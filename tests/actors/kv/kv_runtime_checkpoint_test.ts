// A checkpoint is never abandoned in the KV runtime: once a source sent its
// barrier, a consumer holds that channel until every open channel brings
// the same barrier. Abandoning it (because another source finished, or on a
// timeout) would hold the channel forever. (Found by a review.)
import assert from "node:assert/strict";
import { ManualClock } from "../../../src/time/clock.ts";
import { WatermarkStrategy } from "../../../src/time/watermark_strategy.ts";
import { ScriptedSource } from "../../../src/connectors/sources/scripted.ts";
import { CollectSink } from "../../../src/connectors/sinks/collect.ts";
import { StreamEnvironment } from "../../../src/api/stream_environment.ts";
import { Lease } from "../../../src/actors/kv/lease.ts";

function job(clock: ManualClock, bCount: number, interval = 0) {
  const env = new StreamEnvironment({
    jobName: "ab",
    parallelism: 1,
    clock,
    checkpointIntervalMs: interval,
  });
  const strategy = WatermarkStrategy.forMonotonousTimestamps<number>()
    .withTimestampAssigner((n) => n);
  const a = env.fromSource(
    new ScriptedSource(
      Array.from({ length: 10 }, (_, i) => ({ at: i * 10, value: i * 10 })),
    ),
    strategy,
    "a",
  );
  const b = env.fromSource(
    new ScriptedSource(
      Array.from(
        { length: bCount },
        (_, i) => ({ at: i * 100, value: 1_000_000 + i * 100 }),
      ),
    ),
    strategy,
    "b",
  );
  const sink = new CollectSink<number>();
  a.union(b).map((n) => n).sinkTo(sink);
  return { env, sink };
}

Deno.test("A checkpoint one source took part in before it finished still completes its alignment: the other source's records all arrive", async () => {
  using kv = await Deno.openKv(":memory:");
  const clock = new ManualClock(0);
  const { env, sink } = job(clock, 2000);
  const w1 = env.createKvRuntime({ kv, workerId: "w1", leaseMs: 1_000 });
  const ids = (await w1.status()).map((s) => s.id);
  const bId = ids.find((id) => id.includes("source-1"))!;
  // b's owner is briefly unavailable (e.g. another worker paused/crashed 5 s).
  const ghost = new Lease(
    kv,
    ["weir", "ab", "kvrt", "lease", bId],
    "ghost",
    clock,
    5_000,
  );
  assert.ok(await ghost.acquire());
  await w1.triggerCheckpoint();
  const origError = console.error;
  console.error = () => {};
  try {
    while (clock.now() < 100_000) {
      if (await w1.tick()) continue;
      clock.set(Math.max(w1.nextWakeup(), clock.now() + 1));
    }
  } finally {
    console.error = origError;
  }
  console.log(
    "progress",
    await w1.checkpointProgress(),
    "owned",
    w1.ownedActors,
  );
  const fromA = sink.values.filter((v) => v < 1_000_000).sort((x, y) => x - y);
  const fromB = sink.values.filter((v) => v >= 1_000_000).length;
  console.log("from a:", fromA, "from b:", fromB);
  assert.deepEqual(
    fromA,
    [0, 10, 20, 30, 40, 50, 60, 70, 80, 90],
    "a finished at t=90 ms; by t=100 s all its records should have reached the sink",
  );
});
