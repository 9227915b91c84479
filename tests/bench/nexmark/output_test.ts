import assert from "node:assert/strict";
import { type QueryReport, targets } from "../../../bench/nexmark/output.ts";

const report = (over: Partial<QueryReport>): QueryReport => ({
  query: "q7",
  description: "",
  results: 100,
  kernelResults: 100,
  windows: 100,
  checked: true,
  processingTime: false,
  kernelEventsPerSecond: 3e6,
  engineEventsPerSecond: 2e6,
  engineWithGeneratorEventsPerSecond: 1e6,
  engineToKernel: 2 / 3,
  peakHeapMb: 10,
  checkpoints: null,
  ...over,
});

Deno.test("targets count a windowed query only when it fired 100 windows, and never q12 or a run short of 5 checkpoints", () => {
  assert.deepEqual(targets([report({})]), [
    "met     q7 >= 1 M events/s: 2.00 M/s",
    "met     q7 engine >= 1/3 of kernel: 67%",
  ]);
  assert.deepEqual(targets([report({ windows: 99 })]), [
    "n/a     q7 >= 1 M events/s: 2.00 M/s (99 windows < 100: does not count)",
    "n/a     q7 engine >= 1/3 of kernel: 67% (99 windows < 100: does not count)",
  ]);
  assert.deepEqual(
    targets([report({ query: "q12", windows: 0, processingTime: true })]),
    ["n/a     q12 engine >= 1/3 of kernel: 67% (processing time: does not count)"],
  );
  const checkpoints = {
    events: 1,
    withoutEventsPerSecond: 1,
    withEventsPerSecond: 1,
    ratio: 1,
    count: 4,
    p50Ms: 1,
    p99Ms: 1,
  };
  assert.match(
    targets([report({ query: "q0", windows: null, checkpoints })]).at(-1)!,
    /^n\/a .* \(4 checkpoints < 5: does not count\)$/,
  );
});
