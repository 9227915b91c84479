/**
 * Nexmark q7, highest bid: per tumbling 10 s window, every bid whose price
 * is the window's highest (ties all emitted).
 *
 * Flink's SQL computes `MAX(price)` per window and interval-joins it back
 * onto the bids of the 10 s up to the window's end, both bounds inclusive,
 * so a bid at the same price just across the boundary, in the neighbouring
 * window, is picked up too; ours emits the window's own highest bids. A
 * bid belongs to one window and carries its `dateTime`, so the result is
 * the bid unchanged.
 *
 * @module
 */

import type { Clock } from "../../../src/mod.ts";
import {
  type AggregateFunction,
  type DataStream,
  type ProcessWindowFunction,
  TumblingEventTimeWindows,
} from "../../../src/mod.ts";
import { BID, type Bid, dateTimeOf, type Event } from "../model.ts";
import {
  distinctWindows,
  floorMod,
  type NexmarkQuery,
  OUT_OF_ORDERNESS_MS,
} from "../query.ts";

/** A bid with the highest price of its 10 s window. */
export type HighestBid = Bid;

const SIZE_MS = 10_000;

/** A window's highest price and the bids that offered it. */
interface Highest {
  max: number;
  bids: Bid[];
}

const highest: AggregateFunction<Event, Highest, Bid[]> = {
  createAccumulator: () => ({ max: -Infinity, bids: [] }),
  add(event, acc) {
    const bid = event.bid!;
    if (bid.price > acc.max) {
      acc.max = bid.price;
      acc.bids.length = 0;
      acc.bids.push(bid);
    } else if (bid.price === acc.max) {
      acc.bids.push(bid);
    }
    return acc;
  },
  getResult: (acc) => acc.bids,
  merge(a, b) {
    if (a.max > b.max) return a;
    if (b.max > a.max) return b;
    return { max: a.max, bids: a.bids.concat(b.bids) };
  },
};

const emitEach: ProcessWindowFunction<Bid[], Bid, number> = function emitEach(
  _key,
  _context,
  results,
  out,
) {
  for (const bid of results[0]) out(bid);
};

/** Nexmark q7: the highest bids of each tumbling 10 s window. */
export const q7: NexmarkQuery<HighestBid> = {
  name: "q7",
  description:
    "Highest bid: per TUMBLE(10 s) window, every bid at the window's max price (Flink interval-joins the max back onto bids)",
  build(events: DataStream<Event>): DataStream<HighestBid> {
    // One global key: the whole window's max is needed at one place.
    return events
      .filter((event) => event.kind === BID)
      .keyBy(() => 0)
      .window(TumblingEventTimeWindows.of<Event>(SIZE_MS))
      .aggregate(highest, emitEach);
  },
  kernel: q7Kernel,
  windows: (results) =>
    distinctWindows(results, (r) => r.dateTime - floorMod(r.dateTime, SIZE_MS)),
};

/**
 * The q7 kernel: one `{ max, bids }` per live window (`Map` by window start,
 * with the current window cached), the watermark emulated per event as
 * `max dateTime - 4 s - 1`; a window fires once its `end - 1` is at or below
 * it (the rest at the end of input) and a bid of a fired window is dropped
 * as late, as in the engine.
 */
function q7Kernel(
  events: readonly Event[],
  _clock: Clock,
  emit: (result: HighestBid) => void,
): void {
  const windows = new Map<number, Highest>();
  let currentStart = NaN;
  let current: Highest | undefined;
  // The earliest end among live windows; Infinity when none.
  let nextEnd = Infinity;
  let maxTimestamp = -Infinity;
  let watermark = -Infinity;

  function advance(): void {
    nextEnd = Infinity;
    for (const [start, window] of windows) {
      const end = start + SIZE_MS;
      if (end - 1 <= watermark) {
        for (const bid of window.bids) emit(bid);
        windows.delete(start);
        if (window === current) currentStart = NaN;
      } else if (end < nextEnd) {
        nextEnd = end;
      }
    }
  }

  for (let i = 0; i < events.length; i++) {
    const event = events[i];
    let timestamp: number;
    if (event.kind === BID) {
      const bid = event.bid;
      timestamp = bid.dateTime;
      const start = timestamp - floorMod(timestamp, SIZE_MS);
      if (start !== currentStart) {
        if (start + SIZE_MS - 1 <= watermark) continue;
        currentStart = start;
        current = windows.get(start);
        if (current === undefined) {
          current = { max: -Infinity, bids: [] };
          windows.set(start, current);
          if (start + SIZE_MS < nextEnd) nextEnd = start + SIZE_MS;
        }
      }
      const price = bid.price;
      if (price > current!.max) {
        current!.max = price;
        current!.bids.length = 0;
        current!.bids.push(bid);
      } else if (price === current!.max) {
        current!.bids.push(bid);
      }
    } else {
      timestamp = dateTimeOf(event);
    }
    if (timestamp > maxTimestamp) {
      maxTimestamp = timestamp;
      watermark = timestamp - OUT_OF_ORDERNESS_MS - 1;
      if (nextEnd - 1 <= watermark) advance();
    }
  }
  watermark = Infinity;
  advance();
}
