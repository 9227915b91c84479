// The local runtime right after a persist-mode restore: status shows the
// restored event time, and watermark alignment goes on on the schedule of
// the run that took the checkpoint.

import assert from "node:assert/strict";
import { ManualClock } from "../../../src/time/clock.ts";
import type { LocalRuntime } from "../../../src/actors/local/local_runtime.ts";
import { WatermarkStrategy } from "../../../src/time/watermark_strategy.ts";
import {
  ScriptedSource,
  type ScriptStep,
} from "../../../src/connectors/sources/scripted.ts";
import { MemoryStorage } from "../../../src/actors/local/memory_storage.ts";
import { StreamEnvironment } from "../../../src/api/stream_environment.ts";
import { eventTime, quietJob } from "../../_support/quiet_job.ts";
import { ExternalTable, twoPhaseSink } from "../../_support/two_phase_sink.ts";
import { drive } from "../../_support/sensor_job.ts";

/** Steps the runtime, moving the clock when idle, until `until` ms. */
function runUntil(runtime: LocalRuntime, clock: ManualClock, until: number) {
  while (clock.now() < until) {
    if (runtime.step()) continue;
    clock.set(Math.max(runtime.nextWakeup(), clock.now() + 1));
  }
  runtime.runUntilIdle();
}

Deno.test("LocalRuntime.status() right after a persist-mode restore shows the restored watermarks and idleness of every subtask", async () => {
  const clock = new ManualClock(0);
  const first = quietJob(clock).createRuntime();
  runUntil(first, clock, 3_000);
  first.triggerCheckpoint();
  first.runUntilIdle();
  await first.flushCheckpoints();
  const before = eventTime(first.status());
  // Every subtask has seen event time, and the silent sources made it idle.
  assert.ok(before.every((s) => s.outputWatermark > 1_000), "watermarks");
  assert.ok(before.every((s) => s.idle), "idle");
  const restored = quietJob(new ManualClock(clock.now())).createRuntime(
    first.latestCheckpoint!,
  );
  assert.deepEqual(eventTime(restored.status()), before);
});

/**
 * Two aligned sources: the fast one offers 100 ms of event
 * time every 10 ms, the slow one every 100 ms; each record goes out with the
 * processing time it was read at, which alignment decides.
 */
function alignedJob(
  clock: ManualClock,
  storage: MemoryStorage,
  table: ExternalTable<string>,
): StreamEnvironment {
  const env = new StreamEnvironment({
    jobName: "aligned",
    parallelism: 1,
    clock,
    checkpointIntervalMs: 150,
    watermarkRecovery: "persist",
    checkpointStorage: storage,
  });
  const strategy = WatermarkStrategy.forMonotonousTimestamps<number>()
    .withTimestampAssigner((n) => n % 1_000_000)
    .withWatermarkAlignment("g", 500, 70);
  const script = (every: number, base: number): ScriptStep<number>[] =>
    Array.from({ length: 30 }, (_, i) => ({
      at: i * every,
      value: base + i * 100,
    }));
  env.fromSource(new ScriptedSource(script(10, 0)), strategy, "fast")
    .union(
      env.fromSource(new ScriptedSource(script(100, 1e6)), strategy, "slow"),
    )
    .map((n) => `${n}@${clock.now()}`).sinkTo(twoPhaseSink(table));
  return env;
}

Deno.test("LocalRuntime restored in persist mode at the checkpoint's processing time holds aligned sources as the run that took it did, from every step boundary", async () => {
  const table = new ExternalTable<string>();
  const clock = new ManualClock(0);
  const steps = await drive(
    alignedJob(clock, new MemoryStorage(), table).createRuntime(),
    clock,
  );
  const baseline = table.rows();
  // Alignment held the fast source: some of its records were read late.
  assert.ok(
    baseline.some((row) => {
      const [n, at] = JSON.parse(row).split("@").map(Number);
      return n < 1e6 && at > (n / 100) * 10;
    }),
    "the fast source was held",
  );
  for (let crash = 1; crash < steps; crash++) {
    const restarted = new ExternalTable<string>();
    const storage = new MemoryStorage();
    const before = new ManualClock(0);
    await drive(
      alignedJob(before, storage, restarted).createRuntime(),
      before,
      crash,
    );
    const checkpoint = await alignedJob(before, storage, restarted)
      .findCheckpoint();
    const after = new ManualClock(checkpoint?.createdAt ?? 0);
    await drive(
      alignedJob(after, storage, restarted).createRuntime(
        checkpoint ?? undefined,
      ),
      after,
    );
    assert.deepEqual(restarted.rows(), baseline, `crash after step ${crash}`);
  }
});
