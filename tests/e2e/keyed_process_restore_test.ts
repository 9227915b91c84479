// A KeyedStream.process() job (per-sensor sums in 500 ms buckets, each
// emitted by an event-time timer) checkpointed at parallelism 2, crashed,
// and restored at parallelism 2, 3 and 1 in both watermark recovery modes:
// keyed state and timers survive the real checkpoint path and follow their
// key groups, so the committed output equals a failure-free run.

import assert from "node:assert/strict";
import { ManualClock } from "../../src/time/clock.ts";
import { WatermarkStrategy } from "../../src/time/watermark_strategy.ts";
import {
  ScriptedSource,
  type ScriptStep,
} from "../../src/connectors/sources/scripted.ts";
import { MemoryStorage } from "../../src/actors/local/memory_storage.ts";
import { StreamEnvironment } from "../../src/api/stream_environment.ts";
import type {
  KeyedProcessFunction,
  KeyedProcessSnapshot,
} from "../../src/runtime/operators/keyed_process.ts";
import { ExternalTable, twoPhaseSink } from "../_support/two_phase_sink.ts";
import { drive, type Mode, type Reading } from "../_support/sensor_job.ts";

const PARTITIONS = 4;
const BUCKET_MS = 500;

function readings(): ScriptStep<Reading>[] {
  const steps: ScriptStep<Reading>[] = [];
  for (let i = 0; i < 120; i++) {
    const at = i * 20;
    // Up to 150 ms out of order, within the 300 ms bound: no late records.
    steps.push({
      at,
      partition: i % PARTITIONS,
      value: { sensor: i % 7, value: i, ts: at - (i * 37) % 150 },
    });
  }
  return steps;
}

/** Open buckets of a sensor as [bucket start, sum] pairs (plain data). */
type Buckets = Array<[number, number]>;

const bucketSums: KeyedProcessFunction<Reading, string, number, Buckets> = {
  processElement(reading, ctx) {
    const start = reading.ts - (reading.ts % BUCKET_MS);
    const buckets = ctx.state ?? [];
    const open = buckets.find(([s]) => s === start);
    if (open !== undefined) open[1] += reading.value;
    else buckets.push([start, reading.value]);
    ctx.setState(buckets);
    ctx.registerEventTimeTimer(start + BUCKET_MS - 1);
  },
  onTimer(timestamp, ctx, out) {
    const start = timestamp - BUCKET_MS + 1;
    const buckets = ctx.state!;
    const [, sum] = buckets.find(([s]) => s === start)!;
    out(`${ctx.key}@${start}=${sum}`);
    const rest = buckets.filter(([s]) => s !== start);
    if (rest.length === 0) ctx.clearState();
    else ctx.setState(rest);
  },
};

function job(
  storage: MemoryStorage,
  mode: Mode,
  table: ExternalTable<string>,
  parallelism: number,
  clock: ManualClock,
): StreamEnvironment {
  const env = new StreamEnvironment({
    jobName: "bucket-sums",
    parallelism,
    clock,
    checkpointIntervalMs: 250,
    watermarkRecovery: mode,
    checkpointStorage: storage,
  });
  env.fromSource(
    new ScriptedSource(readings(), { partitions: PARTITIONS }),
    WatermarkStrategy.forBoundedOutOfOrderness<Reading>(300)
      .withTimestampAssigner((r) => r.ts),
    "readings",
  )
    .keyBy((r) => r.sensor)
    .process(bucketSums)
    .sinkTo(twoPhaseSink(table));
  return env;
}

async function failureFree(mode: Mode): Promise<[string[], number]> {
  const table = new ExternalTable<string>();
  const clock = new ManualClock(0);
  const runtime = job(new MemoryStorage(), mode, table, 2, clock)
    .createRuntime();
  const steps = await drive(runtime, clock);
  return [table.rows(), steps];
}

async function restoreAfter(
  mode: Mode,
  steps: number,
  parallelism: number,
): Promise<string[]> {
  const table = new ExternalTable<string>();
  const clock = new ManualClock(0);
  const storage = new MemoryStorage();
  await drive(
    job(storage, mode, table, 2, clock).createRuntime(),
    clock,
    steps,
  );
  // Crash: only the storage and the external table survive.
  const env = job(storage, mode, table, parallelism, clock);
  const checkpoint = await env.findCheckpoint();
  assert.ok(checkpoint !== null, `a checkpoint after ${steps} steps`);
  // The cut holds open buckets: state and timers are really carried over.
  const held = Object.entries(checkpoint.subtasks)
    .filter(([id]) => id.includes("/process-"))
    .map(([, s]) =>
      (s as { operators: KeyedProcessSnapshot<number, Buckets>[] })
        .operators[0]
    );
  assert.equal(held.length, 2);
  assert.ok(
    held.some((s) => s.keyedState.length > 0 && s.eventTimers.length > 0),
  );
  await drive(env.createRuntime(checkpoint), clock);
  return table.rows();
}

for (const mode of ["persist", "replay"] as const) {
  Deno.test(`KeyedStream.process() state and timers restored at parallelism 2, 3 and 1 give the failure-free output (${mode} mode)`, async () => {
    const [baseline, total] = await failureFree(mode);
    // 120 readings over 2.4 s: 5 buckets for each of the 7 sensors.
    assert.equal(baseline.length, 35);
    const sum = baseline.reduce(
      (n, row) => n + Number(row.split("=")[1].slice(0, -1)),
      0,
    );
    assert.equal(sum, (119 * 120) / 2);
    for (const parallelism of [2, 3, 1]) {
      for (const fraction of [0.3, 0.6]) {
        const steps = Math.round(total * fraction);
        assert.deepEqual(
          await restoreAfter(mode, steps, parallelism),
          baseline,
          `crash after step ${steps} of ${total}, restored at ${parallelism}`,
        );
      }
    }
  });
}
