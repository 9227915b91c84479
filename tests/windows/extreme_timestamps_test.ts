// No record can kill a job: every safe integer is a valid
// timestamp, so window bounds, cleanup times and timers computed from one
// must stay usable. Windows clip to the safe range: an end past
// MAX_SAFE_INTEGER becomes MAX_SAFE_INTEGER + 1 (so maxTimestamp() is
// MAX_SAFE_INTEGER and still holds the record), and a start before
// MIN_SAFE_INTEGER becomes MIN_SAFE_INTEGER.

import assert from "node:assert/strict";
import { ManualClock } from "../../src/time/clock.ts";
import { EarlyFiringTrigger } from "../../src/windows/early_firing_trigger.ts";
import { OutputTag } from "../../src/windows/output_tag.ts";
import { EventTimeSessionWindows } from "../../src/windows/session.ts";
import { SlidingEventTimeWindows } from "../../src/windows/sliding.ts";
import { TimeWindow } from "../../src/windows/time_window.ts";
import { TimerService } from "../../src/windows/timer_service.ts";
import { TumblingEventTimeWindows } from "../../src/windows/tumbling.ts";
import { TumblingProcessingTimeWindows } from "../../src/windows/tumbling_processing_time.ts";
import type { WindowAssigner } from "../../src/windows/window_assigner.ts";
import {
  type KV,
  sessionSumHarness,
  sumHarness,
} from "../_support/window_harness.ts";

const MAX = Number.MAX_SAFE_INTEGER; // 9007199254740991
const MIN = Number.MIN_SAFE_INTEGER; // -9007199254740991
const END = 2 ** 53; // MAX + 1: the end a window saturates to
const context = { clock: new ManualClock() };

function spans(assigner: WindowAssigner<null>, ts: number): number[][] {
  return assigner.assignWindows(null, ts, context).map((w) => [
    w.start,
    w.end,
  ]);
}

Deno.test("TimeWindow.getWindowStartWithOffset() is exact where timestamp - offset leaves the safe range", () => {
  // MAX + 998 is not representable: the grid is ...002 mod 1000.
  assert.equal(
    TimeWindow.getWindowStartWithOffset(MAX, -998, 1_000),
    9_007_199_254_740_002,
  );
  // MIN - 7 is not representable either: the grid is 997 mod 1000.
  assert.equal(
    TimeWindow.getWindowStartWithOffset(MIN + 990, 997, 1_000),
    MIN + 988,
  );
  assert.equal(TimeWindow.getWindowStartWithOffset(MAX, 0, MAX), MAX);
  assert.equal(TimeWindow.getWindowStartWithOffset(MAX - 1, 0, MAX), 0);
  assert.equal(TimeWindow.getWindowStartWithOffset(MIN, 0, MAX), MIN);
});

Deno.test("TimeWindow.getWindowStartWithOffset() saturates a start before MIN_SAFE_INTEGER to MIN_SAFE_INTEGER", () => {
  // The exact start, -9007199254741000, is not a safe integer.
  assert.equal(TimeWindow.getWindowStartWithOffset(MIN, 0, 1_000), MIN);
  assert.equal(TimeWindow.getWindowStartWithOffset(MIN + 9, 0, 1_000), MIN);
  assert.equal(
    TimeWindow.getWindowStartWithOffset(MIN + 9, 0, 10),
    MIN + 1,
  );
});

Deno.test("TumblingEventTimeWindows.assignWindows() clips windows at both ends of the safe range, keeping the record inside", () => {
  const assigner = TumblingEventTimeWindows.of<null>(1_000);
  assert.deepEqual(spans(assigner, MAX), [[9_007_199_254_740_000, END]]);
  assert.deepEqual(spans(assigner, MAX - 5), [[9_007_199_254_740_000, END]]);
  assert.equal(
    assigner.assignWindows(null, MAX, context)[0].maxTimestamp(),
    MAX,
  );
  assert.deepEqual(spans(assigner, MIN), [[MIN, MIN + 991]]);
  assert.deepEqual(spans(assigner, MIN + 990), [[MIN, MIN + 991]]);
  assert.deepEqual(spans(assigner, MIN + 991), [[MIN + 991, MIN + 1_991]]);
  const huge = TumblingEventTimeWindows.of<null>(MAX, -(MAX - 1));
  assert.deepEqual(spans(huge, MAX), [[1, END]]);
  assert.deepEqual(spans(huge, MIN), [[MIN, MIN + 1]]);
});

