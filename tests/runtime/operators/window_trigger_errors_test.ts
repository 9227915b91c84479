// A window trigger that throws never crash-loops a job, and a
// record whose trigger throws has no effect on its window.

import assert from "node:assert/strict";
import { WindowStreamOperator } from "../../../src/runtime/operators/window.ts";
import { CountTrigger } from "../../../src/windows/count_trigger.ts";
import { EventTimeTrigger } from "../../../src/windows/event_time_trigger.ts";
import { EventTimeSessionWindows } from "../../../src/windows/session.ts";
import { TumblingEventTimeWindows } from "../../../src/windows/tumbling.ts";
import { TumblingProcessingTimeWindows } from "../../../src/windows/tumbling_processing_time.ts";
import type { Trigger } from "../../../src/windows/trigger.ts";
import type { WindowAssigner } from "../../../src/windows/window_assigner.ts";
import { aggregateWindow } from "../../../src/windows/window_function.ts";
import type { WindowOperatorSnapshot } from "../../../src/windows/window_operator.ts";
import { guardHarness } from "../../_support/guard_harness.ts";
import { ManualClock } from "../../../src/time/clock.ts";
import { RecordFailedError } from "../../../src/runtime/dead_letter.ts";

type R = { k: string; n: number };
type Acc = { sum: number; count: number };

// Sums and counts per key, with an aggregate that changes its accumulator
// in place (as most do): only a record that is never added leaves no trace.
function window(
  assigner: WindowAssigner<R>,
  trigger?: Trigger<R>,
  allowedLatenessMs = 0,
) {
  return new WindowStreamOperator<R, string, Acc, string>({
    assigner,
    keySelector: (r) => r.k,
    trigger,
    allowedLatenessMs,
    windowFunction: aggregateWindow({
      createAccumulator: () => ({ sum: 0, count: 0 }),
      add(r: R, acc: Acc) {
        acc.sum += r.n;
        acc.count++;
        return acc;
      },
      getResult: (acc) => acc,
      merge: (a, b) => ({ sum: a.sum + b.sum, count: a.count + b.count }),
    }, (key, _ctx, [acc], out) => out(`${key}:${acc.sum}/${acc.count}`)),
  });
}

// `base` with some of its methods replaced.
function faulty(base: Trigger<R>, overrides: Partial<Trigger<R>>): Trigger<R> {
  return {
    canMerge: base.canMerge,
    onElement: (e, ts, w, c) => base.onElement(e, ts, w, c),
    onEventTime: (t, w, c) => base.onEventTime(t, w, c),
    onProcessingTime: (t, w, c) => base.onProcessingTime(t, w, c),
    onMerge: (w, c) => base.onMerge(w, c),
    clear: (w, c) => base.clear(w, c),
    ...overrides,
  };
}

type State = WindowOperatorSnapshot<string, Acc>;

function windowState(h: ReturnType<typeof guardHarness>): State {
  return h.snapshot().operators[0] as State;
}

Deno.test("WindowStreamOperator takes back a record whose trigger's onElement throws: contents, trigger state and a new window", () => {
  const count = CountTrigger.of<R>(2);
  const trigger = faulty(count, {
    onElement(e, ts, w, c) {
      const result = count.onElement(e, ts, w, c);
      if (e.n === 99) throw new Error("Cannot trigger on 99");
      return result;
    },
  });
  const h = guardHarness({
    operators: () => [window(TumblingEventTimeWindows.of(10), trigger)],
  });
  // 99 in an existing window (its count and sum), then in a new one.
  h.push([{ k: "a", n: 1 }, { k: "a", n: 99 }, { k: "a", n: 2 }], [1, 2, 3]);
  h.push([{ k: "b", n: 99 }], [4]);
  assert.deepEqual(h.letters().map((l) => [l.value, l.position]), [
    [{ k: "a", n: 99 }, "channel 0, record 1"],
    [{ k: "b", n: 99 }, "channel 0, record 3"],
  ]);
  assert.deepEqual(h.out, ["a:3/2@9"], "counted 1 and 2 only, then fired");
  assert.deepEqual(
    windowState(h).slots.map((s) => s.key),
    ["a"],
    "no window for b",
  );
});

Deno.test("WindowStreamOperator takes back the timers of an existing window's onElement that throws", () => {
  const base = EventTimeTrigger.create<R>();
  const trigger = faulty(base, {
    onElement(e, ts, w, c) {
      const result = base.onElement(e, ts, w, c);
      if (e.n === 99) {
        c.registerEventTimeTimer(5);
        c.deleteEventTimeTimer(w.maxTimestamp());
        throw new Error("Cannot trigger on 99");
      }
      return result;
    },
  });
  const h = guardHarness({
    operators: () => [window(TumblingEventTimeWindows.of(10), trigger)],
  });
  h.push([{ k: "a", n: 1 }], [1]);
  const before = windowState(h);
  h.push([{ k: "a", n: 99 }], [2]);
  assert.equal(h.letters().length, 1);
  assert.deepEqual(windowState(h), before);
  h.watermark(20);
  assert.deepEqual(h.out, ["a:1/1@9"]);
});

