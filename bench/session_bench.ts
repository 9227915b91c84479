// Event-time sessions through the WindowOperator against a hand-written
// loop on the same input, in one run: per key, sessions that close after a
// 10 s gap, counting records (Nexmark q11's shape). Input: a record every
// 5 ms over 1000 keys, 10 of them hot (a tenth of the records), ascending
// time, a watermark every 1000 records at 4 s behind the newest record: a
// session holds 6 records on average, a hot key's hundreds.
//
//   deno run bench/session_bench.ts [--records N] [--runs R]
//
// prints each arm's rate (best of R, arms alternated), their ratio, the
// sessions each fired and the peak heap in use; the arms' sessions are
// checked equal (count and checksum) in every run. A third arm runs the
// operator with a subclass of EventTimeTrigger, which behaves the same but
// takes the general merging path (as any custom trigger does). `deno bench bench/` runs
// the two arms as a group instead.

import { ManualClock } from "../src/time/mod.ts";
import {
  type AggregateFunction,
  aggregateWindow,
  EventTimeSessionWindows,
  EventTimeTrigger,
  WindowOperator,
} from "../src/windows/mod.ts";

type Bid = { bidder: number };

const GAP_MS = 10_000;
const KEYS = 1_000;
const BATCH = 1_000;
const BOUND_MS = 4_000;
const T0 = 1_436_918_400_000;
const SPACING_MS = 5;

/** The input: records, their timestamps, and a watermark per batch. */
interface Input {
  readonly bids: Bid[];
  readonly timestamps: Float64Array;
}

function makeInput(records: number): Input {
  let seed = 19;
  const random = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed / 2_147_483_648;
  };
  const bids: Bid[] = [];
  const timestamps = new Float64Array(records);
  for (let i = 0; i < records; i++) {
    const bidder = random() < 0.1
      ? Math.floor(random() * 10)
      : Math.floor(random() * KEYS);
    bids.push({ bidder });
    timestamps[i] = T0 + SPACING_MS * i;
  }
  return { bids, timestamps };
}

/** What an arm fired: how many sessions, and a checksum of them. */
interface Fired {
  sessions: number;
  checksum: number;
}

function fold(fired: Fired, key: number, start: number, count: number) {
  fired.sessions++;
  fired.checksum = (fired.checksum * 31 + key * 7 + (start - T0) + count) %
    1_000_000_007;
}

const countBids: AggregateFunction<Bid, number, number> = {
  createAccumulator: () => 0,
  add: (_bid, count) => count + 1,
  getResult: (count) => count,
  merge: (a, b) => a + b,
};

/** EventTimeTrigger under another name: the operator merges in general. */
class CustomTrigger<T> extends EventTimeTrigger<T> {}

function runEngine({ bids, timestamps }: Input, custom = false): Fired {
  const fired: Fired = { sessions: 0, checksum: 0 };
  // Sessions fire in timestamp order, not per key: collected, then folded
  // in the loop's order.
  const sessions: number[] = [];
  const operator = new WindowOperator<Bid, number, number, number>({
    assigner: EventTimeSessionWindows.withGap<Bid>(GAP_MS),
    ...(custom ? { trigger: new CustomTrigger<Bid>() } : {}),
    keySelector: (bid) => bid.bidder,
    windowFunction: aggregateWindow(countBids, (key, context, [n], out) => {
      sessions.push(key, context.window.start, n);
      out(n);
    }),
    clock: new ManualClock(),
  }, {
    collect() {},
    sideOutput() {},
    emitWatermark() {},
  });
  let max = -Infinity;
  for (let from = 0; from < bids.length; from += BATCH) {
    const to = Math.min(from + BATCH, bids.length);
    const times = timestamps.subarray(from, to);
    operator.processBatch(bids.slice(from, to), times);
    for (let i = 0; i < times.length; i++) max = Math.max(max, times[i]);
    operator.processWatermark(max - BOUND_MS - 1);
  }
  operator.processWatermark(Infinity);
  foldSorted(fired, sessions);
  return fired;
}