Deno.test("SlidingEventTimeWindows.assignWindows() clips windows at both ends of the safe range, keeping them distinct", () => {
  const assigner = SlidingEventTimeWindows.of<null>(1_000, 500);
  assert.deepEqual(spans(assigner, MAX), [
    [9_007_199_254_740_500, END],
    [9_007_199_254_740_000, END],
  ]);
  assert.deepEqual(spans(assigner, MIN), [[MIN, MIN + 991], [MIN, MIN + 491]]);
  assert.deepEqual(spans(assigner, MIN + 600), [
    [MIN + 491, MIN + 1_491],
    [MIN, MIN + 991],
  ]);
  const odd = SlidingEventTimeWindows.of<null>(1_000, 300, 7);
  for (const ts of [MAX, MAX - 1, MIN, MIN + 1]) {
    const windows = odd.assignWindows(null, ts, context);
    assert.ok(windows.length >= 3, `${ts}: ${windows}`);
    for (const w of windows) {
      assert.ok(w.start <= ts && ts <= w.maxTimestamp(), `${ts} in ${w}`);
      assert.ok(Number.isSafeInteger(w.start) && w.end <= END, `${w}`);
    }
  }
});

Deno.test("EventTimeSessionWindows.assignWindows() clips the session end to MAX_SAFE_INTEGER + 1", () => {
  const assigner = EventTimeSessionWindows.withGap<null>(1_000);
  assert.deepEqual(spans(assigner, MAX), [[MAX, END]]);
  assert.deepEqual(spans(assigner, MAX - 5), [[MAX - 5, END]]);
  assert.deepEqual(spans(assigner, MIN), [[MIN, MIN + 1_000]]);
  const dynamic = EventTimeSessionWindows.withDynamicGap<null>(() => MAX);
  assert.deepEqual(spans(dynamic, MAX - 1), [[MAX - 1, END]]);
});

Deno.test("TumblingProcessingTimeWindows.assignWindows() clips the window end at the end of the safe range", () => {
  const assigner = TumblingProcessingTimeWindows.of<null>(1_000);
  const clock = new ManualClock(MAX);
  const [window] = assigner.assignWindows(null, -Infinity, { clock });
  assert.deepEqual([window.start, window.end], [9_007_199_254_740_000, END]);
});

Deno.test("WindowOperator fires tumbling windows at MAX_SAFE_INTEGER and MIN_SAFE_INTEGER", () => {
  const h = sumHarness(TumblingEventTimeWindows.of(1_000));
  h.element("a", 1, MAX).element("a", 2, MAX - 5).element("b", 4, MIN);
  assert.deepEqual(h.watermark(MIN + 989).take(), []);
  assert.deepEqual(h.watermark(MIN + 990).take(), [`(b,4)@${MIN + 990}`]);
  assert.deepEqual(h.watermark(MAX - 1).take(), []);
  assert.deepEqual(h.watermark(MAX).take(), [`(a,3)@${MAX}`]);
  assert.equal(h.operator.numWindows, 0);
  h.element("a", 8, MAX - 2);
  assert.deepEqual(h.watermark(Infinity).take(), []);
  assert.equal(h.operator.numLateRecordsDropped, 1);
});

Deno.test("WindowOperator fires on the final watermark a window that ends past MAX_SAFE_INTEGER", () => {
  const h = sumHarness(TumblingEventTimeWindows.of(60_000));
  h.element("a", 1, MAX - 5).element("a", 2, MAX);
  assert.deepEqual(h.watermark(MAX - 6).take(), []);
  assert.deepEqual(h.snapshotAndRestore().watermark(Infinity).take(), [
    `(a,3)@${MAX}`,
  ]);
});

