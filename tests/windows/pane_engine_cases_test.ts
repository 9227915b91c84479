// Cases of the pane engine (src/windows/_pane_engine.ts) against the
// general engine that a random differential property seldom reaches: what
// a window function keeps of a firing, windows tied at the end of the safe
// range, snapshots the pane engine cannot hold.

import assert from "node:assert/strict";
import { ManualClock } from "../../src/time/clock.ts";
import { EarlyFiringTrigger } from "../../src/windows/early_firing_trigger.ts";
import { EventTimeTrigger } from "../../src/windows/event_time_trigger.ts";
import { ProcessingTimeTrigger } from "../../src/windows/processing_time_trigger.ts";
import { SlidingEventTimeWindows } from "../../src/windows/sliding.ts";
import type { Trigger } from "../../src/windows/trigger.ts";
import { TumblingEventTimeWindows } from "../../src/windows/tumbling.ts";
import type {
  ProcessWindowContext,
  WindowFunction,
} from "../../src/windows/window_function.ts";
import {
  WindowOperator,
  type WindowOperatorSnapshot,
} from "../../src/windows/window_operator.ts";

type Rec = { key: number; v: number; addThrows: boolean };

// Decides as EventTimeTrigger, but is another class: the general engine.
class GeneralEventTimeTrigger<T> extends EventTimeTrigger<T> {}

const rec = (key: number, v: number): Rec => ({ key, v, addThrows: false });

// A snapshot with its slots in id order (groups list them by group).
function normal(snapshot: WindowOperatorSnapshot<number, number[]>) {
  return {
    ...snapshot,
    slots: [...snapshot.slots].sort((a, b) => a.id - b.id),
  };
}

function counters(operator: WindowOperator<Rec, number, number[], string>) {
  return [
    operator.currentWatermark,
    operator.numWindows,
    operator.numTimers,
    operator.lastFiredWindowEnd,
  ];
}

// What a window function may keep of a firing: its context and `out`.
function keeping(general: boolean) {
  const log: string[] = [];
  const clock = new ManualClock(100);
  const contexts: ProcessWindowContext[] = [];
  let keptOut: ((value: string) => void) | null = null;
  const fn: WindowFunction<Rec, number[], string, number> = {
    create: () => [],
    add: (contents, value) => [...contents, value.v],
    merge: (a, b) => a.concat(b),
    emit(key, context, contents, out) {
      contexts.push(context);
      // A result deferred from the first window, collected in a later one.
      if (keptOut === null) keptOut = out;
      else keptOut(`${key} deferred`);
      out(`${key} ${context.window} ${contents}`);
    },
  };
  const operator = new WindowOperator<Rec, number, number[], string>({
    assigner: TumblingEventTimeWindows.of(10),
    keySelector: (r) => r.key,
    windowFunction: fn,
    trigger: general ? new GeneralEventTimeTrigger() : undefined,
    clock,
  }, {
    collect: (value, ts) => log.push(`out ${value} @${ts}`),
    sideOutput: () => {},
    emitWatermark: (w) => log.push(`wm ${w}`),
  });
  operator.processBatch([rec(1, 1), rec(2, 2), rec(1, 3)], [5, 6, 15]);
  operator.processWatermark(10);
  clock.advance(7);
  operator.processWatermark(20);
  clock.advance(7);
  return {
    log,
    times: contexts.map((c) =>
      Object.getOwnPropertyDescriptor(c, "currentProcessingTime")?.value
    ),
    distinct: new Set(contexts).size,
    json: contexts.map((c) => JSON.stringify(c)),
  };
}

Deno.test("WindowOperator's pane engine hands each pane its own plain context and a collector bound to its window, as the general engine does", () => {
  const panes = keeping(false);
  const general = keeping(true);
  assert.deepEqual(panes, general);
  // The clock, read when the window fired, not when the context is read.
  assert.deepEqual(panes.times, [100, 100, 107]);
  assert.equal(panes.distinct, 3);
  assert.ok(panes.log.includes("out 1 deferred @9"), panes.log.join("\n"));
});

// Throws in emit for a 13 (no rejectFire).
const throwing: WindowFunction<Rec, number[], string, number> = {
  create: () => [],
  add: (contents, value) => [...contents, value.v],
  merge: (a, b) => a.concat(b),
  emit(key, context, contents, out) {
    if (contents.includes(13)) throw new Error("emit threw");
    out(`${key} ${context.window} ${contents}`);
  },
};

