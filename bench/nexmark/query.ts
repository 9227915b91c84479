/**
 * What a Nexmark query is for the benchmark: a weir job built through the
 * public API, and the same computation as one hand-written loop (the
 * kernel), which is both its speed limit and its reference output.
 *
 * @module
 */

import type { Clock, DataStream } from "../../src/mod.ts";
import type { Event } from "./model.ts";

/** The watermark of every query: `dateTime - 4 s`, as in the Flink SQL suite. */
export const OUT_OF_ORDERNESS_MS = 4_000;

/**
 * One Nexmark query.
 *
 * The engine job reads the stream of all events (persons, auctions and bids
 * in generation order, each stamped with its `dateTime`, watermark
 * `dateTime - 4 s`) and returns its result stream; the runner sinks it.
 * The kernel reads the same events in the same order from an array and
 * returns the same results. Results are compared as {@linkcode canonical}
 * says, since the engine's order of results differs from the kernel's
 * (parallel subtasks, windows firing per watermark).
 *
 * @typeParam OUT The result type.
 */
export interface NexmarkQuery<OUT> {
  /** `"q0"` ... `"q12"`. */
  readonly name: string;
  /** One line: what the query computes, and how ours differs from Flink's SQL if it does. */
  readonly description: string;
  /**
   * Builds the query on the event stream.
   *
   * @param events Every event, stamped with its `dateTime`.
   * @returns The results.
   */
  build(events: DataStream<Event>): DataStream<OUT>;
  /**
   * The query as one loop over the events, in order; processing time (q12)
   * is read from `clock` (not per event: the engine reads it once per
   * batch).
   * Results go to `emit` (the benchmark counts them, as the engine's sink
   * does; {@linkcode runKernel} collects them).
   *
   * @param events Every event, in generation order.
   * @param clock Processing time.
   * @param emit Receives each result, in any order.
   */
  kernel(
    events: readonly Event[],
    clock: Clock,
    emit: (result: OUT) => void,
  ): void;
  /**
   * The results in a form that does not depend on arrival order, for the
   * engine-equals-kernel check. Default: each result as JSON, sorted.
   *
   * @param results Results of the engine or of the kernel.
   * @returns Comparable data.
   */
  canonical?(results: readonly OUT[]): unknown;
}

/**
 * The default {@linkcode NexmarkQuery.canonical}: results as sorted JSON.
 *
 * @param results The results.
 * @returns Each as JSON, sorted.
 */
export function sortedJson(results: readonly unknown[]): string[] {
  return results.map((r) => JSON.stringify(r)).sort();
}

/**
 * Runs a query's kernel and collects its results.
 *
 * @param query The query.
 * @param events Every event, in generation order.
 * @param clock Processing time.
 * @returns The results.
 */
export function runKernel<OUT>(
  query: NexmarkQuery<OUT>,
  events: readonly Event[],
  clock: Clock,
): OUT[] {
  const results: OUT[] = [];
  query.kernel(events, clock, (result) => results.push(result));
  return results;
}

/**
 * `x mod m` in `[0, m)`, for negative `x` too (exact for safe integers): the
 * start of the window of `x` is `x - floorMod(x, size)`.
 *
 * @param x The dividend.
 * @param m The modulus, positive.
 * @returns The remainder, in `[0, m)`.
 */
export function floorMod(x: number, m: number): number {
  return ((x % m) + m) % m;
}
