// Nexmark q5, q7, q8, q11 and q12: the engine job's results equal the
// kernel's (as the query's `canonical` form says) at parallelism 1 and 2, on
// 20 000 events at 100 events/s (200 s of event time: 100 sliding windows,
// 20 tumbling ones, sessions closing mid-stream), plus hand-made inputs for
// the edge cases (ties, touching sessions, joins in either order) and a
// driven processing-time clock for q12.

import assert from "node:assert/strict";
import {
  type Clock,
  CollectionSource,
  CollectSink,
  ManualClock,
  type Source,
  type SourceBatch,
  type SourceReader,
  StreamEnvironment,
} from "../../../src/mod.ts";
import type { NexmarkConfig } from "../../../bench/nexmark/config.ts";
import {
  AUCTION,
  BID,
  dateTimeOf,
  type Event,
  PERSON,
} from "../../../bench/nexmark/model.ts";
import {
  type NexmarkQuery,
  runKernel,
  sortedJson,
} from "../../../bench/nexmark/query.ts";
import { type HotItem, q5 } from "../../../bench/nexmark/queries/q5.ts";
import { q7 } from "../../../bench/nexmark/queries/q7.ts";
import { q8 } from "../../../bench/nexmark/queries/q8.ts";
import { q11 } from "../../../bench/nexmark/queries/q11.ts";
import {
  type BidderCount,
  CLOCK_EVERY,
  q12,
} from "../../../bench/nexmark/queries/q12.ts";
import {
  checkAgainstKernel,
  generate,
  runEngine,
  steppedOutOfOrderness,
} from "./_run_query.ts";

const CONFIG: Partial<NexmarkConfig> = {
  numEvents: 20_000,
  firstEventRate: 100,
};
const EVENTS = generate(CONFIG);

/** Runs a query on hand-made events (timestamps = `dateTime`) at parallelism 1 and 2. */
async function checkHandMade<OUT>(
  query: NexmarkQuery<OUT>,
  events: Event[],
  expected: OUT[],
): Promise<void> {
  const canonical = query.canonical ?? sortedJson;
  assert.deepEqual(
    canonical(runKernel(query, events, new ManualClock(0))),
    canonical(expected),
    `${query.name} kernel`,
  );
  for (const parallelism of [1, 2]) {
    const env = new StreamEnvironment({
      jobName: query.name,
      parallelism,
      clock: new ManualClock(0),
      autoWatermarkIntervalMs: 0,
    });
    const stream = env.fromSource(
      new CollectionSource(events, { timestampOf: dateTimeOf }),
      steppedOutOfOrderness(1),
      "events",
    );
    assert.deepEqual(
      canonical(await env.executeAndCollect(query.build(stream))),
      canonical(expected),
      `${query.name} at parallelism ${parallelism}`,
    );
  }
}

function bid(
  dateTime: number,
  fields: { auction?: number; bidder?: number; price?: number },
): Event {
  return {
    kind: BID,
    person: null,
    auction: null,
    bid: {
      auction: fields.auction ?? 1,
      bidder: fields.bidder ?? 1,
      price: fields.price ?? 100,
      dateTime,
      extra: "",
    },
  };
}

function person(dateTime: number, id: number): Event {
  return {
    kind: PERSON,
    person: {
      id,
      name: `p${id}`,
      emailAddress: "",
      creditCard: "",
      city: "",
      state: "",
      dateTime,
      extra: "",
    },
    auction: null,
    bid: null,
  };
}

function auction(dateTime: number, seller: number): Event {
  return {
    kind: AUCTION,
    person: null,
    auction: {
      id: 1,
      itemName: "",
      description: "",
      initialBid: 1,
      reserve: 1,
      dateTime,
      expires: dateTime + 1,
      seller,
      category: 10,
      extra: "",
    },
    bid: null,
  };
}

function countBy<T>(items: readonly T[], key: (item: T) => number): number[] {
  const counts = new Map<number, number>();
  for (const item of items) {
    counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  }
  return [...counts.values()];
}

Deno.test("q5 engine finds the same hot auctions per window as its kernel, ties included", async () => {
  const results = await checkAgainstKernel(q5, CONFIG, EVENTS, 100);
  const perWindow = countBy(results, (r: HotItem) => r.windowEnd);
  assert.ok(perWindow.length >= 90, `${perWindow.length} windows`);
  const tied = perWindow.filter((n) => n > 1).length;
  assert.ok(tied >= 5, `${tied} windows with ties`);
});

