// A keyed tumbling count job through the whole local runtime (source
// subtask, hash exchange, window subtask, sink) at parallelism 1, against a
// hand-written loop doing the same work on the same input, in one run.
// Throughput in events/s = EVENTS / (time per iteration).

import {
  ManualClock,
  StreamEnvironment,
  TumblingEventTimeWindows,
} from "../src/mod.ts";
import { CollectionSource } from "../src/connectors/mod.ts";
import {
  BOUND_MS,
  countingSink,
  EVENTS,
  events,
  results,
  strategy,
  WATERMARK_EVERY,
  WINDOW_MS,
} from "./_keyed_count.ts";

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
      for (const count of windows.get(starts[fired])!.values()) {
        results.sum += count;
      }
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
  if (results.sum === 42) console.log(results.sum);
});
