// Cases of the session engine (src/windows/_session_engine.ts) against the
// general engine: which operators it takes, handovers in the middle of a
// batch, restores it can and cannot hold, and the counters at each step.

import assert from "node:assert/strict";
import { ManualClock } from "../../src/time/clock.ts";
import { sessionEngineOf } from "../../src/windows/_window_engine.ts";
import type { HandOver } from "../../src/windows/_window_engine.ts";
import { EventTimeTrigger } from "../../src/windows/event_time_trigger.ts";
import { EventTimeSessionWindows } from "../../src/windows/session.ts";
import { TumblingEventTimeWindows } from "../../src/windows/tumbling.ts";
import { aggregateWindow } from "../../src/windows/window_function.ts";
import {
  WindowOperator,
  type WindowOperatorOptions,
  type WindowOperatorSnapshot,
  type WindowOutput,
} from "../../src/windows/window_operator.ts";
import {
  batch,
  counters,
  GAP,
  GeneralEventTimeTrigger,
  type Op,
  outputOf as linesOf,
  type Rec,
  sessionOptionsOf,
  sumWindow,
} from "../_support/sum_operators.ts";

function optionsOf(
  general: boolean,
  lateness: number,
): WindowOperatorOptions<Rec, number, number, string> {
  return sessionOptionsOf(general, lateness, sumWindow({ refuseZero: true }));
}

function outputOf(log: string[]): WindowOutput<string> {
  return {
    ...linesOf(log),
    rejectRecord: (value, ts, error, index) =>
      log.push(
        `reject ${JSON.stringify(value)} @${ts} #${index}: ${
          (error as Error).message
        }`,
      ),
  };
}

/** An operator on the session engine and one on the general engine. */
function pair(lateness = 0): { ops: [Op, Op]; logs: [string[], string[]] } {
  const logs: [string[], string[]] = [[], []];
  const ops = [false, true].map((general, i) =>
    new WindowOperator(optionsOf(general, lateness), outputOf(logs[i]))
  ) as [Op, Op];
  return { ops, logs };
}

/** A session engine alone, and the states it handed over. */
function engineOf(lateness: number) {
  const handed: HandOver<number, number>[] = [];
  const engine = sessionEngineOf(
    optionsOf(false, lateness),
    outputOf([]),
    (state) => handed.push(state),
  )!;
  return { engine, handed };
}

// Applies `step` to both, then checks they agree in everything observable.
function both(
  { ops, logs }: ReturnType<typeof pair>,
  step: (op: Op) => void,
): void {
  for (const op of ops) step(op);
  assert.deepEqual(logs[0], logs[1]);
  assert.deepEqual(counters(ops[0]), counters(ops[1]));
  assert.deepEqual(ops[0].snapshot(), ops[1].snapshot());
}

Deno.test("sessionEngineOf takes exactly EventTimeSessionWindows with a fixed gap and EventTimeTrigger", () => {
  const output = outputOf([]);
  const none = () => {};
  const options = optionsOf(false, 0);
  assert.notEqual(sessionEngineOf(options, output, none), null);
  assert.notEqual(
    sessionEngineOf(
      { ...options, trigger: EventTimeTrigger.create() },
      output,
      none,
    ),
    null,
  );
  for (
    const other of [
      { trigger: new GeneralEventTimeTrigger<Rec>() },
      { assigner: EventTimeSessionWindows.withDynamicGap<Rec>(() => GAP) },
      { assigner: TumblingEventTimeWindows.of<Rec>(GAP) },
    ]
  ) {
    assert.equal(sessionEngineOf({ ...options, ...other }, output, none), null);
  }
});

Deno.test("session engine: a handover in the middle of a batch keeps every result and counter", () => {
  const runs = pair();
  both(runs, (op) => batch(op, [[1, 0, 1], [2, 1, 2], [1, 5, 3]]));
  both(runs, (op) => op.processWatermark(3));
  // Key 2's record at -5 touches its session from before: out of order,
  // so the general engine takes it and the records after it.
  both(
    runs,
    (op) => batch(op, [[1, 12, 4], [2, -5, 5], [1, 20, 6], [3, 30, 7]]),
  );
  both(runs, (op) => op.processWatermark(40));
  both(runs, (op) => op.processWatermark(Infinity));
  assert.deepEqual(runs.logs[0].filter((line) => line.startsWith("fire")), [
    "fire 2|-5|11|7 @10",
    "fire 1|0|30|14 @29",
    "fire 3|30|40|7 @39",
  ]);
});

