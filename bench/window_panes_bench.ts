// Pane-heavy windows through the WindowOperator against a hand-written loop
// on the same input, side by side in one run (issue 19's table). Record i
// has key i·7919 % 1000 and timestamp t0 + 10·i; the watermark trails the
// largest timestamp by 4 s and follows every batch of 1000 records.
//
//   deno run bench/window_panes_bench.ts [--runs 3] [--row NAME] [--events N]
//     [--arm engine|loop]
//
// The arms run interleaved; each arm's best of the runs is printed with the results it produced, the
// windows fired and the peak RSS sampled after each batch (run one arm per
// process with --arm for a clean RSS comparison).

import {
  type AggregateFunction,
  aggregateWindow,
  SlidingEventTimeWindows,
  TumblingEventTimeWindows,
  type WindowAssigner,
  WindowOperator,
} from "../src/windows/mod.ts";
import { ManualClock } from "../src/time/mod.ts";

const T0 = 1_700_000_000_000;
const KEYS = 1000;
const BATCH = 1000;
const BOUND_MS = 4000;

interface Row {
  name: string;
  description: string;
  sizeMs: number;
  slideMs: number;
  events: number;
  /** Distinct keys (record i has key i·7919 % keys). */
  keys: number;
}

const ROWS: Row[] = [
  {
    name: "tumble-1m",
    description: "keyed 10 s tumbling count, 1 M events",
    sizeMs: 10_000,
    slideMs: 10_000,
    events: 1_000_000,
    keys: KEYS,
  },
  {
    name: "tumble-5m",
    description: "same, 5 M events",
    sizeMs: 10_000,
    slideMs: 10_000,
    events: 5_000_000,
    keys: KEYS,
  },
  {
    name: "slide-2s",
    description: "sliding 10 s / 2 s count (5 panes a record), 1 M events",
    sizeMs: 10_000,
    slideMs: 2_000,
    events: 1_000_000,
    keys: KEYS,
  },
  {
    name: "slide-100ms",
    description:
      "sliding 10 s / 100 ms count (100 panes a record), 100 K events",
    sizeMs: 10_000,
    slideMs: 100,
    events: 100_000,
    keys: KEYS,
  },
  {
    name: "tumble-1000s",
    description:
      "1000 s tumbling count, 1000 keys (panes rarely created), 1 M events",
    sizeMs: 1_000_000,
    slideMs: 1_000_000,
    events: 1_000_000,
    keys: KEYS,
  },
  {
    name: "tumble-1key",
    description: "10 s tumbling count, one key (as Nexmark q7), 1 M events",
    sizeMs: 10_000,
    slideMs: 10_000,
    events: 1_000_000,
    keys: 1,
  },
];

let keys = KEYS;
const key = (i: number): number => (i * 7919) % keys;
const time = (i: number): number => T0 + 10 * i;

interface Outcome {
  results: number;
  windows: number;
  checksum: number;
  peakRss: number;
}

const count: AggregateFunction<number, number, number> = {
  createAccumulator: () => 0,
  add: (_i, n) => n + 1,
  getResult: (n) => n,
  merge: (a, b) => a + b,
};

function runEngine(row: Row, events: number): Outcome {
  const assigner: WindowAssigner<number> = row.sizeMs === row.slideMs
    ? TumblingEventTimeWindows.of(row.sizeMs)
    : SlidingEventTimeWindows.of(row.sizeMs, row.slideMs);
  const out: Outcome = { results: 0, windows: 0, checksum: 0, peakRss: 0 };
  let lastTimestamp = NaN;
  const operator = new WindowOperator<number, number, number, number>({
    assigner,
    keySelector: key,
    windowFunction: aggregateWindow(count),
    clock: new ManualClock(),
  }, {
    collect(value, timestamp) {
      out.results++;
      out.checksum += value;
      if (timestamp !== lastTimestamp) {
        out.windows++;
        lastTimestamp = timestamp;
      }
    },
    sideOutput() {},
    emitWatermark() {},
  });
  const values: number[] = new Array(BATCH);
  const timestamps = new Float64Array(BATCH);
  for (let from = 0; from < events; from += BATCH) {
    const n = Math.min(BATCH, events - from);
    values.length = n;
    for (let j = 0; j < n; j++) {
      values[j] = from + j;
      timestamps[j] = time(from + j);
    }
    operator.processBatch(values, timestamps.subarray(0, n));
    operator.processWatermark(time(from + n - 1) - BOUND_MS - 1);
    if ((from / BATCH) % 100 === 0) sampleRss(out);
  }
  operator.processWatermark(Infinity);
  sampleRss(out);
  return out;
}

