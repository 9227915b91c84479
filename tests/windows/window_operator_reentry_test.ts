// WindowOperator is not reentrant on any engine: a call of processBatch,
// processElement, processWatermark, onProcessingTime or restore from inside
// a call of the same operator throws before changing anything.

import assert from "node:assert/strict";
import { ManualClock } from "../../src/time/clock.ts";
import { EventTimeSessionWindows } from "../../src/windows/session.ts";
import { TumblingEventTimeWindows } from "../../src/windows/tumbling.ts";
import { WindowOperator } from "../../src/windows/window_operator.ts";
import {
  GeneralEventTimeTrigger,
  type Op,
  outputOf,
  type Rec,
  sumWindow,
} from "../_support/sum_operators.ts";

const ENGINES = {
  general: () => ({
    assigner: EventTimeSessionWindows.withGap<Rec>(10),
    trigger: new GeneralEventTimeTrigger<Rec>(),
  }),
  pane: () => ({ assigner: TumblingEventTimeWindows.of<Rec>(10) }),
  session: () => ({ assigner: EventTimeSessionWindows.withGap<Rec>(10) }),
};

const CALLS: Record<string, (op: Op) => void> = {
  processBatch: (op) => op.processBatch([{ key: 9, v: 1 }], [100]),
  processElement: (op) => op.processElement({ key: 9, v: 1 }, 3),
  processWatermark: (op) => op.processWatermark(Infinity),
  onProcessingTime: (op) => op.onProcessingTime(),
  restore: (op) => op.restore(structuredClone(op.snapshot())),
};

// An operator whose window function runs `inner` on it (once, for key 1)
// and notes what it threw and the snapshot it read.
function operatorOf(
  engine: keyof typeof ENGINES,
  inner: ((op: Op) => void) | null,
  log: string[],
  rejectFire: boolean,
): Op {
  const op: Op = new WindowOperator<Rec, number, number, string>({
    ...ENGINES[engine](),
    keySelector: (r) => r.key,
    clock: new ManualClock(),
    windowFunction: sumWindow({
      afterFire(key) {
        log.push(`inner snapshot ${JSON.stringify(op.snapshot())}`);
        if (inner !== null && key === 1) inner(op);
      },
    }),
  }, {
    ...outputOf(log),
    rejectFire: rejectFire
      ? (key, window, error, emitted) =>
        log.push(
          `rejectFire ${key} ${window.end} ${emitted}: ${
            (error as Error).message
          }`,
        )
      : undefined,
  });
  return op;
}

function run(op: Op, log: string[]): void {
  op.processBatch([{ key: 1, v: 1 }, { key: 2, v: 2 }], [0, 1]);
  try {
    op.processWatermark(50);
  } catch (error) {
    log.push(`threw ${(error as Error).message}`);
  }
  log.push(`counters ${op.numWindows} ${op.numTimers} ${op.currentWatermark}`);
  // The guard is reset, also after a throw: the operator goes on.
  op.processElement({ key: 3, v: 1 }, 60);
  op.processWatermark(Infinity);
  log.push(JSON.stringify(op.snapshot()));
}

for (const engine of Object.keys(ENGINES) as (keyof typeof ENGINES)[]) {
  for (const [method, call] of Object.entries(CALLS)) {
    Deno.test(`WindowOperator.${method} called from its window function throws and changes nothing (${engine} engine)`, () => {
      const message =
        `Cannot call WindowOperator.${method} from inside a call of the same operator (e.g. from its window function or trigger): current call is WindowOperator.processWatermark`;
      // With rejectFire: the refusal is the window's error, and the
      // operator ends as one whose window function made no call.
      const logs = [call, null].map((inner) => {
        const log: string[] = [];
        run(operatorOf(engine, inner, log, true), log);
        return log;
      });
      const rejected = logs[0].filter((line) => line.startsWith("rejectFire"));
      assert.deepEqual(rejected, [`rejectFire 1 10 1: ${message}`]);
      assert.deepEqual(
        logs[0].filter((line) => !line.startsWith("rejectFire")),
        logs[1],
      );
      // Without: it propagates out of processWatermark.
      const log: string[] = [];
      run(operatorOf(engine, call, log, false), log);
      assert.ok(log.includes(`threw ${message}`), log.join("\n"));
    });
  }
}
