/**
 * Nexmark q4, average price for a category: the running average, per
 * category, of the winning (highest) bid of each closed auction.
 *
 * Flink's SQL joins each auction with its bids whose `dateTime` is within
 * `[auction.dateTime, auction.expires]`, takes `MAX(price)` per auction and
 * `AVG` of those per category: an unbounded, updating aggregate whose
 * result changes with every bid. This DataStream formulation emits the same
 * final numbers as a changelog of updates, once per auction rather than
 * once per bid:
 *
 * 1. Keyed by auction id, an auction opens `{ category, dateTime, expires,
 *    max }` and an event-time timer at `expires`; a bid inside the
 *    auction's interval raises `max`. When the watermark passes `expires`
 *    (no bid in the interval can still come), the auction closes: if a bid
 *    matched, it emits `{ category, price: max }`; its state is dropped.
 * 2. Keyed by category, `{ sum, count }` of the closed auctions' prices;
 *    each closed auction emits the new `{ category, avg: sum / count }`
 *    (Flink's updating `AVG`; the last one per category is the final
 *    average).
 *
 * Differences from Flink: a bid that arrives before its auction (Beam's
 * generator lets a bid name one of the next 10 auctions) finds no state
 * and is dropped, where Flink's join would keep it until the auction
 * comes; and auctions without a bid in their interval do not count (as in
 * Flink's inner join). Beam's q4 differs more: winning bids must reach the
 * reserve, and the average is over sliding 10 s windows.
 *
 * Results are compared per category by the last average and the number of
 * updates: at parallelism above 1 the updates of several auction subtasks
 * interleave in any order.
 *
 * @module
 */

import type { Clock } from "../../../src/mod.ts";
import type { DataStream, KeyedProcessFunction } from "../../../src/mod.ts";
import { AUCTION, BID, type Bid, type Event, PERSON } from "../model.ts";
import { type NexmarkQuery, OUT_OF_ORDERNESS_MS } from "../query.ts";

/** A q4 result: a category's average winning price after one more auction closed. */
export interface CategoryAverage {
  /** The category, 10 to 14. */
  readonly category: number;
  /** Mean of the highest in-interval bid of the category's closed auctions, in cents. */
  readonly avg: number;
}

/** A closed auction's highest in-interval bid. */
interface ClosedAuction {
  readonly category: number;
  readonly price: number;
}

/** Per-auction state of stage 1, changed in place. */
interface OpenAuction {
  category: number;
  dateTime: number;
  expires: number;
  /** The highest matching price so far; -1 before the first (prices are at least 100). */
  max: number;
}

/** Per-category state of stage 2, changed in place. */
interface CategoryTotal {
  sum: number;
  count: number;
}

const maxBid: KeyedProcessFunction<Event, ClosedAuction, number, OpenAuction> =
  {
    processElement(e, ctx) {
      if (e.kind === AUCTION) {
        const a = e.auction;
        ctx.setState({
          category: a.category,
          dateTime: a.dateTime,
          expires: a.expires,
          max: -1,
        });
        ctx.registerEventTimeTimer(a.expires);
        return;
      }
      const open = ctx.state;
      if (open === undefined) return;
      const bid = e.bid as Bid;
      if (
        bid.price > open.max && bid.dateTime >= open.dateTime &&
        bid.dateTime <= open.expires
      ) {
        open.max = bid.price;
      }
    },
    onTimer(_timestamp, ctx, out) {
      const open = ctx.state as OpenAuction;
      if (open.max >= 0) out({ category: open.category, price: open.max });
      ctx.clearState();
    },
  };

const average: KeyedProcessFunction<
  ClosedAuction,
  CategoryAverage,
  number,
  CategoryTotal
> = {
  processElement(closed, ctx, out) {
    let total = ctx.state;
    if (total === undefined) {
      total = { sum: 0, count: 0 };
      ctx.setState(total);
    }
    total.sum += closed.price;
    total.count++;
    out({ category: closed.category, avg: total.sum / total.count });
  },
};