Deno.test("session engine: an add that throws as its session grows, with allowed lateness, hands over and the batch goes on", () => {
  const runs = pair(5);
  both(runs, (op) => batch(op, [[1, 0, 1], [2, 0, 1]]));
  // Grows key 1's session, then its add throws: the general engine's
  // session then has no cleanup timer until its next record.
  both(runs, (op) => batch(op, [[2, 3, 2], [1, 4, 0], [2, 6, 3], [3, 7, 1]]));
  both(runs, (op) => op.processWatermark(13));
  both(runs, (op) => batch(op, [[1, 9, 2]]));
  both(runs, (op) => op.processWatermark(100));
  assert.ok(runs.logs[0].some((line) => line.startsWith("reject")));
});

Deno.test("session engine: late records whose window touches no session stay on the engine; one within the lateness fires at once", () => {
  const runs = pair(3);
  both(runs, (op) => batch(op, [[1, 20, 1], [1, 25, 2]]));
  both(runs, (op) => op.processWatermark(15));
  // [0, 10) is late (9 + 3 <= 15) and touches nothing: dropped, counted.
  both(runs, (op) => batch(op, [[1, 0, 5]]));
  assert.equal(runs.ops[0].numLateRecordsDropped, 1);
  // [4, 14) is not late but fires at once: the general engine takes it.
  both(runs, (op) => batch(op, [[2, 4, 6]]));
  both(runs, (op) => op.processWatermark(Infinity));
});

Deno.test("session engine: restore holds a general engine's snapshot, and refuses one with trigger state or a missing cleanup timer", () => {
  const general = new WindowOperator(optionsOf(true, 5), outputOf([]));
  general.processBatch([{ key: 1, v: 1 }, { key: 2, v: 2 }], [0, 30]);
  general.processWatermark(12);
  const snapshot = general.snapshot();
  const { engine, handed } = engineOf(5);
  assert.equal(engine.restore(structuredClone(snapshot), 7), true);
  assert.deepEqual(
    [engine.numWindows, engine.numTimers, engine.currentWatermark],
    [general.numWindows, general.numTimers, general.currentWatermark],
  );
  assert.equal(engine.lastFiredWindowEnd, 7);
  assert.deepEqual(engine.slotGroups().flat(), snapshot.slots);
  assert.deepEqual(engine.snapshotWithoutSlots(), {
    nextId: snapshot.nextId,
    timers: snapshot.timers,
    numLateRecordsDropped: 0,
  });
  const refused: WindowOperatorSnapshot<number, number>[] = [
    {
      ...snapshot,
      slots: snapshot.slots.map((slot) => ({ ...slot, triggerState: 1 })),
    },
    // Key 2's session (id 1, [30, 40)) with its fire timer only.
    {
      ...snapshot,
      timers: { ...snapshot.timers, eventTime: [1, 39] },
    },
    {
      ...snapshot,
      timers: { ...snapshot.timers, processingTime: [1, 39] },
    },
  ];
  for (const bad of refused) assert.equal(engine.restore(bad, 7), false);
  assert.equal(handed.length, 0);
  // An operator restored from either goes on as the general engine does.
  for (const bad of refused) {
    const runs = pair(5);
    both(runs, (op) => op.restore(structuredClone(bad)));
    both(runs, (op) => batch(op, [[2, 35, 4], [3, 50, 1]]));
    both(runs, (op) => op.processWatermark(Infinity));
  }
});

Deno.test("session engine: an operator restored after a handover runs on the engine again, with the counters of the general engine", () => {
  const runs = pair(2);
  both(runs, (op) => batch(op, [[1, 10, 1], [1, 2, 2]]));
  both(runs, (op) => op.processWatermark(5));
  const snapshot = runs.ops[1].snapshot();
  both(runs, (op) => op.restore(structuredClone(snapshot)));
  both(runs, (op) => batch(op, [[1, 14, 3], [2, 40, 4]]));
  both(runs, (op) => op.processWatermark(45));
  both(runs, (op) => op.processWatermark(Infinity));
  assert.equal(runs.ops[0].numWindows, 0);
});

Deno.test("session engine: processBatch stops at the first record it does not take and hands over the state before it, with that record's key", () => {
  const { engine, handed } = engineOf(0);
  const values = [1, 2, 1, 2].map((key, v) => ({ key, v: v + 1 }));
  assert.equal(engine.processBatch(values, [0, 20, 5, 15]), 3);
  assert.equal(handed.length, 1);
  assert.deepEqual(handed[0].key, { key: 2 });
  assert.equal(handed[0].noCleanup, -1);
  assert.deepEqual(handed[0].snapshot, {
    slots: [
      { id: 0, key: 1, start: 0, end: 15, contents: 4 },
      { id: 1, key: 2, start: 20, end: 30, contents: 2 },
    ],
    nextId: 2,
    timers: {
      currentWatermark: -Infinity,
      eventTime: [0, 14, 1, 29],
      processingTime: [],
    },
    numLateRecordsDropped: 0,
  });
});