/**
 * The hand-written loop: per key its open session (start, end, count); a
 * record past the end closes it (ascending input: nothing can reach it).
 */
function runLoop({ bids, timestamps }: Input): Fired {
  const fired: Fired = { sessions: 0, checksum: 0 };
  const sessions: number[] = [];
  const open = new Map<number, { start: number; end: number; count: number }>();
  for (let i = 0; i < bids.length; i++) {
    const key = bids[i].bidder;
    const t = timestamps[i];
    const session = open.get(key);
    if (session === undefined) {
      open.set(key, { start: t, end: t + GAP_MS, count: 1 });
    } else if (t > session.end) {
      sessions.push(key, session.start, session.count);
      session.start = t;
      session.end = t + GAP_MS;
      session.count = 1;
    } else {
      session.end = t + GAP_MS;
      session.count++;
    }
  }
  open.forEach((s, key) => sessions.push(key, s.start, s.count));
  foldSorted(fired, sessions);
  return fired;
}

// Folds (key, start, count) triples in (start, key) order.
function foldSorted(fired: Fired, triples: number[]): void {
  const order: number[] = [];
  for (let i = 0; i < triples.length; i += 3) order.push(i);
  order.sort((a, b) =>
    triples[a + 1] - triples[b + 1] || triples[a] - triples[b]
  );
  for (const i of order) {
    fold(fired, triples[i], triples[i + 1], triples[i + 2]);
  }
}

function flag(name: string, fallback: number): number {
  const at = Deno.args.indexOf(name);
  return at < 0 ? fallback : Number(Deno.args[at + 1]);
}

function main(): void {
  const records = flag("--records", 2_000_000);
  const runs = flag("--runs", 3);
  const input = makeInput(records);
  const rates = { engine: 0, loop: 0, custom: 0 };
  let peakHeap = 0;
  let reference: Fired | null = null;
  // One warm-up round, then `runs` rounds, arms alternated.
  for (let round = 0; round <= runs; round++) {
    for (const arm of ["loop", "engine", "custom"] as const) {
      const start = performance.now();
      const fired = arm === "loop"
        ? runLoop(input)
        : runEngine(input, arm === "custom");
      const ms = performance.now() - start;
      peakHeap = Math.max(peakHeap, Deno.memoryUsage().heapUsed);
      reference ??= fired;
      if (
        fired.sessions !== reference.sessions ||
        fired.checksum !== reference.checksum
      ) {
        console.error(
          `${arm} fired ${fired.sessions} sessions (checksum ${fired.checksum}), the loop ${reference.sessions} (${reference.checksum})`,
        );
        Deno.exit(1);
      }
      if (round > 0) rates[arm] = Math.max(rates[arm], records / ms * 1_000);
    }
  }
  const mps = (rate: number) => `${(rate / 1e6).toFixed(2)} M/s`;
  console.log(
    `sessions: ${records} records, 1000 keys, a record every ${SPACING_MS} ms, gap 10 s; best of ${runs}, arms alternated, sessions checked equal in every run; Deno ${Deno.version.deno}`,
  );
  console.table({
    "hand-written loop": {
      rate: mps(rates.loop),
      sessions: reference!.sessions,
    },
    "WindowOperator": {
      rate: mps(rates.engine),
      sessions: reference!.sessions,
      "of loop": `${(100 * rates.engine / rates.loop).toFixed(1)}%`,
    },
    "WindowOperator, custom trigger": {
      rate: mps(rates.custom),
      sessions: reference!.sessions,
      "of loop": `${(100 * rates.custom / rates.loop).toFixed(1)}%`,
    },
  });
  console.log(`peak heap in use: ${(peakHeap / 1e6).toFixed(0)} MB`);
}

if (import.meta.main) {
  main();
} else {
  const input = makeInput(200_000);
  Deno.bench("hand-written loop: sessions of 10 s per key", {
    group: "sessions",
    baseline: true,
  }, () => {
    runLoop(input);
  });
  Deno.bench("WindowOperator: sessions of 10 s per key", {
    group: "sessions",
  }, () => {
    runEngine(input);
  });
}
