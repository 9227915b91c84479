import assert from "node:assert/strict";
import { mergeWindows, TimeWindow } from "../../src/windows/time_window.ts";

type Span = [number, number];

function span(window: TimeWindow): Span {
  return [window.start, window.end];
}

function windows(...spans: Span[]): TimeWindow[] {
  return spans.map(([start, end]) => new TimeWindow(start, end));
}

/** Runs mergeWindows and records each call as plain pairs. */
function merges(input: TimeWindow[]): { merged: Span[]; result: Span }[] {
  const calls: { merged: Span[]; result: Span }[] = [];
  mergeWindows(input, (merged, result) => {
    calls.push({ merged: merged.map(span), result: span(result) });
  });
  return calls;
}

function bySpan(a: Span, b: Span): number {
  return a[0] - b[0] || a[1] - b[1];
}

const START_VECTORS: [
  offset: number,
  size: number,
  ts: number,
  start: number,
][] = [
  [0, 7, -8, -14],
  [0, 7, -7, -7],
  [0, 7, -6, -7],
  [0, 7, -1, -7],
  [0, 7, 1, 0],
  [0, 7, 6, 0],
  [0, 7, 7, 7],
  [0, 7, 8, 7],
  [3, 7, -10, -11],
  [3, 7, -9, -11],
  [3, 7, -3, -4],
  [3, 7, -2, -4],
  [3, 7, -1, -4],
  [3, 7, 1, -4],
  [3, 7, 2, -4],
  [3, 7, 3, 3],
  [3, 7, 9, 3],
  [3, 7, 10, 10],
  [-2, 7, -12, -16],
  [-2, 7, -7, -9],
  [-2, 7, -4, -9],
  [-2, 7, -3, -9],
  [-2, 7, 2, -2],
  [-2, 7, -1, -2],
  [-2, 7, 1, -2],
  [-2, 7, -2, -2],
  [-2, 7, 3, -2],
  [-2, 7, 4, -2],
  [-2, 7, 7, 5],
  [-2, 7, 12, 12],
];

Deno.test("TimeWindow.getWindowStartWithOffset() floors timestamps of any sign onto the shifted grid", () => {
  for (const [offset, size, ts, start] of START_VECTORS) {
    assert.equal(
      TimeWindow.getWindowStartWithOffset(ts, offset, size),
      start,
      `offset ${offset}, size ${size}, ts ${ts}`,
    );
  }
});

Deno.test("TimeWindow.getWindowStartWithOffset() starts GMT+8 days at local midnight", () => {
  assert.equal(
    TimeWindow.getWindowStartWithOffset(1470902048450, -28800000, 86400000),
    1470844800000,
  );
});

Deno.test("TimeWindow.intersects() counts touching windows as intersecting", () => {
  const window = new TimeWindow(10, 20);
  assert.equal(window.intersects(new TimeWindow(10, 20)), true);
  assert.equal(window.intersects(new TimeWindow(20, 30)), true);
  assert.equal(window.intersects(new TimeWindow(21, 30)), false);
  assert.equal(window.intersects(new TimeWindow(19, 22)), true);
  assert.equal(new TimeWindow(21, 30).intersects(window), false);
});

Deno.test("TimeWindow.cover() spans the lowest start to the highest end", () => {
  assert.deepEqual(span(new TimeWindow(10, 20).cover(new TimeWindow(15, 30))), [
    10,
    30,
  ]);
  assert.deepEqual(span(new TimeWindow(25, 30).cover(new TimeWindow(0, 5))), [
    0,
    30,
  ]);
  assert.deepEqual(span(new TimeWindow(0, 100).cover(new TimeWindow(10, 20))), [
    0,
    100,
  ]);
});

Deno.test("TimeWindow.equals() compares start and end only", () => {
  assert.equal(new TimeWindow(10, 20).equals(new TimeWindow(10, 20)), true);
  assert.equal(new TimeWindow(10, 20).equals(new TimeWindow(10, 21)), false);
  assert.equal(new TimeWindow(10, 20).equals(new TimeWindow(11, 20)), false);
  assert.equal(
    TimeWindow.GLOBAL.equals(new TimeWindow(-Infinity, Infinity)),
    true,
  );
});

Deno.test("TimeWindow.maxTimestamp() is the last millisecond inside the window", () => {
  assert.equal(new TimeWindow(0, 5000).maxTimestamp(), 4999);
  assert.equal(new TimeWindow(-100, 4900).maxTimestamp(), 4899);
  assert.equal(TimeWindow.GLOBAL.maxTimestamp(), Infinity);
});

Deno.test("mergeWindows() makes no call for a single window (session merge vector)", () => {
  assert.deepEqual(merges(windows([0, 0])), []);
  assert.deepEqual(merges(windows([0, 1])), []);
});

Deno.test("mergeWindows() merges each chain of touching windows in exactly one call (session merge vector)", () => {
  const calls = merges(windows([0, 1], [1, 2], [2, 3], [4, 5], [5, 6]));
  assert.deepEqual(calls, [
    { merged: [[0, 1], [1, 2], [2, 3]], result: [0, 3] },
    { merged: [[4, 5], [5, 6]], result: [4, 6] },
  ]);
});

Deno.test("mergeWindows() merges windows nested in others, whatever the input order (session merge vector)", () => {
  const calls = merges(windows([1, 1], [0, 2], [4, 7], [5, 6]));
  assert.equal(calls.length, 2);
  // Flink compares each group as a set: order inside a group is not part of the contract.
  assert.deepEqual(calls[0].merged.toSorted(bySpan), [[0, 2], [1, 1]]);
  assert.deepEqual(calls[0].result, [0, 2]);
  assert.deepEqual(calls[1].merged.toSorted(bySpan), [[4, 7], [5, 6]]);
  assert.deepEqual(calls[1].result, [4, 7]);
});

Deno.test("mergeWindows() leaves its input array unchanged", () => {
  const input = windows([5, 6], [0, 1], [1, 2]);
  merges(input);
  assert.deepEqual(input.map(span), [[5, 6], [0, 1], [1, 2]]);
});
