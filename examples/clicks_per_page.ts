/**
 * Clicks per page per 10 seconds, at parallelism 2, from four source
 * partitions of generated traffic. Partition 3 falls silent at 12 s; with
 * `withIdleness(3_000)` the job keeps firing windows without it.
 *
 * The run is a deterministic simulation on a `ManualClock`: 30 s of
 * processing time pass in a blink, and `onTick` sees every subtask's
 * watermarks as they advance.
 *
 * @module
 */

import {
  ManualClock,
  StreamEnvironment,
  TumblingEventTimeWindows,
  WatermarkStrategy,
} from "../src/mod.ts";
import type { SubtaskStatus } from "../src/actors/mod.ts";
import { ScriptedSource, type ScriptStep } from "../src/connectors/mod.ts";

/** A click on a page. */
export interface Click {
  /** The page, e.g. "/home". */
  page: string;
  /** Event time in epoch milliseconds. */
  at: number;
}

/** A window result: clicks on one page in one window. */
export interface PageCount {
  /** The page. */
  page: string;
  /** Window start, epoch milliseconds. */
  windowStart: number;
  /** Clicks in the window. */
  clicks: number;
}

/** Options of {@linkcode runClicksPerPage}. */
export interface ClicksPerPageOptions {
  /** Called with every subtask's status each simulated second. */
  onTick?: (atMs: number, status: SubtaskStatus[]) => void;
  /** Called with each window result as it is emitted. */
  onResult?: (atMs: number, result: PageCount) => void;
}

const EPOCH = Date.UTC(2026, 0, 1);
const PAGES = ["/home", "/pricing", "/docs", "/blog"];

/** The generated traffic: 4 partitions, a click every 100 ms each, partition 3 silent after 12 s. */
export function clickScript(): ScriptStep<Click>[] {
  const steps: ScriptStep<Click>[] = [];
  for (let t = 0; t < 30_000; t += 100) {
    for (let partition = 0; partition < 4; partition++) {
      if (partition === 3 && t >= 12_000) continue;
      // Event time trails processing time by up to 700 ms, out of order.
      const lag = (t * 7 + partition * 131) % 700;
      const page = PAGES[(t / 100 + partition) % PAGES.length];
      steps.push({ at: t, partition, value: { page, at: EPOCH + t - lag } });
    }
  }
  for (let partition = 0; partition < 4; partition++) {
    steps.push({ at: 30_000, partition, end: true });
  }
  return steps;
}

/**
 * Builds and runs the job to the end of its 30 s of traffic.
 *
 * @param options Callbacks for status and results.
 * @returns Every window result.
 */
export async function runClicksPerPage(
  options: ClicksPerPageOptions = {},
): Promise<PageCount[]> {
  const clock = new ManualClock(0);
  const env = new StreamEnvironment({
    jobName: "clicks-per-page",
    parallelism: 2,
    clock,
  });
  const results: PageCount[] = [];
  env.fromSource(
    new ScriptedSource(clickScript(), { partitions: 4 }),
    WatermarkStrategy.forBoundedOutOfOrderness<Click>(1_000)
      .withTimestampAssigner((click) => click.at)
      .withIdleness(3_000),
    "clicks",
  )
    .keyBy((click) => click.page)
    .window(TumblingEventTimeWindows.of(10_000))
    .aggregate<number, number, PageCount>(
      {
        createAccumulator: () => 0,
        add: (_c, n) => n + 1,
        getResult: (n) => n,
        merge: (a, b) => a + b,
      },
      (page, ctx, [clicks], out) =>
        out({ page, windowStart: ctx.window.start, clicks }),
    )
    .sinkTo({
      name: "results",
      createWriter: () => ({
        write(values) {
          for (const result of values) {
            results.push(result);
            options.onResult?.(clock.now(), result);
          }
        },
      }),
    });
  const runtime = env.createRuntime();
  for (let t = 0; t <= 30_000; t += 100) {
    clock.set(t);
    runtime.runUntilIdle();
    if (t % 1_000 === 0) options.onTick?.(t, runtime.status());
  }
  await runtime.run();
  return results;
}

/** Formats an event-time watermark as seconds since the start of the traffic. */
export function formatWatermark(watermark: number): string {
  if (watermark === -Infinity) return "-inf";
  if (watermark === Infinity) return "+inf";
  return `${((watermark - EPOCH) / 1_000).toFixed(1)}s`;
}
