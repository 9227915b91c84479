import assert from "node:assert/strict";
import { ManualClock } from "../../src/time/clock.ts";
import { GlobalWindows } from "../../src/windows/global.ts";
import { NeverTrigger } from "../../src/windows/never_trigger.ts";
import { TimeWindow } from "../../src/windows/time_window.ts";

const context = { clock: new ManualClock(42) };

Deno.test("GlobalWindows.assignWindows() returns the global window for any record and timestamp", () => {
  const assigner = GlobalWindows.create<string>();
  for (const ts of [-Infinity, -1, 0, 1_700_000_000_000, Infinity]) {
    const windows = assigner.assignWindows("x", ts, context);
    assert.equal(windows.length, 1);
    assert.equal(windows[0], TimeWindow.GLOBAL);
    assert.deepEqual([windows[0].start, windows[0].end], [-Infinity, Infinity]);
  }
});

Deno.test("GlobalWindows.assignWindows() returns a new array each call, so callers may change it", () => {
  const assigner = GlobalWindows.create();
  const first = assigner.assignWindows(null, 0, context);
  first.pop();
  assert.equal(assigner.assignWindows(null, 0, context).length, 1);
});

Deno.test("GlobalWindows is not event time, so lateness does not apply, and never fires by default", () => {
  const assigner = GlobalWindows.create();
  assert.equal(assigner.isEventTime, false);
  assert.equal(assigner.isMerging, false);
  assert.ok(assigner.defaultTrigger() instanceof NeverTrigger);
  assert.equal(TimeWindow.GLOBAL.maxTimestamp(), Infinity);
});