// The loop: window start -> key -> count, windows in start order, each
// fired and dropped once the watermark reaches its last timestamp; a
// record for a fired window is dropped as late, as in the engine.
function runLoop(row: Row, events: number): Outcome {
  const { sizeMs, slideMs } = row;
  const out: Outcome = { results: 0, windows: 0, checksum: 0, peakRss: 0 };
  const windows = new Map<number, Map<number, number>>();
  const starts: number[] = [];
  let watermark = -Infinity;
  const fire = (upTo: number) => {
    let fired = 0;
    while (fired < starts.length && starts[fired] + sizeMs - 1 <= upTo) {
      const counts = windows.get(starts[fired])!;
      for (const n of counts.values()) {
        out.results++;
        out.checksum += n;
      }
      out.windows++;
      windows.delete(starts[fired]);
      fired++;
    }
    if (fired > 0) starts.splice(0, fired);
  };
  for (let from = 0; from < events; from += BATCH) {
    const n = Math.min(BATCH, events - from);
    for (let i = from; i < from + n; i++) {
      const ts = time(i);
      const k = key(i);
      const last = ts - (ts % slideMs);
      for (let start = last; start > ts - sizeMs; start -= slideMs) {
        if (start + sizeMs - 1 <= watermark) continue;
        let counts = windows.get(start);
        if (counts === undefined) {
          counts = new Map();
          windows.set(start, counts);
          let at = starts.length;
          while (at > 0 && starts[at - 1] > start) at--;
          starts.splice(at, 0, start);
        }
        counts.set(k, (counts.get(k) ?? 0) + 1);
      }
    }
    watermark = time(from + n - 1) - BOUND_MS - 1;
    fire(watermark);
    if ((from / BATCH) % 100 === 0) sampleRss(out);
  }
  fire(Infinity);
  sampleRss(out);
  return out;
}

function sampleRss(out: Outcome): void {
  const rss = Deno.memoryUsage().rss;
  if (rss > out.peakRss) out.peakRss = rss;
}

function flag(name: string): string | undefined {
  const at = Deno.args.indexOf(`--${name}`);
  return at < 0 ? undefined : Deno.args[at + 1];
}

const runs = Number(flag("runs") ?? 3);
const only = flag("row");
const arm = flag("arm");
const eventsFlag = flag("events");

type Arm = (row: Row, events: number) => Outcome;

// The arms run interleaved (A B A B ...), so a change in the machine's load
// hits both; each keeps its best rate.
function interleaved(
  arms: (Arm | null)[],
  row: Row,
  events: number,
): ((Outcome & { rate: number }) | null)[] {
  const best = arms.map((arm) =>
    arm === null ? null : { ...emptyOutcome(), rate: 0 }
  );
  for (let r = 0; r < runs; r++) {
    arms.forEach((arm, i) => {
      if (arm === null) return;
      const start = performance.now();
      const outcome = arm(row, events);
      const rate = events / ((performance.now() - start) / 1000);
      best[i] = { ...outcome, rate: Math.max(rate, best[i]!.rate) };
    });
  }
  return best;
}

function emptyOutcome(): Outcome {
  return { results: 0, windows: 0, checksum: 0, peakRss: 0 };
}

const table: Record<string, Record<string, string>> = {};
const mps = (rate: number) =>
  rate >= 1e6
    ? `${(rate / 1e6).toFixed(2)} M/s`
    : `${(rate / 1e3).toFixed(0)} K/s`;
const mb = (bytes: number) => `${Math.round(bytes / 1e6)} MB`;
for (const row of ROWS) {
  if (only !== undefined && row.name !== only) continue;
  const events = eventsFlag === undefined ? row.events : Number(eventsFlag);
  keys = row.keys;
  const [loop, engine] = interleaved(
    [
      arm === "engine" ? null : runLoop,
      arm === "loop" ? null : runEngine,
    ],
    row,
    events,
  );
  if (
    loop !== null && engine !== null &&
    (loop.results !== engine.results || loop.checksum !== engine.checksum ||
      loop.windows !== engine.windows)
  ) {
    console.error(`${row.name}: engine results differ from the loop's`);
    Deno.exit(1);
  }
  const some = (engine ?? loop)!;
  table[row.name] = {
    loop: loop === null ? "-" : mps(loop.rate),
    engine: engine === null ? "-" : mps(engine.rate),
    "engine/loop": loop === null || engine === null
      ? "-"
      : `${Math.round((100 * engine.rate) / loop.rate)}%`,
    results: String(some.results),
    windows: String(some.windows),
    "loop RSS": loop === null ? "-" : mb(loop.peakRss),
    "engine RSS": engine === null ? "-" : mb(engine.peakRss),
  };
}
console.table(table);