Deno.test("WindowOperator keeps sliding windows clipped to the same start apart", () => {
  const h = sumHarness(SlidingEventTimeWindows.of(1_000, 500));
  h.element("a", 1, MIN).element("a", 10, MIN + 600);
  assert.equal(h.operator.numWindows, 3);
  h.snapshotAndRestore();
  assert.deepEqual(h.watermark(MIN + 990).take(), [
    `(a,1)@${MIN + 490}`,
    `(a,11)@${MIN + 990}`,
  ]);
  assert.deepEqual(h.watermark(Infinity).take(), [`(a,10)@${MIN + 1_490}`]);
  const top = sumHarness(SlidingEventTimeWindows.of(1_000, 500));
  top.element("a", 1, MAX).element("a", 10, MAX - 600);
  assert.deepEqual(top.watermark(Infinity).take(), [
    `(a,10)@${MAX - 492}`,
    `(a,1)@${MAX}`,
    `(a,11)@${MAX}`,
  ]);
});

Deno.test("WindowOperator with allowed lateness past MAX_SAFE_INTEGER fires on time and for late records", () => {
  const late = new OutputTag<KV>("late");
  const h = sumHarness(TumblingEventTimeWindows.of(1_000), {
    allowedLatenessMs: 5_000,
    lateDataTag: late,
  });
  h.element("a", 1, MAX);
  assert.deepEqual(h.watermark(MAX).take(), [`(a,1)@${MAX}`]);
  assert.deepEqual(h.element("a", 2, MAX - 3).take(), [`(a,3)@${MAX}`]);
  // The cleanup time saturates to Infinity: as Flink sets no cleanup timer
  // for Long.MAX_VALUE, the window is kept to the end of input.
  assert.deepEqual(h.watermark(Infinity).take(), []);
  assert.equal(h.operator.numWindows, 1);
  // At the other end: cleanup at MIN + 990 + 5000, then the record is late.
  const low = sumHarness(TumblingEventTimeWindows.of(1_000), {
    allowedLatenessMs: 5_000,
    lateDataTag: late,
  });
  low.element("b", 4, MIN + 5).watermark(MIN + 10_000);
  assert.deepEqual(low.take(), [`(b,4)@${MIN + 990}`]);
  assert.equal(low.operator.numWindows, 0);
  low.element("b", 8, MIN + 6);
  assert.deepEqual(low.take(), [`late b:8@${MIN + 6}`]);
});

Deno.test("WindowOperator merges sessions that end past MAX_SAFE_INTEGER", () => {
  const h = sessionSumHarness(EventTimeSessionWindows.withGap(1_000), {
    allowedLatenessMs: 100,
  });
  h.element("a", 1, MAX - 5).element("a", 2, MAX).element("a", 4, MAX - 900);
  assert.equal(h.operator.numWindows, 1);
  assert.deepEqual(h.watermark(MAX).take(), [
    `(a-7,${MAX - 900},${END})@${MAX}`,
  ]);
  assert.deepEqual(h.watermark(Infinity).take(), []);
});

Deno.test("EarlyFiringTrigger schedules no early firing past MAX_SAFE_INTEGER, and none on the final watermark", () => {
  const h = sumHarness(TumblingEventTimeWindows.of(60_000), {
    trigger: EarlyFiringTrigger.every<KV>(10_000),
  });
  h.element("a", 1, MAX - 5);
  // The on-time timer only: the next early firing would be past the end.
  assert.equal(h.operator.numTimers, 1);
  // An early firing at 10 000 is still pending at the final watermark.
  h.element("a", 2, 1_000);
  assert.deepEqual(h.watermark(Infinity).take(), [
    "(a,2)@59999",
    "(a,2)@59999",
    `(a,1)@${MAX}`,
  ]);
  assert.equal(h.operator.numTimers, 0);
});

Deno.test("TimerService registers and fires timers at both ends of the safe range", () => {
  const timers = new TimerService();
  timers.registerEventTimeTimer(1, MAX);
  timers.registerEventTimeTimer(2, MIN);
  timers.registerProcessingTimeTimer(3, MAX);
  const fired: number[][] = [];
  timers.advanceWatermark(MIN, (id, ts) => fired.push([id, ts]));
  timers.advanceWatermark(MAX - 1, (id, ts) => fired.push([id, ts]));
  timers.advanceWatermark(MAX, (id, ts) => fired.push([id, ts]));
  timers.advanceProcessingTime(MAX, (id, ts) => fired.push([id, ts]));
  assert.deepEqual(fired, [[2, MIN], [1, MAX], [3, MAX]]);
});
