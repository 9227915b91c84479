import assert from "node:assert/strict";
import { EventTimeTrigger } from "../../src/windows/event_time_trigger.ts";
import { TimeWindow } from "../../src/windows/time_window.ts";
import { RecordingTriggerContext } from "../_support/recording_trigger_context.ts";

// One context per window, as the operator keeps timers per (key, window).
function contexts(): Map<string, RecordingTriggerContext> {
  return new Map();
}
function ctxOf(
  map: Map<string, RecordingTriggerContext>,
  w: TimeWindow,
  watermark = -Infinity,
) {
  let ctx = map.get(String(w));
  if (!ctx) {
    ctx = new RecordingTriggerContext();
    map.set(String(w), ctx);
  }
  ctx.currentWatermark = watermark;
  return ctx;
}
function timerCount(map: Map<string, RecordingTriggerContext>): number {
  let n = 0;
  for (const ctx of map.values()) n += ctx.timers.size;
  return n;
}

const w02 = new TimeWindow(0, 2);
const w24 = new TimeWindow(2, 4);

Deno.test("EventTimeTrigger continues on elements and registers one timer per window", () => {
  const trigger = EventTimeTrigger.create<number>();
  const map = contexts();
  for (let i = 0; i < 3; i++) {
    assert.equal(trigger.onElement(1, 0, w02, ctxOf(map, w02)), "continue");
  }
  for (let i = 0; i < 2; i++) {
    assert.equal(trigger.onElement(1, 2, w24, ctxOf(map, w24)), "continue");
  }
  assert.equal(timerCount(map), 2);
  assert.deepEqual([...ctxOf(map, w02).timers], ["e:1"]);
});

Deno.test("EventTimeTrigger fires only on the timer at maxTimestamp", () => {
  const trigger = EventTimeTrigger.create<number>();
  const ctx = new RecordingTriggerContext();
  assert.equal(trigger.onEventTime(1, w02, ctx), "fire");
  assert.equal(trigger.onEventTime(2, w02, ctx), "continue");
  assert.equal(trigger.onProcessingTime(1, w02, ctx), "continue");
});

Deno.test("EventTimeTrigger fires at once for an element of a window the watermark passed, registering no timer", () => {
  const trigger = EventTimeTrigger.create<number>();
  const ctx = new RecordingTriggerContext();
  ctx.currentWatermark = 2;
  assert.equal(trigger.onElement(1, 0, w02, ctx), "fire");
  assert.equal(ctx.timers.size, 0);
});

Deno.test("EventTimeTrigger.clear() deletes the window's timer", () => {
  const trigger = EventTimeTrigger.create<number>();
  const map = contexts();
  trigger.onElement(1, 0, w02, ctxOf(map, w02));
  trigger.onElement(1, 2, w24, ctxOf(map, w24));
  trigger.clear(w24, ctxOf(map, w24));
  assert.equal(timerCount(map), 1);
  trigger.clear(w02, ctxOf(map, w02));
  assert.equal(timerCount(map), 0);
});

Deno.test("EventTimeTrigger.onMerge() registers the merged window's timer only ahead of the watermark", () => {
  const trigger = EventTimeTrigger.create<number>();
  const merged = new TimeWindow(0, 4);
  const early = new RecordingTriggerContext();
  trigger.onMerge(merged, early);
  assert.deepEqual([...early.timers], ["e:3"]);
  assert.equal(trigger.onEventTime(3, merged, early), "fire");
  const lateCtx = new RecordingTriggerContext();
  lateCtx.currentWatermark = 10;
  trigger.onMerge(merged, lateCtx);
  assert.equal(lateCtx.timers.size, 0);
  assert.equal(trigger.canMerge, true);
});
