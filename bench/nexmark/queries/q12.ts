/**
 * Nexmark q12, processing-time windows: bids per bidder in tumbling 10 s
 * windows of processing time.
 *
 * As Flink's SQL `TUMBLE(PROCTIME(), 10 s)` per bidder, with the window's
 * start and end. A window fires when processing time reaches its last
 * millisecond (`end - 1`); windows that have not fired when the input ends
 * are dropped, as in Flink (the final watermark fires only event-time
 * windows). Results therefore depend on the job's clock: with a clock that
 * never reaches `end - 1` (a `ManualClock` at 0) the query emits nothing.
 *
 * @module
 */

import type {
  AggregateFunction,
  Clock,
  DataStream,
  ProcessWindowFunction,
} from "../../../src/mod.ts";
import { TumblingProcessingTimeWindows } from "../../../src/windows/mod.ts";
import { BID, type Event } from "../model.ts";
import { distinctWindows, floorMod, type NexmarkQuery } from "../query.ts";

/** The bids of one bidder in one processing-time window. */
export interface BidderCount {
  /** The bidder's person id. */
  readonly bidder: number;
  /** Bids in the window. */
  readonly count: number;
  /** Window start, processing time in ms. */
  readonly start: number;
  /** Window end (exclusive), processing time in ms. */
  readonly end: number;
}

const SIZE_MS = 10_000;

const countBids: AggregateFunction<Event, number, number> = {
  createAccumulator: () => 0,
  add: (_event, count) => count + 1,
  getResult: (count) => count,
  merge: (a, b) => a + b,
};

const withWindow: ProcessWindowFunction<number, BidderCount, number> =
  function withWindow(bidder, context, counts, out) {
    const { start, end } = context.window;
    out({ bidder, count: counts[0], start, end });
  };

/** Nexmark q12: bids per bidder per processing-time window. */
export const q12: NexmarkQuery<BidderCount> = {
  name: "q12",
  description:
    "Processing-time windows: bids per bidder per TUMBLE(PROCTIME(), 10 s); windows not fired by the end of input are dropped",
  build(events: DataStream<Event>): DataStream<BidderCount> {
    return events
      .filter((event) => event.kind === BID)
      .keyBy((event) => event.bid!.bidder)
      .window(TumblingProcessingTimeWindows.of<Event>(SIZE_MS))
      .aggregate(countBids, withWindow);
  },
  kernel: q12Kernel,
  windows: (results) => distinctWindows(results, (r) => r.start),
  processingTime: true,
};

/** The kernel reads the clock once per this many events (a power of two). */
export const CLOCK_EVERY = 1024;

/**
 * The q12 kernel: `clock.now()` is read once per {@linkcode CLOCK_EVERY}
 * events (the engine reads it once per batch), and counts are kept per
 * bidder for the current window only. A bid
 * that finds the clock at or past the window's end belongs to a later
 * window: the current one, due since `end - 1`, fires first. At the end of
 * input the clock is read once more and the window fires if its `end - 1`
 * has been reached; otherwise it is dropped.
 *
 * The engine fires a window as soon as its timer (`end - 1`) is due, which
 * it checks between batches; the contents are the same, since both put each
 * bid in the window of the time it was read at. The one case that differs:
 * bids read at exactly `end - 1` after the engine's window fired open the
 * same window again there (emitted a second time), while here they join the
 * first emission.
 */
function q12Kernel(
  events: readonly Event[],
  clock: Clock,
  emit: (result: BidderCount) => void,
): void {
  const counts = new Map<number, number>();
  let start = NaN;
  let end = NaN;

  function fire(): void {
    const windowStart = start;
    const windowEnd = end;
    counts.forEach(function each(count, bidder) {
      emit({ bidder, count, start: windowStart, end: windowEnd });
    });
    counts.clear();
  }

  let now = NaN;
  for (let i = 0; i < events.length; i++) {
    if ((i & (CLOCK_EVERY - 1)) === 0) now = clock.now();
    const event = events[i];
    if (event.kind !== BID) continue;
    // False for the first bid too (`end` is NaN).
    if (!(now < end)) {
      fire();
      start = now - floorMod(now, SIZE_MS);
      end = start + SIZE_MS;
    }
    const bidder = event.bid.bidder;
    counts.set(bidder, (counts.get(bidder) ?? 0) + 1);
  }
  if (clock.now() >= end - 1) fire();
}
