// WindowOperator's choice of engine and its restore, the same on every
// engine: the general engine (any other trigger), the pane engine
// (tumbling, sliding) and the session engine.

import assert from "node:assert/strict";
import { sessionEngineOf } from "../../src/windows/_window_engine.ts";
import { EventTimeTrigger } from "../../src/windows/event_time_trigger.ts";
import { EventTimeSessionWindows } from "../../src/windows/session.ts";
import { TumblingEventTimeWindows } from "../../src/windows/tumbling.ts";
import { WindowOperator } from "../../src/windows/window_operator.ts";
import {
  batch,
  counters,
  GAP,
  type Op,
  outputOf,
  type Rec,
  sessionOptionsOf,
} from "../_support/sum_operators.ts";

Deno.test("WindowOperator's restore that throws changes nothing, on the general, pane and session engines", () => {
  const bad = [
    { eventTime: [1], slots: [] },
    { eventTime: [], slots: "bad" },
    { eventTime: [], slots: [null] },
  ];
  for (const { eventTime, slots } of bad) {
    for (const general of [true, false]) {
      for (
        const assigner of [
          EventTimeSessionWindows.withGap<Rec>(GAP),
          TumblingEventTimeWindows.of<Rec>(GAP),
        ]
      ) {
        const log: string[] = [];
        const op: Op = new WindowOperator(
          { ...sessionOptionsOf(general), assigner },
          outputOf(log),
        );
        batch(op, [[1, 0, 1], [2, 5, 2]]);
        const before = [JSON.stringify(op.snapshot()), counters(op)];
        assert.throws(
          () =>
            op.restore({
              nextId: 5,
              slots,
              timers: { currentWatermark: 0, eventTime, processingTime: [] },
              numLateRecordsDropped: 0,
            } as never),
          /^(TypeError|RangeError): Cannot restore /,
        );
        assert.deepEqual([JSON.stringify(op.snapshot()), counters(op)], before);
        op.processWatermark(Infinity);
        assert.equal(log.filter((line) => line.startsWith("fire")).length, 2);
      }
    }
  }
});

Deno.test("an EventTimeTrigger with a property set on the instance (a spy) runs on the general engine, for sessions and panes", () => {
  const engineOf = (trigger: EventTimeTrigger<Rec>) =>
    sessionEngineOf(
      { ...sessionOptionsOf(false), trigger },
      outputOf([]),
      () => {},
    );
  assert.notEqual(engineOf(EventTimeTrigger.create<Rec>()), null);
  const tagged = EventTimeTrigger.create<Rec>();
  Object.defineProperty(tagged, Symbol("tag"), { value: 1 });
  assert.equal(engineOf(tagged), null);
  for (
    const assigner of [
      EventTimeSessionWindows.withGap<Rec>(GAP),
      TumblingEventTimeWindows.of<Rec>(GAP),
    ]
  ) {
    const calls: number[] = [];
    const trigger = EventTimeTrigger.create<Rec>();
    const onElement = trigger.onElement.bind(trigger);
    trigger.onElement = (value, ts, window, context) => {
      calls.push(ts);
      return onElement(value, ts, window, context);
    };
    const op: Op = new WindowOperator(
      { ...sessionOptionsOf(false), assigner, trigger },
      outputOf([]),
    );
    batch(op, [[1, 0, 1], [1, 3, 1]]);
    op.processElement({ key: 2, v: 1 }, 4);
    assert.deepEqual(calls, [0, 3, 4]);
  }
});

Deno.test("an EventTimeSessionWindows with its assignWindows patched on the instance runs on the general engine, which calls it", () => {
  const options = (assigner: EventTimeSessionWindows<Rec>) => ({
    ...sessionOptionsOf(false),
    assigner,
  });
  const engineOf = (assigner: EventTimeSessionWindows<Rec>) =>
    sessionEngineOf(options(assigner), outputOf([]), () => {});
  assert.notEqual(engineOf(EventTimeSessionWindows.withGap<Rec>(GAP)), null);
  const calls: number[] = [];
  const assigner = EventTimeSessionWindows.withGap<Rec>(GAP);
  const assignWindows = assigner.assignWindows.bind(assigner);
  assigner.assignWindows = (value, ts, context) => {
    calls.push(ts);
    return assignWindows(value, ts, context);
  };
  assert.equal(engineOf(assigner), null);
  const op: Op = new WindowOperator(options(assigner), outputOf([]));
  batch(op, [[1, 0, 1], [1, 3, 1]]);
  assert.deepEqual(calls, [0, 3]);
});
