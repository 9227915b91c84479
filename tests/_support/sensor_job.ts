// The small keyed job of the crash, restore and rescale tests: sensor
// readings from a scripted source, summed per sensor in 500 ms windows into a
// two-phase sink, with a checkpoint every 250 ms; and a stepwise driver that
// makes checkpoints durable after every step, so a test can crash anywhere.

import type { ManualClock } from "../../src/time/clock.ts";
import { WatermarkStrategy } from "../../src/time/watermark_strategy.ts";
import { TumblingEventTimeWindows } from "../../src/windows/tumbling.ts";
import { OutputTag } from "../../src/windows/output_tag.ts";
import type { AggregateFunction } from "../../src/windows/window_function.ts";
import {
  ScriptedSource,
  type ScriptStep,
} from "../../src/connectors/sources/scripted.ts";
import { MemoryStorage } from "../../src/actors/local/memory_storage.ts";
import type { KvRuntime } from "../../src/actors/kv/kv_runtime.ts";
import type { LocalRuntime } from "../../src/actors/local/local_runtime.ts";
import { StreamEnvironment } from "../../src/api/stream_environment.ts";
import { type ExternalTable, twoPhaseSink } from "./two_phase_sink.ts";

/** A sensor reading. */
export type Reading = { sensor: number; value: number; ts: number };
/** The watermark recovery mode under test. */
export type Mode = "persist" | "replay";

/** Sums the readings' values. */
const sum: AggregateFunction<Reading, number, number> = {
  createAccumulator: () => 0,
  add: (r, total) => total + r.value,
  getResult: (total) => total,
  merge: (a, b) => a + b,
};

/** Sensor readings over this many partitions in {@link sensorReadings}. */
export const READING_PARTITIONS = 4;

/** Where the KV runtime keeps the sensor job's state (job `sensors`). */
export const SENSOR_KV_BASE: Deno.KvKey = ["weir", "sensors", "kvrt"];

/** The sensor job's source actors on the KV runtime, at parallelism 2. */
export const SENSOR_SOURCES = ["sensors/source-0/0", "sensors/source-0/1"];

/** Every actor of the sensor job on the KV runtime, at parallelism 2. */
export const SENSOR_ACTORS = [
  ...SENSOR_SOURCES,
  "sensors/window-1/0",
  "sensors/window-1/1",
];

/**
 * `count` readings, one every `everyMs` of processing time, round-robin over
 * {@link READING_PARTITIONS} partitions, up to 150 ms out of order: within
 * the jobs' 300 ms bound, so none is late whatever the interleaving.
 */
export function sensorReadings(
  count: number,
  everyMs = 20,
): ScriptStep<Reading>[] {
  const steps: ScriptStep<Reading>[] = [];
  for (let i = 0; i < count; i++) {
    const at = i * everyMs;
    steps.push({
      at,
      partition: i % READING_PARTITIONS,
      value: { sensor: i % 7, value: i, ts: Math.max(0, at - (i * 37) % 150) },
    });
  }
  return steps;
}

/** `sensor@windowStart=sum` per 500 ms window, by brute force, as the table holds them. */
export function expectedSums(script: ScriptStep<Reading>[]): string[] {
  const sums = new Map<string, number>();
  for (const step of script) {
    if (!("value" in step)) continue;
    const r = step.value;
    const key = `${r.sensor}@${Math.floor(r.ts / 500) * 500}`;
    sums.set(key, (sums.get(key) ?? 0) + r.value);
  }
  return [...sums].map(([key, sum]) => JSON.stringify(`${key}=${sum}`)).sort();
}

/** Options of {@link sensorJob}. */
export interface SensorJobOptions {
  storage: MemoryStorage;
  clock: ManualClock;
  mode: Mode;
  table: ExternalTable<string>;
  script: ScriptStep<Reading>[];
  partitions: number;
  parallelism: number;
}

