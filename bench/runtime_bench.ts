// A keyed tumbling count job through the whole local runtime (source
// subtask, hash exchange, window subtask, sink) at parallelism 1, against a
// hand-written loop doing the same work on the same input, in one run.
// Throughput in events/s = EVENTS / (time per iteration).

import {
  ManualClock,
  type Sink,
  StreamEnvironment,
  TumblingEventTimeWindows,
  WatermarkStrategy,
} from "../src/mod.ts";
import { CollectionSource } from "../src/connectors/mod.ts";

type Event = { key: number; ts: number };

const EVENTS = 1_000_000;
const KEYS = 1_000;
const WINDOW_MS = 1_000;
const BOUND_MS = 500;
const WATERMARK_EVERY = 1_000;

const events: Event[] = [];
let seed = 5;
for (let i = 0; i < EVENTS; i++) {
  seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
  // 10 events per millisecond of event time, up to 500 ms out of order.
  events.push({
    key: seed % KEYS,
    ts: 1_700_000_000_000 + Math.floor(i / 10) - (seed % BOUND_MS),
  });
}

let sink = 0;

/** Emits `max - bound - 1` every WATERMARK_EVERY events, like a punctuated source. */
function strategy(): WatermarkStrategy<Event> {
  return WatermarkStrategy.forGenerator<Event>(() => {
    let max = -Infinity;
    let n = 0;
    return {
      onEvent(_event, ts, output) {
        if (ts > max) max = ts;
        if (++n % WATERMARK_EVERY === 0) {
          output.emitWatermark(max - BOUND_MS - 1);
        }
      },
      onPeriodicEmit() {},
    };
  }).withTimestampAssigner((e) => e.ts);
}

const countingSink: Sink<number> = {
  name: "count",
  createWriter() {
    return {
      write(values) {
        for (const v of values) sink += v;
      },
    };
  },
};

async function runEngine(): Promise<void> {
  const env = new StreamEnvironment({
    jobName: "bench",
    clock: new ManualClock(),
    autoWatermarkIntervalMs: 0,
  });
  env.fromSource(new CollectionSource(events), strategy(), "events")
    .keyBy((e) => e.key)
    .window(TumblingEventTimeWindows.of(WINDOW_MS))
    .aggregate({
      createAccumulator: () => 0,
      add: (_e, n) => n + 1,
      getResult: (n) => n,
      merge: (a, b) => a + b,
    })
    .sinkTo(countingSink);
  await env.execute();
}

function runKernel(): void {
  const windows = new Map<number, Map<number, number>>();
  const starts: number[] = [];
  let watermark = -Infinity;
  let max = -Infinity;
  const fire = (upTo: number) => {
    starts.sort((a, b) => a - b);
    let fired = 0;
    while (fired < starts.length && starts[fired] + WINDOW_MS - 1 <= upTo) {
      for (const count of windows.get(starts[fired])!.values()) sink += count;
      windows.delete(starts[fired]);
      fired++;
    }
    starts.splice(0, fired);
  };
  for (let i = 0; i < EVENTS; i++) {
    const { key, ts } = events[i];
    if (ts > max) max = ts;
    const start = ts - (ts % WINDOW_MS);
    if (start + WINDOW_MS - 1 > watermark) {
      let perKey = windows.get(start);
      if (perKey === undefined) {
        perKey = new Map();
        windows.set(start, perKey);
        starts.push(start);
      }
      perKey.set(key, (perKey.get(key) ?? 0) + 1);
    }
    if ((i + 1) % WATERMARK_EVERY === 0) {
      watermark = max - BOUND_MS - 1;
      fire(watermark);
    }
  }
  fire(Infinity);
}

Deno.bench("hand-written loop: keyed tumbling count, 1M events", {
  group: "keyed tumbling count job",
  baseline: true,
}, () => runKernel());

Deno.bench(
  "weir local runtime, parallelism 1: keyed tumbling count, 1M events",
  {
    group: "keyed tumbling count job",
  },
  async () => await runEngine(),
);

addEventListener("unload", () => {
  if (sink === 42) console.log(sink);
});
