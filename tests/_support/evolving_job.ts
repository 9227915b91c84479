// Versions of the sensor job of tests/_support/sensor_job.ts that a user
// might deploy one after the other: with or without uids, with a stateless
// map added before the keyBy (it chains into the source's vertex) or after
// the window (it chains into the window's vertex), with a window or a keyed
// process function. Every version computes the same results.

import type { ManualClock } from "../../src/time/clock.ts";
import { WatermarkStrategy } from "../../src/time/watermark_strategy.ts";
import { TumblingEventTimeWindows } from "../../src/windows/tumbling.ts";
import { ScriptedSource } from "../../src/connectors/sources/scripted.ts";
import type { MemoryStorage } from "../../src/actors/local/memory_storage.ts";
import { StreamEnvironment } from "../../src/api/stream_environment.ts";
import type { DataStream } from "../../src/api/data_stream.ts";
import type { KeyedProcessFunction } from "../../src/runtime/operators/keyed_process.ts";
import { type ExternalTable, twoPhaseSink } from "./two_phase_sink.ts";
import {
  type Mode,
  type Reading,
  READING_PARTITIONS,
  sensorReadings,
} from "./sensor_job.ts";

/** Where the version has a stateless map the others do not. */
export type Extra = "none" | "before-keyBy" | "after-window";

/** Options of {@link evolvingJob}. */
export interface EvolvingJobOptions {
  storage: MemoryStorage;
  clock: ManualClock;
  table: ExternalTable<string>;
  parallelism: number;
  /** Whether the source, the stateful operator and the sink have uids. */
  uids: boolean;
  /** @default {"none"} */
  extra?: Extra;
  /**
   * `"window"`: sums per sensor in 500 ms windows (`sensor@start=sum`);
   * `"process"`: a keyed process function counting each sensor's readings
   * per second, emitted by an event-time timer (`sensor@second=count`).
   * @default {"window"}
   */
  stateful?: "window" | "process";
  /** @default {"sums"} */
  statefulUid?: string;
  /** The window size. @default {500} */
  windowMs?: number;
  /** @default {"readings"} */
  sourceUid?: string;
  /** @default {"persist"} */
  mode?: Mode;
}

/** The readings every version reads. */
export const EVOLVING_READINGS = sensorReadings(120);

/** Counts each sensor's readings per second, emitted when the second ends. */
const countPerSecond: KeyedProcessFunction<
  Reading,
  string,
  number,
  Record<number, number>
> = {
  processElement(r, ctx) {
    const second = Math.floor(r.ts / 1_000);
    const counts = ctx.state ?? {};
    counts[second] = (counts[second] ?? 0) + 1;
    ctx.setState(counts);
    ctx.registerEventTimeTimer(second * 1_000 + 999);
  },
  onTimer(at, ctx, out) {
    const second = Math.floor(at / 1_000);
    out(`${ctx.key}@${second}=${ctx.state![second]}`);
  },
};

/** Builds one version of the job; results go to `options.table`. */
export function evolvingJob(options: EvolvingJobOptions): StreamEnvironment {
  const extra = options.extra ?? "none";
  const uid = <T>(stream: DataStream<T>, id: string) =>
    options.uids ? stream.uid(id) : stream;
  const env = new StreamEnvironment({
    jobName: "sensors",
    parallelism: options.parallelism,
    clock: options.clock,
    checkpointIntervalMs: 250,
    watermarkRecovery: options.mode ?? "persist",
    checkpointStorage: options.storage,
  });
  let readings = uid(
    env.fromSource(
      new ScriptedSource(EVOLVING_READINGS, { partitions: READING_PARTITIONS }),
      WatermarkStrategy.forBoundedOutOfOrderness<Reading>(300)
        .withTimestampAssigner((r) => r.ts),
      "readings",
    ),
    options.sourceUid ?? "readings",
  );
  if (extra === "before-keyBy") readings = readings.map((r) => ({ ...r }));
  const keyed = readings.keyBy((r) => r.sensor);
  let results = uid(
    options.stateful === "process"
      ? keyed.process(countPerSecond)
      : keyed.window(TumblingEventTimeWindows.of(options.windowMs ?? 500))
        .aggregate<
          number,
          number,
          string
        >(
          {
            createAccumulator: () => 0,
            add: (r, total) => total + r.value,
            getResult: (total) => total,
            merge: (a, b) => a + b,
          },
          (sensor, ctx, [total], out) =>
            out(`${sensor}@${ctx.window.start}=${total}`),
        ),
    options.statefulUid ?? "sums",
  );
  if (extra === "after-window") results = results.map((row) => `${row}`);
  uid(results.sinkTo(twoPhaseSink(options.table)), "table");
  return env;
}

/** What the table holds after a run of the `stateful` version, by brute force. */
export function evolvingResults(stateful: "window" | "process"): string[] {
  const rows = new Map<string, number>();
  for (const step of EVOLVING_READINGS) {
    if (!("value" in step)) continue;
    const r = step.value;
    const key = stateful === "window"
      ? `${r.sensor}@${Math.floor(r.ts / 500) * 500}`
      : `${r.sensor}@${Math.floor(r.ts / 1_000)}`;
    rows.set(key, (rows.get(key) ?? 0) + (stateful === "window" ? r.value : 1));
  }
  return [...rows].map(([key, n]) => JSON.stringify(`${key}=${n}`)).sort();
}