Deno.test("WindowOperator's restore picks the engine again after the general engine ran, keeping the general engine's lastFiredWindowEnd (sessions and panes)", () => {
  for (
    const assigner of [
      EventTimeSessionWindows.withGap<Rec>(GAP),
      TumblingEventTimeWindows.of<Rec>(GAP),
    ]
  ) {
    const logs: [string[], string[]] = [[], []];
    const ops = [false, true].map((general, i) =>
      new WindowOperator(
        { ...optionsOf(general, 0), assigner },
        outputOf(logs[i]),
      )
    ) as [Op, Op];
    const runs = { ops, logs };
    both(runs, (op) => batch(op, [[1, 0, 1]]));
    const holdable = ops[1].snapshot();
    // Trigger state: only the general engine holds it.
    const refused = {
      ...holdable,
      slots: holdable.slots.map((slot) => ({ ...slot, triggerState: 1 })),
    };
    both(runs, (op) => op.restore(structuredClone(refused)));
    both(runs, (op) => op.processWatermark(50));
    assert.equal(ops[0].lastFiredWindowEnd, 10);
    both(runs, (op) => op.restore(structuredClone(holdable)));
    assert.equal(ops[0].lastFiredWindowEnd, 10);
    both(runs, (op) => batch(op, [[2, 60, 1]]));
    both(runs, (op) => op.processWatermark(Infinity));
  }
});

Deno.test("session engine: the clock is read once per fired session, as the general engine reads it per fired window", () => {
  const logs = [false, true].map((general) => {
    const log: string[] = [];
    const clock = new ManualClock();
    const op = new WindowOperator<Rec, number, number, string>({
      ...optionsOf(general, 0),
      clock,
      windowFunction: aggregateWindow<Rec, number, number, number, string>({
        createAccumulator: () => 0,
        add: (r, acc) => acc + r.v,
        getResult: (acc) => acc,
        merge: (a, b) => a + b,
      }, (key, ctx, _contents, out) => {
        out(`${key} now=${ctx.currentProcessingTime}`);
        clock.advance(1);
      }),
    }, outputOf(log));
    batch(op, [[1, 0, 1], [2, 0, 1], [3, 30, 1]]);
    op.processWatermark(100);
    return log;
  });
  assert.deepEqual(logs[0], logs[1]);
  assert.deepEqual(logs[0].slice(0, 3), [
    "fire 1 now=0 @9",
    "fire 2 now=1 @9",
    "fire 3 now=2 @39",
  ]);
});

Deno.test("session engine: partitionOf may return any number (a fraction, beyond int32, negative); groups and their reuse are the general engine's", () => {
  for (const part of [2 ** 31, 0.5, 2 ** 32 + 1, -(2 ** 31) - 1, -3]) {
    const logs = [false, true].map((general) => {
      const log: string[] = [];
      const op = new WindowOperator<Rec, number, number, string>({
        ...optionsOf(general, 0),
        partitionOf: (key) => key === 1 ? part : 1,
      }, outputOf(log));
      batch(op, [[1, 0, 1], [2, 0, 1]]);
      let previous: unknown[][] = [];
      for (let i = 0; i < 3; i++) {
        const groups = op.slotGroups();
        log.push(
          `${JSON.stringify(groups)} reused ${
            groups.map((g) => previous.includes(g))
          }`,
        );
        previous = groups;
        batch(op, [[2, 1 + i, 1]]);
      }
      return log;
    });
    assert.deepEqual(logs[0], logs[1], `partitionOf ${part}`);
  }
});

Deno.test("session engine: windowDone is called after each fired session, once its results are collected", () => {
  const log: string[] = [];
  const op = new WindowOperator(optionsOf(false, 0), {
    ...outputOf(log),
    windowDone: () => log.push("done"),
  });
  batch(op, [[1, 0, 1], [2, 0, 2], [1, 30, 3]]);
  op.processWatermark(100);
  assert.deepEqual(log, [
    "fire 1|0|10|1 @9",
    "done",
    "fire 2|0|10|2 @9",
    "done",
    "fire 1|30|40|3 @39",
    "done",
    "watermark 100",
  ]);
});