/** Nexmark q4: running average winning price per category. */
export const q4: NexmarkQuery<CategoryAverage> = {
  name: "q4",
  description: "Average price per category: max in-interval bid per auction " +
    "at close, running AVG per category (changelog; bids before their " +
    "auction are dropped)",

  build(events: DataStream<Event>): DataStream<CategoryAverage> {
    return events
      .filter(function isAuctionOrBid(e) {
        return e.kind !== PERSON;
      })
      .keyBy(function auctionId(e) {
        return e.kind === AUCTION ? e.auction.id : (e.bid as Bid).auction;
      })
      .process(maxBid)
      .keyBy(function categoryOf(closed) {
        return closed.category;
      })
      .process(average);
  },

  kernel(
    events: readonly Event[],
    _clock: Clock,
    emit: (result: CategoryAverage) => void,
  ): void {
    const open = new Map<number, KernelAuction>();
    const totals = new Map<number, CategoryTotal>();
    // Open auctions as a binary min-heap on (expires, arrival).
    const heap: KernelAuction[] = [];
    let arrivals = 0;
    for (let i = 0; i < events.length; i++) {
      const e = events[i];
      if (e.kind === BID) {
        const bid = e.bid;
        const a = open.get(bid.auction);
        if (
          a !== undefined && bid.price > a.max &&
          bid.dateTime >= a.dateTime && bid.dateTime <= a.expires
        ) {
          a.max = bid.price;
        }
      } else if (e.kind === AUCTION) {
        const auction = e.auction;
        // Close what the engine's watermark (dateTime - 4 s - 1 ms) has
        // passed. The engine fires its timers in ascending (expires,
        // registration) order, across watermarks too: a new auction's
        // `expires` is above its `dateTime`, hence above the watermark, so
        // it never lands before a timer that already fired. Closing here,
        // only when an auction arrives, changes when auctions close but
        // not what they hold: on in-order input every later bid is after
        // a closed auction's `expires`.
        closeUpTo(auction.dateTime - OUT_OF_ORDERNESS_MS - 1);
        const a: KernelAuction = {
          id: auction.id,
          category: auction.category,
          dateTime: auction.dateTime,
          expires: auction.expires,
          arrival: arrivals++,
          max: -1,
        };
        open.set(a.id, a);
        push(heap, a);
      }
    }
    closeUpTo(Infinity);

    function closeUpTo(watermark: number): void {
      while (heap.length > 0 && heap[0].expires <= watermark) {
        const a = pop(heap);
        open.delete(a.id);
        if (a.max < 0) continue;
        let total = totals.get(a.category);
        if (total === undefined) {
          total = { sum: 0, count: 0 };
          totals.set(a.category, total);
        }
        total.sum += a.max;
        total.count++;
        emit({ category: a.category, avg: total.sum / total.count });
      }
    }
  },

  canonical(results: readonly CategoryAverage[]): unknown {
    // Per category: [category, last average, number of updates].
    const last = new Map<number, [number, number, number]>();
    for (const r of results) {
      const entry = last.get(r.category);
      if (entry === undefined) last.set(r.category, [r.category, r.avg, 1]);
      else {
        entry[1] = r.avg;
        entry[2]++;
      }
    }
    return [...last.values()].sort((a, b) => a[0] - b[0]);
  },
};

/** An open auction of the kernel. */
interface KernelAuction {
  readonly id: number;
  readonly category: number;
  readonly dateTime: number;
  readonly expires: number;
  readonly arrival: number;
  max: number;
}

function before(a: KernelAuction, b: KernelAuction): boolean {
  return a.expires < b.expires ||
    (a.expires === b.expires && a.arrival < b.arrival);
}

function push(heap: KernelAuction[], a: KernelAuction): void {
  let i = heap.length;
  heap.push(a);
  while (i > 0) {
    const parent = (i - 1) >>> 1;
    if (!before(a, heap[parent])) break;
    heap[i] = heap[parent];
    i = parent;
  }
  heap[i] = a;
}

function pop(heap: KernelAuction[]): KernelAuction {
  const top = heap[0];
  const last = heap.pop() as KernelAuction;
  const n = heap.length;
  if (n === 0) return top;
  let i = 0;
  for (;;) {
    const left = 2 * i + 1;
    if (left >= n) break;
    const right = left + 1;
    const child = right < n && before(heap[right], heap[left]) ? right : left;
    if (!before(heap[child], last)) break;
    heap[i] = heap[child];
    i = child;
  }
  heap[i] = last;
  return top;
}
