// Micro-benchmarks of the generators' per-record path. Each group has a
// hand-written baseline doing the same work inline, so `deno bench` reports
// the engine as a ratio measured in the same run.

import {
  AdaptiveOutOfOrdernessWatermarks,
  BoundedOutOfOrdernessWatermarks,
  ManualClock,
  WatermarksWithIdleness,
} from "../src/mod.ts";
import type { WatermarkOutput } from "../src/mod.ts";

const BATCH = 10_000;
// Mostly ascending timestamps with 1 in 8 records up to 2 s late.
const timestamps = new Float64Array(BATCH);
let seed = 7;
for (let i = 0; i < BATCH; i++) {
  seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
  timestamps[i] = 1_700_000_000_000 + i * 10 - (i % 8 === 0 ? seed % 2_000 : 0);
}
const output: WatermarkOutput = {
  emitWatermark() {},
  markIdle() {},
  markActive() {},
};
let sink = 0;

Deno.bench("hand-written max of 10k timestamps", {
  group: "onEvent x 10k",
  baseline: true,
}, () => {
  let max = -Infinity;
  for (let i = 0; i < BATCH; i++) if (timestamps[i] > max) max = timestamps[i];
  sink += max;
});

const bounded = new BoundedOutOfOrdernessWatermarks<null>(5_000);
Deno.bench("BoundedOutOfOrdernessWatermarks.onEvent", {
  group: "onEvent x 10k",
}, () => {
  for (let i = 0; i < BATCH; i++) bounded.onEvent(null, timestamps[i], output);
  sink += bounded.currentWatermark;
});

const withIdleness = new WatermarksWithIdleness(
  new BoundedOutOfOrdernessWatermarks<null>(5_000),
  60_000,
  new ManualClock(1),
);
Deno.bench("WatermarksWithIdleness(bounded).onEvent", {
  group: "onEvent x 10k",
}, () => {
  for (let i = 0; i < BATCH; i++) {
    withIdleness.onEvent(null, timestamps[i], output);
  }
});

const adaptive = new AdaptiveOutOfOrdernessWatermarks<null>();
Deno.bench("AdaptiveOutOfOrdernessWatermarks.onEvent", {
  group: "onEvent x 10k",
}, () => {
  for (let i = 0; i < BATCH; i++) adaptive.onEvent(null, timestamps[i], output);
  sink += adaptive.currentBudgetMs;
});

addEventListener("unload", () => {
  if (sink === 42) console.log(sink); // keeps `sink` alive for the optimiser
});
