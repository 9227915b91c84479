/**
 * The runs of `deno task bench`: one job run to the end with its results
 * counted (or kept), and the checkpointed arm.
 *
 * @module
 */

import {
  KvStorage,
  type Sink,
  type Source,
  StreamEnvironment,
  SystemClock,
  WatermarkStrategy,
} from "../../src/mod.ts";
import type { LocalRuntime } from "../../src/actors/mod.ts";
import { type NexmarkQuery, OUT_OF_ORDERNESS_MS } from "./query.ts";
import {
  type CheckpointReport,
  MIN_CHECKPOINTS,
  type Progress,
} from "./output.ts";

type Query = NexmarkQuery<unknown, unknown>;

const CHECKPOINT_INTERVAL_MS = 1_000;
/** Alternated pairs of runs (without, with checkpoints) per attempt. */
export const CHECKPOINTED_RUNS = 2;
// Attempts, each on twice the events of the last, until the best
// checkpointed run takes MIN_CHECKPOINTS.
const CHECKPOINTED_ATTEMPTS = 3;

/** Counts results (and keeps them, when asked) and samples the heap in use. */
class CountingSink implements Sink<unknown> {
  readonly name = "count";
  results = 0;
  peakHeap = 0;
  readonly kept: unknown[] | null;
  #calls = 0;

  constructor(keep: boolean) {
    this.kept = keep ? [] : null;
  }

  createWriter() {
    return {
      write: (values: readonly unknown[]) => {
        this.results += values.length;
        if (this.kept !== null) {
          for (let i = 0; i < values.length; i++) this.kept.push(values[i]);
        }
        if ((++this.#calls & 63) === 0) this.sample();
      },
    };
  }

  sample(): void {
    this.peakHeap = Math.max(this.peakHeap, Deno.memoryUsage().heapUsed);
  }
}

/** How each job of a run is set up. */
export interface JobShape {
  /** The job's parallelism. */
  readonly parallelism: number;
  /** Processing time between periodic watermarks (Flink's default 200). */
  readonly watermarkIntervalMs: number;
}

/** One run of a query's job. */
export interface EngineRun {
  readonly eventsPerSecond: number;
  readonly results: number;
  readonly kept: unknown[] | null;
  readonly peakHeapMb: number;
  readonly runtime: LocalRuntime;
}

let jobs = 0;

/**
 * Runs a query's job once to the end of its input.
 *
 * @param query The query.
 * @param source Its input.
 * @param events Records in the input, for the rate.
 * @param shape The job's parallelism and watermark interval.
 * @param checkpoints Where to checkpoint every second; `null` for none.
 * @param keep Whether to keep the results (for the check).
 * @returns The run.
 */
export async function runEngine(
  query: Query,
  source: Source<unknown>,
  events: number,
  shape: JobShape,
  checkpoints: Deno.Kv | null,
  keep = false,
): Promise<EngineRun> {
  const jobName = `nexmark-${query.name}-${++jobs}`;
  const env = new StreamEnvironment({
    jobName,
    parallelism: shape.parallelism,
    autoWatermarkIntervalMs: shape.watermarkIntervalMs,
    clock: new SystemClock(),
    checkpointIntervalMs: checkpoints === null ? 0 : CHECKPOINT_INTERVAL_MS,
    checkpointStorage: checkpoints === null
      ? null
      : new KvStorage(checkpoints, ["weir", jobName, "checkpoints"]),
  });
  const sink = new CountingSink(keep);
  query.build(
    env.fromSource(
      source,
      WatermarkStrategy.forBoundedOutOfOrderness<unknown>(OUT_OF_ORDERNESS_MS),
      "nexmark",
    ),
  ).sinkTo(sink);
  sink.sample();
  const start = performance.now();
  const runtime = await env.execute({ restore: "none" });
  const ms = performance.now() - start;
  sink.sample();
  return {
    eventsPerSecond: events / (ms / 1_000),
    results: sink.results,
    kept: sink.kept,
    peakHeapMb: sink.peakHeap / 1e6,
    runtime,
  };
}

/**
 * The fastest run.
 *
 * @param runs At least one run.
 * @param rate A run's speed.
 * @returns The run with the highest rate.
 */
export function best<T>(runs: readonly T[], rate: (run: T) => number): T {
  return runs.reduce((a, b) => rate(b) > rate(a) ? b : a);
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)];
}

/**
 * The checkpointed arm: the generator-included job without checkpoints and
 * with one every second, alternated, best of each; on twice the events
 * again while the best checkpointed run took fewer than
 * {@linkcode MIN_CHECKPOINTS} (up to three attempts; the report gives the
 * count, and the table marks a short one).
 *
 * @param query The query.
 * @param generating A generating source of `count` events.
 * @param events Events of the first attempt.
 * @param shape The job's parallelism and watermark interval.
 * @param kv Where checkpoints go.
 * @param progress The progress bar.
 * @returns The report.
 */
export async function measureCheckpoints(
  query: Query,
  generating: (count: number) => Source<unknown>,
  events: number,
  shape: JobShape,
  kv: Deno.Kv,
  progress: Progress,
): Promise<CheckpointReport> {
  let count = events;
  for (let attempt = 1;; attempt++) {
    // Alternated, best of each: drift in the machine's load hits both arms.
    const withoutRuns: EngineRun[] = [];
    const withRuns: EngineRun[] = [];
    for (let i = 0; i < CHECKPOINTED_RUNS; i++) {
      progress.step(`${query.name} ${count} events without checkpoints`);
      withoutRuns.push(
        await runEngine(query, generating(count), count, shape, null),
      );
      progress.step(`${query.name} ${count} events, checkpoint every second`);
      withRuns.push(
        await runEngine(query, generating(count), count, shape, kv),
      );
    }
    const without = best(withoutRuns, (r) => r.eventsPerSecond);
    const withCheckpoints = best(withRuns, (r) => r.eventsPerSecond);
    const latest = withCheckpoints.runtime.latestCheckpoint?.id ?? 0;
    const durations: number[] = [];
    for (let id = 1; id <= latest; id++) {
      const ms = withCheckpoints.runtime.checkpointDurationMs(id);
      if (ms !== undefined) durations.push(ms);
    }
    if (
      durations.length < MIN_CHECKPOINTS && attempt < CHECKPOINTED_ATTEMPTS
    ) {
      count *= 2;
      continue;
    }
    durations.sort((a, b) => a - b);
    return {
      events: count,
      withoutEventsPerSecond: without.eventsPerSecond,
      withEventsPerSecond: withCheckpoints.eventsPerSecond,
      ratio: withCheckpoints.eventsPerSecond / without.eventsPerSecond,
      count: durations.length,
      p50Ms: durations.length > 0 ? percentile(durations, 0.5) : null,
      p99Ms: durations.length > 0 ? percentile(durations, 0.99) : null,
    };
  }
}
