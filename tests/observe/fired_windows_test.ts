import assert from "node:assert/strict";
import {
  firedWindows,
  sampledRecords,
  timelineMarks,
  windowSizesOf,
} from "../../src/observe/fired_windows.ts";
import type { GaugeSample } from "../../src/observe/job_handle.ts";
import type { JobGraph } from "../../src/runtime/job_graph.ts";
import { clicksHandle, T0 } from "../_support/clicks_handle.ts";

/** A gauge sample at `at` with each subtask's gauges. */
function sample(
  at: number,
  gauges: Record<string, Record<string, number>>,
): GaugeSample {
  return {
    at,
    subtasks: Object.fromEntries(
      Object.entries(gauges).map((
        [id, g],
      ) => [id, { recordsIn: 0, recordsOut: 0, gauges: g }]),
    ),
  };
}

const history = [
  sample(1_000, {
    "w/0": { lastFiredWindowEndMs: -Infinity },
    "w/1": { lastFiredWindowEndMs: -Infinity },
    "s/0": { lastRecordTimestampMs: -Infinity },
  }),
  sample(1_500, {
    "w/0": { lastFiredWindowEndMs: 10_000 },
    "w/1": { lastFiredWindowEndMs: 10_000 },
    "s/0": { lastRecordTimestampMs: 12_000 },
  }),
  sample(2_000, {
    "w/0": { lastFiredWindowEndMs: 10_000 },
    "w/1": { lastFiredWindowEndMs: -Infinity },
    "s/0": { lastRecordTimestampMs: 12_000 },
  }),
  // Windows ending at 20 000 and 30 000 fired in between: only 30 000 is known.
  sample(2_500, {
    "w/0": { lastFiredWindowEndMs: 30_000 },
    "session/0": { lastFiredWindowEndMs: 40_000 },
    "s/0": { lastRecordTimestampMs: 31_000 },
  }),
];

Deno.test("firedWindows draws a window wherever a subtask's lastFiredWindowEndMs rose, once per end, at the later sample", () => {
  const sizes = new Map([["w/0", 10_000], ["w/1", 10_000]]);
  assert.deepEqual(firedWindows(history, sizes), [
    { start: 0, end: 10_000, firedAt: 1_500 },
    { start: 20_000, end: 30_000, firedAt: 2_500 },
  ]);
  // The first sample's value fired before the history began.
  assert.deepEqual(firedWindows(history.slice(1), sizes), [
    { start: 20_000, end: 30_000, firedAt: 2_500 },
  ]);
  assert.deepEqual(firedWindows(history, new Map()), []);
});

Deno.test("sampledRecords gives one point per sample and source subtask whose lastRecordTimestampMs changed", () => {
  assert.deepEqual(sampledRecords(history), [
    { at: 1_500, timestamp: 12_000 },
    { at: 2_500, timestamp: 31_000 },
  ]);
});

Deno.test("windowSizesOf keeps the subtasks of fixed-size window vertices", () => {
  const graph = {
    vertices: [
      { id: "w", windowSizeMs: 10_000 },
      { id: "session" },
      { id: "s" },
    ],
  } as unknown as JobGraph;
  const statuses = [
    { id: "w/0", operator: "w" },
    { id: "session/0", operator: "session" },
    { id: "s/0", operator: "s" },
  ];
  assert.deepEqual(
    [...windowSizesOf(graph, statuses)],
    [["w/0", 10_000]],
  );
});

Deno.test("timelineMarks reads a running job's fired 10 s windows and records", () => {
  const { handle, advance } = clicksHandle();
  for (let t = 0; t <= 25_000; t += 500) {
    advance(t);
    handle.sample();
  }
  const { windows, records } = timelineMarks(handle, 600);
  assert.deepEqual(
    windows.map((w) => [w.start - T0, w.end - T0]),
    [[0, 10_000], [10_000, 20_000]],
  );
  assert.ok(records.length > 0);
  for (const r of records) {
    assert.ok(r.timestamp >= T0 && r.timestamp <= T0 + 25_000);
  }
  assert.deepEqual(
    timelineMarks({ graph: handle.graph, status: () => [] }, 600),
    { windows: [], records: [] },
  );
});
