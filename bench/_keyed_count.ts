// The input and the pieces of the keyed tumbling count job shared by
// runtime_bench.ts and checkpoint_bench.ts.

import { type Sink, WatermarkStrategy } from "../src/mod.ts";

/** One input event. */
export type Event = { key: number; ts: number };

/** Events per run. */
export const EVENTS = 1_000_000;
/** Distinct keys. */
export const KEYS = 1_000;
/** Tumbling window size. */
export const WINDOW_MS = 1_000;
/** How far out of order events are. */
export const BOUND_MS = 500;
/** Events between two watermarks. */
export const WATERMARK_EVERY = 1_000;

/** 10 events per millisecond of event time, up to 500 ms out of order, seeded. */
export const events: Event[] = [];
let seed = 5;
for (let i = 0; i < EVENTS; i++) {
  seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
  events.push({
    key: seed % KEYS,
    ts: 1_700_000_000_000 + Math.floor(i / 10) - (seed % BOUND_MS),
  });
}

/** Results go here, so the optimiser cannot drop the work. */
export const results = { sum: 0 };

/** Emits `max - bound - 1` every WATERMARK_EVERY events, like a punctuated source. */
export function strategy(): WatermarkStrategy<Event> {
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

/** A sink adding every count to `results.sum`. */
export const countingSink: Sink<number> = {
  name: "count",
  createWriter() {
    return {
      write(values) {
        for (const v of values) results.sum += v;
      },
    };
  },
};