Deno.test("q5 emits every tied auction in each of the five windows of a bid", async () => {
  const events = [
    bid(1_000, { auction: 7 }),
    bid(1_500, { auction: 8 }),
    bid(3_000, { auction: 8 }),
  ];
  // The bids at 1 s and 1.5 s are in the windows starting at -8 s ... 0,
  // the one at 3 s in those starting at -6 s ... 2 s.
  const window = (start: number) => ({
    windowStart: start,
    windowEnd: start + 10_000,
  });
  await checkHandMade(q5, events, [
    { auction: 7, num: 1, ...window(-8_000) },
    { auction: 8, num: 1, ...window(-8_000) },
    { auction: 8, num: 2, ...window(-6_000) },
    { auction: 8, num: 2, ...window(-4_000) },
    { auction: 8, num: 2, ...window(-2_000) },
    { auction: 8, num: 2, ...window(0) },
    { auction: 8, num: 1, ...window(2_000) },
  ]);
});

Deno.test("q7 engine finds the same highest bids per window as its kernel", async () => {
  const results = await checkAgainstKernel(q7, CONFIG, EVENTS, 20);
  const windows = new Set(results.map((b) => b.dateTime - b.dateTime % 10_000));
  assert.ok(windows.size >= 19, `${windows.size} windows`);
});

Deno.test("q7 emits every bid at the max price of its own window only", async () => {
  const events = [
    bid(1_000, { price: 5 }),
    bid(2_000, { price: 9, bidder: 2 }),
    bid(3_000, { price: 3 }),
    bid(4_000, { price: 9, bidder: 3 }),
    // On the boundary, in the second window only (Flink's interval join,
    // inclusive at both ends, may pair it with the first window's max).
    bid(10_000, { price: 9, bidder: 4 }),
    bid(11_000, { price: 7 }),
  ];
  await checkHandMade(q7, events, [
    events[1].bid!,
    events[3].bid!,
    events[4].bid!,
  ]);
});

Deno.test("q8 engine finds the same new sellers as its kernel", async () => {
  const results = await checkAgainstKernel(q8, CONFIG, EVENTS, 30);
  const windows = new Set(results.map((r) => r.windowStart));
  assert.ok(windows.size >= 10, `${windows.size} windows`);
});

Deno.test("q8 joins a person with their auctions in the same window, in either order, once", async () => {
  const events = [
    auction(500, 3),
    person(1_000, 1),
    auction(2_000, 1),
    auction(2_500, 1),
    person(3_000, 2),
    // Person 2's auction is in the next window.
    auction(12_000, 2),
    person(9_000, 3),
    person(15_000, 4),
    auction(19_999, 4),
  ];
  await checkHandMade(q8, events, [
    { id: 1, name: "p1", windowStart: 0 },
    { id: 3, name: "p3", windowStart: 0 },
    { id: 4, name: "p4", windowStart: 10_000 },
  ]);
});

Deno.test("q11 engine finds the same sessions as its kernel, several per bidder", async () => {
  const results = await checkAgainstKernel(q11, CONFIG, EVENTS, 1_000);
  const perBidder = countBy(results, (r) => r.bidder);
  assert.ok(perBidder.length >= 100, `${perBidder.length} bidders`);
  const repeat = perBidder.filter((n) => n >= 3).length;
  assert.ok(repeat >= 100, `${repeat} bidders with 3 sessions or more`);
});

Deno.test("q11 merges a bid at exactly the session end and splits after a longer gap", async () => {
  const events = [
    bid(0, { bidder: 1 }),
    bid(3_000, { bidder: 2 }),
    // Touches [0, 10 s): the session becomes [0, 20 s).
    bid(10_000, { bidder: 1 }),
    bid(20_001, { bidder: 1 }),
    bid(40_000, { bidder: 2 }),
  ];
  await checkHandMade(q11, events, [
    { bidder: 1, count: 2, start: 0, end: 20_000 },
    { bidder: 1, count: 1, start: 20_001, end: 30_001 },
    { bidder: 2, count: 1, start: 3_000, end: 13_000 },
    { bidder: 2, count: 1, start: 40_000, end: 50_000 },
  ]);
});

Deno.test("q11 kernel rejects bids of a bidder out of timestamp order", () => {
  assert.throws(
    () => runKernel(q11, [bid(5_000, {}), bid(4_000, {})], new ManualClock(0)),
    { name: "RangeError", message: /timestamp order/ },
  );
});

