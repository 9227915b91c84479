// Runs a Nexmark query on the engine and makes the events its kernel reads,
// for the engine-equals-kernel tests of bench/nexmark/queries/.
//
// Watermarks: `forBoundedOutOfOrderness` emits only from `onPeriodicEmit`,
// which runs on processing time; with a ManualClock that the runtime never
// needs to move (the source always has records), no watermark would come
// before the final one and every window and timer would fire at the end.
// `steppedOutOfOrderness` emits the same bounded watermark (`dateTime - 4 s
// - 1 ms`) from `onEvent`, each time it has advanced by `stepMs` of event
// time, so windows and timers fire mid-stream, deterministically.

import assert from "node:assert/strict";
import {
  ManualClock,
  StreamEnvironment,
  type WatermarkGenerator,
  type WatermarkOutput,
  WatermarkStrategy,
} from "../../../src/mod.ts";
import { NexmarkGenerator } from "../../../bench/nexmark/generator.ts";
import type { NexmarkConfig } from "../../../bench/nexmark/config.ts";
import type { Event } from "../../../bench/nexmark/model.ts";
import {
  type NexmarkQuery,
  OUT_OF_ORDERNESS_MS,
  runKernel,
  sortedJson,
} from "../../../bench/nexmark/query.ts";
import { NexmarkSource } from "../../../bench/nexmark/source.ts";

/** Options of {@linkcode runEngine}. */
export interface RunEngineOptions {
  /**
   * Event time between two watermarks; see {@linkcode steppedOutOfOrderness}.
   * @default {250}
   */
  readonly watermarkStepMs?: number;
}

/**
 * Every event of a config, in generation order: what a kernel reads.
 *
 * @param config Generator fields to override.
 * @returns The events.
 */
export function generate(config: Partial<NexmarkConfig>): Event[] {
  const generator = new NexmarkGenerator(config);
  const events: Event[] = [];
  while (generator.hasNext) events.push(generator.next());
  return events;
}

/**
 * Runs `query.build` over a `NexmarkSource` of `config` (timestamps =
 * `dateTime`, watermarks from {@linkcode steppedOutOfOrderness}) on a
 * `ManualClock(0)` without periodic watermarks, and collects its results.
 *
 * @param query The query.
 * @param config Generator fields to override.
 * @param parallelism The job's default parallelism.
 * @param options The watermark step.
 * @returns The results, in arrival order.
 */
export async function runEngine<OUT>(
  query: NexmarkQuery<OUT>,
  config: Partial<NexmarkConfig>,
  parallelism: number,
  options: RunEngineOptions = {},
): Promise<OUT[]> {
  const env = new StreamEnvironment({
    jobName: query.name,
    parallelism,
    clock: new ManualClock(0),
    autoWatermarkIntervalMs: 0,
  });
  const events = env.fromSource(
    new NexmarkSource(config),
    steppedOutOfOrderness(options.watermarkStepMs ?? 250),
    "nexmark",
  );
  return await env.executeAndCollect(query.build(events));
}

/**
 * Bounded out-of-orderness watermarks (`maxTimestamp - 4 s - 1 ms`) emitted
 * with the records, each time they have advanced by `stepMs` since the last
 * one emitted, and at the end of input.
 *
 * @param stepMs Event time between two watermarks, in milliseconds.
 * @returns The strategy, for `fromSource`.
 */
export function steppedOutOfOrderness(
  stepMs: number,
): WatermarkStrategy<Event> {
  return WatermarkStrategy.forGenerator<Event>(function stepped() {
    return new SteppedWatermarks(OUT_OF_ORDERNESS_MS, stepMs);
  });
}

class SteppedWatermarks implements WatermarkGenerator<Event> {
  readonly #bound: number;
  readonly #stepMs: number;
  #maxTimestamp = -Infinity;
  #emitted = -Infinity;

  constructor(bound: number, stepMs: number) {
    this.#bound = bound;
    this.#stepMs = stepMs;
  }

  onEvent(_event: Event, timestamp: number, output: WatermarkOutput): void {
    if (timestamp <= this.#maxTimestamp) return;
    this.#maxTimestamp = timestamp;
    const watermark = timestamp - this.#bound - 1;
    if (watermark >= this.#emitted + this.#stepMs) {
      this.#emitted = watermark;
      output.emitWatermark(watermark);
    }
  }

  onPeriodicEmit(output: WatermarkOutput): void {
    if (this.#maxTimestamp === -Infinity) return;
    this.#emitted = this.#maxTimestamp - this.#bound - 1;
    output.emitWatermark(this.#emitted);
  }
}

/**
 * Checks that the engine's results equal the kernel's (by the query's
 * `canonical` form) at parallelism 1 and 2, on the events of `config`.
 *
 * @returns The kernel's results, for further checks.
 */
export async function checkAgainstKernel<OUT>(
  query: NexmarkQuery<OUT>,
  config: Partial<NexmarkConfig>,
  events: readonly Event[],
  minResults: number,
): Promise<OUT[]> {
  const canonical = query.canonical ?? sortedJson;
  const kernel = runKernel(query, events, new ManualClock(0));
  assert.ok(
    kernel.length >= minResults,
    `${query.name} kernel gave ${kernel.length} results, expected at least ${minResults}`,
  );
  const expected = canonical(kernel);
  for (const parallelism of [1, 2]) {
    const engine = await runEngine(query, config, parallelism);
    assert.deepEqual(
      canonical(engine),
      expected,
      `${query.name} at parallelism ${parallelism}`,
    );
  }
  return kernel;
}
