// Windowed aggregation through the WindowOperator against a hand-written
// loop doing the same work on the same input, side by side in one run:
// tumbling count per key and sliding max per key. Each iteration processes
// 100k records with a watermark every 1,000 records and a final watermark.

import {
  type AggregateFunction,
  aggregateWindow,
  SlidingEventTimeWindows,
  TumblingEventTimeWindows,
  type WindowAssigner,
  WindowOperator,
} from "../src/windows/mod.ts";
import { ManualClock } from "../src/time/mod.ts";

type Bid = { key: number; price: number };

const RECORDS = 100_000;
const KEYS = 1_000;
const WATERMARK_EVERY = 1_000;
const OUT_OF_ORDER_MS = 500;

const bids: Bid[] = [];
const timestamps = new Float64Array(RECORDS);
let seed = 11;
function random(): number {
  seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
  return seed / 2_147_483_648;
}
for (let i = 0; i < RECORDS; i++) {
  bids.push({
    key: Math.floor(random() * KEYS),
    price: Math.floor(random() * 1_000),
  });
  // 10 records per millisecond, up to 500 ms out of order.
  timestamps[i] = 1_700_000_000_000 + Math.floor(i / 10) -
    Math.floor(random() * OUT_OF_ORDER_MS);
}
const watermarks = new Float64Array(RECORDS / WATERMARK_EVERY);
for (let b = 0; b < watermarks.length; b++) {
  let max = -Infinity;
  for (let i = 0; i < (b + 1) * WATERMARK_EVERY; i++) {
    max = Math.max(max, timestamps[i]);
  }
  watermarks[b] = max - OUT_OF_ORDER_MS - 1;
}

let sink = 0;

function runOperator<ACC>(
  assigner: WindowAssigner<Bid>,
  aggregate: AggregateFunction<Bid, ACC, number>,
): void {
  const operator = new WindowOperator<Bid, number, ACC, number>({
    assigner,
    keySelector: (bid) => bid.key,
    windowFunction: aggregateWindow(aggregate),
    clock: new ManualClock(),
  }, {
    collect(value) {
      sink += value;
    },
    sideOutput() {},
    emitWatermark() {},
  });
  for (let b = 0; b < watermarks.length; b++) {
    const from = b * WATERMARK_EVERY;
    for (let i = from; i < from + WATERMARK_EVERY; i++) {
      operator.processElement(bids[i], timestamps[i]);
    }
    operator.processWatermark(watermarks[b]);
  }
  operator.processWatermark(Infinity);
}

/**
 * The hand-written kernel: window start -> key -> accumulator, windows kept
 * in start order, fired and dropped when the watermark passes their end.
 * Same semantics as the operator for in-range records (late ones dropped).
 */
function runKernel(
  sizeMs: number,
  slideMs: number,
  add: (acc: number | undefined, price: number) => number,
): void {
  const windows = new Map<number, Map<number, number>>();
  const starts: number[] = [];
  let watermark = -Infinity;
  const fire = (upTo: number) => {
    starts.sort((a, b) => a - b);
    let fired = 0;
    while (fired < starts.length && starts[fired] + sizeMs - 1 <= upTo) {
      for (const value of windows.get(starts[fired])!.values()) sink += value;
      windows.delete(starts[fired]);
      fired++;
    }
    starts.splice(0, fired);
  };
  for (let b = 0; b < watermarks.length; b++) {
    const from = b * WATERMARK_EVERY;
    for (let i = from; i < from + WATERMARK_EVERY; i++) {
      const ts = timestamps[i];
      const bid = bids[i];
      const last = ts - (ts % slideMs);
      for (let start = last; start > ts - sizeMs; start -= slideMs) {
        if (start + sizeMs - 1 <= watermark) continue;
        let perKey = windows.get(start);
        if (perKey === undefined) {
          perKey = new Map();
          windows.set(start, perKey);
          starts.push(start);
        }
        perKey.set(bid.key, add(perKey.get(bid.key), bid.price));
      }
    }
    watermark = watermarks[b];
    fire(watermark);
  }
  fire(Infinity);
}

const count: AggregateFunction<Bid, number, number> = {
  createAccumulator: () => 0,
  add: (_bid, acc) => acc + 1,
  getResult: (acc) => acc,
  merge: (a, b) => a + b,
};
const max: AggregateFunction<Bid, number, number> = {
  createAccumulator: () => -Infinity,
  add: (bid, acc) => (bid.price > acc ? bid.price : acc),
  getResult: (acc) => acc,
  merge: (a, b) => Math.max(a, b),
};

Deno.bench("hand-written loop: tumbling 1 s count per key", {
  group: "tumbling count",
  baseline: true,
}, () => runKernel(1_000, 1_000, (acc) => (acc ?? 0) + 1));

Deno.bench("WindowOperator: tumbling 1 s count per key", {
  group: "tumbling count",
}, () => runOperator(TumblingEventTimeWindows.of(1_000), count));

Deno.bench(
  "hand-written loop: sliding 2 s / 500 ms max per key",
  {
    group: "sliding max",
    baseline: true,
  },
  () =>
    runKernel(
      2_000,
      500,
      (acc, price) => (acc === undefined || price > acc ? price : acc),
    ),
);

Deno.bench("WindowOperator: sliding 2 s / 500 ms max per key", {
  group: "sliding max",
}, () => runOperator(SlidingEventTimeWindows.of(2_000, 500), max));

addEventListener("unload", () => {
  if (sink === 42) console.log(sink);
});