Deno.test("WindowStreamOperator sets aside and drops a window whose trigger's onEventTime throws, and fires the others", () => {
  const base = EventTimeTrigger.create<R>();
  const trigger = faulty(base, {
    onEventTime(t, w, c) {
      if (w.start === 0) throw new Error("Cannot fire window 0");
      return base.onEventTime(t, w, c);
    },
  });
  const h = guardHarness({
    operators: () => [window(TumblingEventTimeWindows.of(10), trigger)],
  });
  h.push([{ k: "a", n: 1 }, { k: "a", n: 2 }], [1, 12]);
  h.watermark(30);
  assert.deepEqual(h.out, ["a:2/1@19"]);
  const [letter, ...rest] = h.letters();
  assert.equal(rest.length, 0);
  assert.deepEqual(letter.value, { key: "a", window: { start: 0, end: 10 } });
  assert.equal(letter.timestamp, 9);
  assert.equal(letter.position, "watermark 30");
  assert.equal(letter.error.message, "Cannot fire window 0");
  assert.deepEqual(windowState(h).slots, []);
});

Deno.test("WindowStreamOperator sets aside and drops a window whose trigger's onProcessingTime throws", () => {
  const trigger = faulty(EventTimeTrigger.create<R>(), {
    canMerge: false,
    onElement(_e, _ts, w, c) {
      c.registerProcessingTimeTimer(w.maxTimestamp());
      return "continue";
    },
    onProcessingTime() {
      throw new Error("Cannot fire on processing time");
    },
  });
  const h = guardHarness({
    operators: () => [window(TumblingProcessingTimeWindows.of(100), trigger)],
    clock: new ManualClock(0),
  });
  h.clock.set(10);
  h.push([{ k: "a", n: 1 }], [0]);
  h.clock.set(99);
  h.subtask.onProcessingTime(99);
  assert.deepEqual(h.out, []);
  const [letter] = h.letters();
  assert.deepEqual(letter.value, { key: "a", window: { start: 0, end: 100 } });
  assert.equal(letter.position, "processing time 99");
  assert.deepEqual(windowState(h).slots, []);
});

Deno.test("WindowStreamOperator sets aside and drops a window whose trigger's clear throws at cleanup", () => {
  const trigger = faulty(EventTimeTrigger.create<R>(), {
    clear() {
      throw new Error("Cannot clear");
    },
  });
  const h = guardHarness({
    operators: () => [window(TumblingEventTimeWindows.of(10), trigger, 5)],
  });
  h.push([{ k: "a", n: 1 }], [1]);
  h.watermark(9);
  assert.deepEqual(h.out, ["a:1/1@9"]);
  assert.deepEqual(h.letters(), []);
  h.watermark(20);
  const [letter] = h.letters();
  assert.deepEqual(letter.value, { key: "a", window: { start: 0, end: 10 } });
  assert.deepEqual(windowState(h).slots, []);
});

Deno.test("WindowStreamOperator sets aside a record whose trigger throws while its sessions merge, and the merged session still fires", () => {
  const base = EventTimeTrigger.create<R>();
  const trigger = faulty(base, {
    onMerge(w, c) {
      // Before it registers its timer: the session must not be left
      // without one.
      if (w.end - w.start > 20) throw new Error("Cannot merge long sessions");
      base.onMerge(w, c);
    },
  });
  const h = guardHarness({
    operators: () => [window(EventTimeSessionWindows.withGap(10), trigger)],
  });
  h.push([{ k: "a", n: 1 }, { k: "a", n: 2 }], [1, 5]);
  h.push([{ k: "a", n: 4 }], [14]);
  const [letter] = h.letters();
  assert.deepEqual(letter.value, { k: "a", n: 4 });
  h.watermark(100);
  assert.deepEqual(h.out, ["a:3/2@23"], "merged, without the record");
  assert.deepEqual(windowState(h).slots, []);
});

Deno.test('WindowStreamOperator under "fail" throws RecordFailedError for a trigger that throws on a timer, and sets the window aside once quarantined', () => {
  const base = EventTimeTrigger.create<R>();
  const trigger = faulty(base, {
    onEventTime() {
      throw new Error("Cannot fire");
    },
  });
  const setup = {
    operators: () => [window(TumblingEventTimeWindows.of(10), trigger)],
    errorPolicy: "fail" as const,
  };
  const h = guardHarness(setup);
  h.push([{ k: "a", n: 1 }], [1]);
  let error: unknown = null;
  try {
    h.watermark(30);
  } catch (e) {
    error = e;
  }
  assert.ok(error instanceof RecordFailedError);
  const again = guardHarness({
    ...setup,
    quarantine: new Set([error.strike]),
  });
  again.push([{ k: "a", n: 1 }], [1]);
  again.watermark(30);
  assert.deepEqual(again.letters().map((l) => l.reason), ["quarantined"]);
});