/** Builds the job; results are `sensor@windowStart=sum`. */
export function sensorJob(options: SensorJobOptions): StreamEnvironment {
  const env = new StreamEnvironment({
    jobName: "sensors",
    parallelism: options.parallelism,
    clock: options.clock,
    checkpointIntervalMs: 250,
    watermarkRecovery: options.mode,
    checkpointStorage: options.storage,
  });
  env.fromSource(
    new ScriptedSource(options.script, { partitions: options.partitions }),
    WatermarkStrategy.forBoundedOutOfOrderness<Reading>(300)
      .withTimestampAssigner((r) => r.ts),
    "readings",
  )
    .keyBy((r) => r.sensor)
    .window(TumblingEventTimeWindows.of(500))
    .aggregate<number, number, string>(
      sum,
      (sensor, ctx, [total], out) =>
        out(`${sensor}@${ctx.window.start}=${total}`),
    )
    .sinkTo(twoPhaseSink(options.table));
  return env;
}

/**
 * One KV-runtime worker of the persist-mode job at parallelism 2 over
 * {@linkcode READING_PARTITIONS}: its own checkpoint plan, the shared
 * database, table and script. `simulate: false` overlaps its steps.
 */
export function sensorKvWorker(
  kv: Deno.Kv,
  id: string,
  clock: ManualClock,
  table: ExternalTable<string>,
  script: ScriptStep<Reading>[],
  options: { leaseMs?: number; simulate?: boolean } = {},
): KvRuntime {
  return sensorJob({
    storage: new MemoryStorage(),
    clock,
    mode: "persist",
    table,
    script,
    partitions: READING_PARTITIONS,
    parallelism: 2,
  }).createKvRuntime({ kv, workerId: id, ...options });
}

/** Runs step by step, making checkpoints durable after each step; stops after `limit` steps. */
export async function drive(
  runtime: LocalRuntime,
  clock: ManualClock,
  limit = Infinity,
): Promise<number> {
  let steps = 0;
  while (steps < limit) {
    const worked = runtime.step();
    await runtime.flushCheckpoints();
    if (worked) {
      steps++;
      continue;
    }
    if (runtime.finished) {
      await runtime.run(); // waits for the sinks' final commit
      return steps;
    }
    clock.set(Math.max(runtime.nextWakeup(), clock.now() + 1));
  }
  return steps;
}

/** Options of {@link lateDataJob}. */
export interface LateDataJobOptions {
  storage: MemoryStorage;
  clock: ManualClock;
  mode: Mode;
  /** Window results, `windowStart=sum`. */
  table: ExternalTable<string>;
  /** Timestamps of the records sent to the late-data side output. */
  late: ExternalTable<string>;
  script: ScriptStep<Reading>[];
  partitions: number;
  parallelism: number;
}

/**
 * The late-data job: ascending watermarks, 1 s windows summed per sensor, a
 * checkpoint every second, late records to a side output.
 */
export function lateDataJob(options: LateDataJobOptions): StreamEnvironment {
  const env = new StreamEnvironment({
    jobName: "late",
    parallelism: options.parallelism,
    clock: options.clock,
    checkpointIntervalMs: 1_000,
    watermarkRecovery: options.mode,
    checkpointStorage: options.storage,
  });
  const tag = new OutputTag<Reading>("late");
  const windows = env.fromSource(
    new ScriptedSource(options.script, { partitions: options.partitions }),
    WatermarkStrategy.forMonotonousTimestamps<Reading>().withTimestampAssigner((
      r,
    ) => r.ts),
    "r",
  ).keyBy((r) => r.sensor).window(TumblingEventTimeWindows.of(1_000))
    .sideOutputLateData(tag)
    .aggregate<number, number, string>(
      sum,
      (_k, ctx, [total], out) => out(`${ctx.window.start}=${total}`),
    );
  windows.sinkTo(twoPhaseSink(options.table));
  windows.getSideOutput(tag).map((r) => `${r.ts}`).sinkTo(
    twoPhaseSink(options.late),
  );
  return env;
}
