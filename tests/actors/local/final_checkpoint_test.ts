// LocalRuntime.finalCheckpoint(): what Ctrl-C runs (Flink's
// stop-with-savepoint). It waits for the checkpoint in progress, takes one
// more, and reads no more input meanwhile.

import assert from "node:assert/strict";
import { ManualClock } from "../../../src/time/clock.ts";
import { MemoryStorage } from "../../../src/actors/local/memory_storage.ts";
import { CheckpointStore } from "../../../src/actors/checkpoint_store.ts";
import { StreamEnvironment } from "../../../src/api/stream_environment.ts";
import { GeneratorSource } from "../../../src/connectors/sources/generator.ts";
import { CollectSink } from "../../../src/connectors/sinks/collect.ts";
import { WatermarkStrategy } from "../../../src/time/watermark_strategy.ts";

/** A job whose asynchronous calls wait until `release()`: barriers queue behind them. */
function gatedJob() {
  const clock = new ManualClock(0);
  const storage = new MemoryStorage();
  let open = false;
  const waiting: Array<() => void> = [];
  const env = new StreamEnvironment({
    jobName: "gated",
    parallelism: 1,
    clock,
    checkpointStorage: storage,
  });
  const seen = new CollectSink<number>();
  env.fromSource(
    new GeneratorSource<number>({
      ratePerSecond: 100,
      generate: (index) => index,
    }),
    WatermarkStrategy.forMonotonousTimestamps<number>()
      .withTimestampAssigner((n) => n),
    "numbers",
  ).keyBy((n) => n % 2).mapAsync(
    (n) =>
      open ? Promise.resolve(n) : new Promise<number>((resolve) => {
        waiting.push(() => resolve(n));
      }),
    { capacity: 1 },
  ).sinkTo(seen);
  return {
    clock,
    env,
    store: new CheckpointStore(storage),
    release() {
      open = true;
      for (const resolve of waiting.splice(0)) resolve();
    },
  };
}

Deno.test("LocalRuntime.finalCheckpoint() waits for the checkpoint in progress, then takes one more", async () => {
  const job = gatedJob();
  const runtime = job.env.createRuntime();
  job.clock.set(100);
  runtime.runUntilIdle();
  const pending = runtime.triggerCheckpoint();
  assert.equal(pending, 1);
  runtime.runUntilIdle();
  assert.equal(
    runtime.checkpointInProgress,
    1,
    "the barrier waits behind a call",
  );
  const stopping = runtime.finalCheckpoint();
  job.release();
  assert.equal(await stopping, 2);
  assert.deepEqual((await job.store.list()).map((c) => c.id), [1, 2]);
});

Deno.test("LocalRuntime.finalCheckpoint() reads no more input while it stops", async () => {
  const job = gatedJob();
  job.release();
  const runtime = job.env.createRuntime();
  job.clock.set(100);
  runtime.runUntilIdle();
  const before =
    runtime.status().find((s) => s.operator === "source-0")!.recordsOut;
  job.clock.set(500);
  assert.equal(await runtime.finalCheckpoint(), 1);
  const after = runtime.status().find((s) => s.operator === "source-0")!;
  assert.equal(after.recordsOut, before, "nothing was read while stopping");
});

Deno.test("LocalRuntime.finalCheckpoint() returns null once part of the job has finished", async () => {
  const clock = new ManualClock(0);
  const env = new StreamEnvironment({ jobName: "bounded", clock });
  env.fromCollection([1, 2, 3]).sinkTo(new CollectSink<number>());
  const runtime = env.createRuntime();
  await runtime.run();
  assert.equal(await runtime.finalCheckpoint(), null);
});
