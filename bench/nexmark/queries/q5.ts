/**
 * Nexmark q5, hot items: bids are counted per auction in sliding windows of
 * 10 s every 2 s, and each window emits every auction with the window's
 * highest count, ties included.
 *
 * Flink's SQL joins the per-window counts with the per-window maximum and
 * emits `(auction, num)`; ours also carries the window, so results of
 * different windows stay apart when compared.
 *
 * @module
 */

import type { Clock } from "../../../src/mod.ts";
import {
  type AggregateFunction,
  type DataStream,
  type ProcessWindowFunction,
  SlidingEventTimeWindows,
  TumblingEventTimeWindows,
} from "../../../src/mod.ts";
import { BID, dateTimeOf, type Event } from "../model.ts";
import {
  distinctWindows,
  floorMod,
  type NexmarkQuery,
  OUT_OF_ORDERNESS_MS,
} from "../query.ts";

/** One hot auction of one window. */
export interface HotItem {
  /** The auction's id. */
  readonly auction: number;
  /** Its bids in the window: the window's highest count. */
  readonly num: number;
  /** Window start, epoch ms. */
  readonly windowStart: number;
  /** Window end (exclusive), epoch ms. */
  readonly windowEnd: number;
}

const SIZE_MS = 10_000;
const SLIDE_MS = 2_000;

const countBids: AggregateFunction<Event, number, number> = {
  createAccumulator: () => 0,
  add: (_event, count) => count + 1,
  getResult: (count) => count,
  merge: (a, b) => a + b,
};

const withWindow: ProcessWindowFunction<number, HotItem, number> =
  function withWindow(auction, context, counts, out) {
    const { start, end } = context.window;
    out({ auction, num: counts[0], windowStart: start, windowEnd: end });
  };

const hottest: ProcessWindowFunction<HotItem, HotItem, number> =
  function hottest(_end, _context, items, out) {
    let max = 0;
    for (const item of items) if (item.num > max) max = item.num;
    for (const item of items) if (item.num === max) out(item);
  };

/** Nexmark q5: the auctions with the most bids per sliding window. */
export const q5: NexmarkQuery<HotItem> = {
  name: "q5",
  description:
    "Hot items: per HOP(10 s, 2 s) window, the auctions with the most bids (ties all emitted), with the window",
  build(events: DataStream<Event>): DataStream<HotItem> {
    // Counts leave the first window stage at their window's maxTimestamp
    // (end - 1), so the 2 s tumbling windows of the second stage, keyed by
    // the end, hold exactly one sliding window's counts each and fire on the
    // same watermark.
    return events
      .filter((event) => event.kind === BID)
      .keyBy((event) => event.bid!.auction)
      .window(SlidingEventTimeWindows.of<Event>(SIZE_MS, SLIDE_MS))
      .aggregate(countBids, withWindow)
      .keyBy((item) => item.windowEnd)
      .window(TumblingEventTimeWindows.of<HotItem>(SLIDE_MS))
      .process(hottest);
  },
  kernel: q5Kernel,
  windows: (results) => distinctWindows(results, (r) => r.windowStart),
};

/**
 * The q5 kernel. Bids are counted once per 2 s pane (`Map<auction, count>`
 * per pane start), not once per window: a window is the sum of its five
 * panes, added up when it fires (Flink's slicing of hopping windows). The
 * watermark is emulated per event, `max dateTime - 4 s - 1`, as the
 * engine's bounded-out-of-orderness generator computes it; a window fires
 * once its `end - 1` is at or below it (everything at the end of input) and
 * a bid whose windows have all fired is dropped as late, as in the engine.
 */
function q5Kernel(
  events: readonly Event[],
  _clock: Clock,
  emit: (result: HotItem) => void,
): void {
  const panes = new Map<number, Map<number, number>>();
  const spare: Map<number, number>[] = [];
  const sums = new Map<number, number>();
  let paneStart = NaN;
  let pane: Map<number, number> | undefined;
  let lastPaneStart = -Infinity;
  // The end of the first window not fired yet; Infinity while no pane is live.
  let nextEnd = Infinity;
  let maxTimestamp = -Infinity;
  let watermark = -Infinity;

  function fire(end: number): void {
    let only: Map<number, number> | undefined;
    let live = 0;
    for (let start = end - SIZE_MS; start < end; start += SLIDE_MS) {
      const counts = panes.get(start);
      if (counts === undefined) continue;
      live++;
      only = counts;
    }
    let window = only;
    if (live > 1) {
      sums.clear();
      for (let start = end - SIZE_MS; start < end; start += SLIDE_MS) {
        panes.get(start)?.forEach(function add(count, auction) {
          sums.set(auction, (sums.get(auction) ?? 0) + count);
        });
      }
      window = sums;
    }
    if (window !== undefined) {
      let max = 0;
      for (const count of window.values()) if (count > max) max = count;
      const windowStart = end - SIZE_MS;
      window.forEach(function each(num, auction) {
        if (num === max) {
          emit({ auction, num, windowStart, windowEnd: end });
        }
      });
    }
    // The oldest pane feeds no later window.
    const oldest = panes.get(end - SIZE_MS);
    if (oldest !== undefined) {
      panes.delete(end - SIZE_MS);
      oldest.clear();
      spare.push(oldest);
      if (oldest === pane) paneStart = NaN;
    }
  }

  function advance(): void {
    while (nextEnd !== Infinity && nextEnd - 1 <= watermark) {
      fire(nextEnd);
      nextEnd += SLIDE_MS;
      if (nextEnd - SIZE_MS > lastPaneStart) nextEnd = Infinity;
    }
  }

  for (let i = 0; i < events.length; i++) {
    const event = events[i];
    let timestamp: number;
    if (event.kind === BID) {
      const bid = event.bid;
      timestamp = bid.dateTime;
      const start = timestamp - floorMod(timestamp, SLIDE_MS);
      if (start !== paneStart) {
        // Late: every window of the pane ended at or before the watermark.
        if (start + SIZE_MS - 1 <= watermark) continue;
        paneStart = start;
        pane = panes.get(start);
        if (pane === undefined) {
          pane = spare.pop() ?? new Map();
          panes.set(start, pane);
          if (start > lastPaneStart) lastPaneStart = start;
          if (nextEnd === Infinity) {
            nextEnd = watermark === -Infinity ? start + SLIDE_MS : Math.max(
              start + SLIDE_MS,
              watermark + 1 - floorMod(watermark + 1, SLIDE_MS) + SLIDE_MS,
            );
          }
        }
      }
      const auction = bid.auction;
      pane!.set(auction, (pane!.get(auction) ?? 0) + 1);
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