function tied(general: boolean, log: string[]) {
  return new WindowOperator<Rec, number, number[], string>({
    assigner: SlidingEventTimeWindows.of(10, 5),
    keySelector: (r) => r.key,
    windowFunction: throwing,
    trigger: general ? new GeneralEventTimeTrigger() : undefined,
    clock: new ManualClock(0),
  }, {
    collect: (value, ts) => log.push(`out ${value} @${ts}`),
    sideOutput: () => {},
    emitWatermark: (w) => log.push(`wm ${w}`),
  });
}

function step(log: string[], action: () => void) {
  try {
    action();
  } catch (error) {
    log.push(`threw ${error}`);
  }
}

Deno.test("WindowOperator's pane engine drops the panes fired among windows tied at the end of the safe range when one throws, as the general engine", () => {
  const M = Number.MAX_SAFE_INTEGER;
  const logs: string[][] = [[], []];
  const operators = [tied(false, logs[0]), tied(true, logs[1])];
  operators.forEach((operator, i) => {
    step(logs[i], () => operator.processBatch([rec(1, 1), rec(2, 13)], [M, M]));
    step(logs[i], () => operator.processWatermark(M));
  });
  const [panes, general] = operators;
  assert.deepEqual(logs[0], logs[1]);
  assert.ok(logs[0].includes("threw Error: emit threw"));
  assert.deepEqual(counters(panes), counters(general));
  const snapshots = operators.map((o) => structuredClone(o.snapshot()));
  assert.deepEqual(normal(snapshots[0]), normal(snapshots[1]));
  // Restored into either engine, the snapshot goes on as the general one.
  const after = [false, true].map((general) => {
    const log: string[] = [];
    const restored = tied(general, log);
    restored.restore(snapshots[0]);
    step(log, () => restored.processWatermark(Infinity));
    return { log, counters: counters(restored), snapshot: restored.snapshot() };
  });
  assert.deepEqual(after[0].counters, after[1].counters);
  assert.deepEqual(after[0].log, after[1].log);
  assert.deepEqual(normal(after[0].snapshot), normal(after[1].snapshot));
});

function other(trigger: Trigger<Rec> | undefined, log: string[]) {
  return new WindowOperator<Rec, number, number[], string>({
    assigner: TumblingEventTimeWindows.of(10),
    keySelector: (r) => r.key,
    windowFunction: throwing,
    trigger,
    allowedLatenessMs: 4,
    clock: new ManualClock(0),
  }, {
    collect: (value, ts) => log.push(`out ${value} @${ts}`),
    sideOutput: () => {},
    emitWatermark: (w) => log.push(`wm ${w}`),
  });
}

Deno.test("WindowOperator restores a snapshot the pane engine cannot hold (trigger state, early or processing-time timers) on its general engine", () => {
  for (
    const trigger of [
      () => EarlyFiringTrigger.every<Rec>(3),
      () => ProcessingTimeTrigger.create<Rec>(),
    ]
  ) {
    const old = other(trigger(), []);
    old.processBatch([rec(1, 1), rec(2, 2), rec(1, 3)], [1, 2, 14]);
    const snapshot = structuredClone(old.snapshot());
    const runs = [false, true].map((general) => {
      const log: string[] = [];
      const operator = other(
        general ? new GeneralEventTimeTrigger() : undefined,
        log,
      );
      operator.restore(structuredClone(snapshot));
      const restored = normal(operator.snapshot());
      const seen = [counters(operator)];
      for (const watermark of [5, 9, 13, 19, Infinity]) {
        operator.processWatermark(watermark);
        seen.push(counters(operator));
      }
      return { restored, log, seen, after: normal(operator.snapshot()) };
    });
    // The state survives the restore.
    assert.deepEqual(runs[0].restored, normal(snapshot));
    assert.deepEqual(runs[0], runs[1]);
    // The early firing's timer at 3 fires the window before its end (the
    // processing-time trigger's window is only cleaned up).
    if (snapshot.timers.processingTime.length === 0) {
      assert.ok(runs[0].log.includes("out 1 [0, 10) 1 @9"), runs[0].log.join());
    }
  }
});
