import assert from "node:assert/strict";
import { CountTrigger } from "../../src/windows/count_trigger.ts";
import { EarlyFiringTrigger } from "../../src/windows/early_firing_trigger.ts";
import { EventTimeTrigger } from "../../src/windows/event_time_trigger.ts";
import { NeverTrigger } from "../../src/windows/never_trigger.ts";
import { ProcessingTimeTrigger } from "../../src/windows/processing_time_trigger.ts";
import { PurgingTrigger } from "../../src/windows/purging_trigger.ts";
import { TimeWindow } from "../../src/windows/time_window.ts";
import { TumblingEventTimeWindows } from "../../src/windows/tumbling.ts";
import { RecordingTriggerContext } from "../_support/recording_trigger_context.ts";
import { type KV, sumHarness } from "../_support/window_harness.ts";

const window = new TimeWindow(0, 60_000);

Deno.test("CountTrigger fires on every maxCount-th element and starts counting again", () => {
  const trigger = CountTrigger.of<number>(3);
  const ctx = new RecordingTriggerContext();
  const results = Array.from(
    { length: 7 },
    () => trigger.onElement(1, 0, window, ctx),
  );
  assert.deepEqual(results, [
    "continue",
    "continue",
    "fire",
    "continue",
    "continue",
    "fire",
    "continue",
  ]);
  assert.equal(ctx.getState(), 1);
});

Deno.test("CountTrigger adds up the counts of merged windows", () => {
  const trigger = CountTrigger.of<number>(4);
  const ctx = new RecordingTriggerContext();
  ctx.mergedStates = [2, 1];
  trigger.onMerge(window, ctx);
  assert.equal(ctx.getState(), 3);
  assert.equal(trigger.onElement(1, 0, window, ctx), "fire");
  trigger.clear(window, ctx);
  assert.equal(ctx.getState(), undefined);
});

Deno.test("CountTrigger rejects a count below 1", () => {
  assert.throws(() => CountTrigger.of(0), {
    name: "RangeError",
    message: /'maxCount'.*0/,
  });
});

Deno.test("PurgingTrigger turns fire into fire_and_purge and forwards the rest", () => {
  const trigger = PurgingTrigger.of(EventTimeTrigger.create<number>());
  const ctx = new RecordingTriggerContext();
  assert.equal(trigger.onElement(1, 0, window, ctx), "continue");
  assert.equal(trigger.onEventTime(59_999, window, ctx), "fire_and_purge");
  assert.equal(trigger.onEventTime(5, window, ctx), "continue");
  trigger.clear(window, ctx);
  assert.equal(ctx.timers.size, 0);
  assert.equal(trigger.canMerge, true);
});

Deno.test("ProcessingTimeTrigger fires on its processing-time timer and ignores event time", () => {
  const trigger = ProcessingTimeTrigger.create<number>();
  const ctx = new RecordingTriggerContext();
  assert.equal(trigger.onElement(1, 0, window, ctx), "continue");
  assert.deepEqual([...ctx.timers], ["p:59999"]);
  assert.equal(trigger.onEventTime(59_999, window, ctx), "continue");
  assert.equal(trigger.onProcessingTime(59_999, window, ctx), "fire");
  trigger.clear(window, ctx);
  assert.equal(ctx.timers.size, 0);
});

Deno.test("NeverTrigger never fires", () => {
  const trigger = NeverTrigger.create<number>();
  const ctx = new RecordingTriggerContext();
  assert.equal(trigger.onElement(1, 0, window, ctx), "continue");
  assert.equal(trigger.onEventTime(59_999, window, ctx), "continue");
  assert.equal(trigger.onProcessingTime(59_999, window, ctx), "continue");
  assert.equal(ctx.timers.size, 0);
});

Deno.test("EarlyFiringTrigger fires every interval before the end, on time, then for each late record", () => {
  const h = sumHarness(TumblingEventTimeWindows.of(60_000), {
    allowedLatenessMs: 30_000,
    trigger: EarlyFiringTrigger.every<KV>(10_000),
  });
  h.element("a", 1, 1_000).element("a", 1, 2_000);
  assert.deepEqual(h.watermark(9_999).take(), []);
  assert.deepEqual(h.watermark(10_000).take(), ["(a,2)@59999"]);
  h.element("a", 1, 15_000);
  assert.deepEqual(h.watermark(25_000).take(), ["(a,3)@59999"]);
  // One firing for a jump over several intervals, then on time.
  assert.deepEqual(h.watermark(55_000).take(), ["(a,3)@59999"]);
  assert.deepEqual(h.watermark(59_999).take(), ["(a,3)@59999"]);
  assert.deepEqual(h.element("a", 1, 30_000).take(), ["(a,4)@59999"]);
  assert.deepEqual(h.watermark(90_000).take(), []);
  assert.equal(h.operator.numWindows, 0);
  assert.equal(h.operator.numTimers, 0);
});

Deno.test("EarlyFiringTrigger keeps the earliest pending early firing when windows merge", () => {
  const trigger = EarlyFiringTrigger.every<number>(1_000);
  const ctx = new RecordingTriggerContext();
  ctx.mergedStates = [3_000, 2_000];
  trigger.onMerge(new TimeWindow(0, 10_000), ctx);
  assert.equal(ctx.getState(), 2_000);
  assert.deepEqual([...ctx.timers].sort(), ["e:2000", "e:9999"]);
});

Deno.test("EarlyFiringTrigger rejects a non-positive interval", () => {
  assert.throws(() => EarlyFiringTrigger.every(0), {
    name: "RangeError",
    message: /'intervalMs'.*0/,
  });
});