Deno.test("q12 engine and kernel drop the windows still open at the end of input", async () => {
  assert.deepEqual(runKernel(q12, EVENTS, new ManualClock(0)), []);
  for (const parallelism of [1, 2]) {
    assert.deepEqual(await runEngine(q12, CONFIG, parallelism), []);
  }
});

/**
 * Serves its records, and those appended later, from subtask 0, and never
 * finishes: the job stays alive while the test moves the clock.
 */
class HeldOpenSource<T> implements Source<T> {
  readonly name = "held-open";
  readonly #records: T[] = [];
  readonly #timestampOf: (record: T) => number;

  constructor(timestampOf: (record: T) => number) {
    this.#timestampOf = timestampOf;
  }

  append(records: readonly T[]): void {
    this.#records.push(...records);
  }

  createReader(subtaskIndex: number): SourceReader<T> {
    const records = this.#records;
    const timestampOf = this.#timestampOf;
    let position = subtaskIndex === 0 ? 0 : Infinity;
    return {
      partitions: subtaskIndex === 0 ? ["held-open-0"] : [],
      finished: false,
      poll(_now: number, maxRecords: number): SourceBatch<T> | null {
        if (position >= records.length) return null;
        const values = records.slice(position, position + maxRecords);
        position += values.length;
        return { partition: 0, values, timestamps: values.map(timestampOf) };
      },
      nextAvailableAt(now: number): number {
        return position < records.length ? now : Infinity;
      },
      snapshotState: () => ({ position }),
      restoreState(state: unknown): void {
        position = (state as { position: number }).position;
      },
    };
  }
}

/** A clock that reads `times[i]` for its first `counts[i]` reads in turn, then the last time. */
function scriptedClock(counts: number[], times: number[]): Clock {
  let reads = 0;
  return {
    now(): number {
      let limit = 0;
      for (let i = 0; i < counts.length; i++) {
        limit += counts[i];
        if (reads < limit) {
          reads++;
          return times[i];
        }
      }
      reads++;
      return times[times.length - 1];
    },
  };
}

Deno.test("q12 engine fires processing-time windows when the clock reaches their end, as its kernel", () => {
  // A multiple of the kernel's clock reads, so that no read spans both halves.
  const half = 10 * CLOCK_EVERY;
  const first = EVENTS.slice(0, half);
  const second = EVENTS.slice(half);
  const bidsOf = (events: Event[]) => events.filter((e) => e.kind === BID);
  const expectedCounts = (events: Event[], start: number) =>
    [...Map.groupBy(bidsOf(events), (e) => e.bid!.bidder)].map((
      [bidder, bids],
    ): BidderCount => ({
      bidder,
      count: bids.length,
      start,
      end: start + 10_000,
    }));
  const firstWindow = sortedJson(expectedCounts(first, 0));
  const bothWindows = sortedJson([
    ...expectedCounts(first, 0),
    ...expectedCounts(second, 10_000),
  ]);
  assert.ok(firstWindow.length >= 100, `${firstWindow.length} bidders`);

  // The kernel with the clock at 0 for the first half, 10 s for the second
  // and 19.999 s at the end; it reads the clock once per CLOCK_EVERY events.
  const reads = (events: Event[]) => Math.ceil(events.length / CLOCK_EVERY);
  const kernel = runKernel(
    q12,
    EVENTS,
    scriptedClock([reads(first), reads(second)], [0, 10_000, 19_999]),
  );
  assert.deepEqual(sortedJson(kernel), bothWindows);

  for (const parallelism of [1, 2]) {
    const clock = new ManualClock(0);
    const env = new StreamEnvironment({
      jobName: "q12",
      parallelism,
      clock,
      autoWatermarkIntervalMs: 0,
    });
    const source = new HeldOpenSource<Event>(dateTimeOf);
    const sink = new CollectSink<BidderCount>();
    q12.build(env.fromSource(source, steppedOutOfOrderness(250), "nexmark"))
      .sinkTo(sink);
    const runtime = env.createRuntime();
    source.append(first);
    runtime.runUntilIdle();
    clock.set(9_998);
    runtime.runUntilIdle();
    assert.deepEqual(sink.values, [], `before 9 999 ms at ${parallelism}`);
    clock.set(9_999);
    runtime.runUntilIdle();
    assert.deepEqual(
      sortedJson(sink.values),
      firstWindow,
      `first window at ${parallelism}`,
    );
    clock.set(10_000);
    source.append(second);
    runtime.runUntilIdle();
    clock.set(19_999);
    runtime.runUntilIdle();
    assert.deepEqual(
      sortedJson(sink.values),
      bothWindows,
      `both windows at ${parallelism}`,
    );
  }
});
