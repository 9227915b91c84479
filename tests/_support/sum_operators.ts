// Window operators of the engine tests (tests/windows/session_engine_test.ts,
// window_operator_engines_test.ts, window_operator_reentry_test.ts): records
// `{ key, v }` summed per window, fired as "key|start|end|sum", and an
// output that logs everything as a line, so the engines compare by logs.

import { ManualClock } from "../../src/time/clock.ts";
import { EventTimeTrigger } from "../../src/windows/event_time_trigger.ts";
import { EventTimeSessionWindows } from "../../src/windows/session.ts";
import {
  aggregateWindow,
  type WindowFunction,
} from "../../src/windows/window_function.ts";
import type {
  WindowOperator,
  WindowOperatorOptions,
  WindowOutput,
} from "../../src/windows/window_operator.ts";

/** A record: its key and the value summed. */
export type Rec = { key: number; v: number };
/** An operator summing {@linkcode Rec}s into lines. */
export type Op = WindowOperator<Rec, number, number, string>;

/** Decides as EventTimeTrigger, but is another class: the general engine. */
export class GeneralEventTimeTrigger<T> extends EventTimeTrigger<T> {}

/** Options of {@linkcode sumWindow}. */
export interface SumWindowOptions {
  /** An add of a record with value 0 throws. */
  refuseZero?: boolean;
  /** Runs after each fired window's line, with its key. */
  afterFire?: (key: number) => void;
}

/**
 * Sums the values of a window and fires "key|start|end|sum".
 *
 * @param options What else it does.
 */
export function sumWindow(
  { refuseZero = false, afterFire }: SumWindowOptions = {},
): WindowFunction<Rec, number, string, number> {
  return aggregateWindow<Rec, number, number, number, string>({
    createAccumulator: () => 0,
    add(r, acc) {
      if (refuseZero && r.v === 0) throw new Error(`add of ${r.key} refused`);
      return acc + r.v;
    },
    getResult: (acc) => acc,
    merge: (a, b) => a + b,
  }, (key, ctx, [acc], out) => {
    out(`${key}|${ctx.window.start}|${ctx.window.end}|${acc}`);
    afterFire?.(key);
  });
}

/** The gap of the sessions of {@linkcode sessionOptionsOf}. */
export const GAP = 10;

/**
 * Options of an operator of event-time sessions of {@linkcode GAP}: on the
 * session engine, or (`general`) on the general engine.
 *
 * @param general Runs it on the general engine.
 * @param lateness Its allowed lateness, if any.
 * @param windowFunction Its window function.
 */
export function sessionOptionsOf(
  general: boolean,
  lateness?: number,
  windowFunction: WindowFunction<Rec, number, string, number> = sumWindow(),
): WindowOperatorOptions<Rec, number, number, string> {
  return {
    assigner: EventTimeSessionWindows.withGap<Rec>(GAP),
    keySelector: (r) => r.key,
    trigger: general ? new GeneralEventTimeTrigger<Rec>() : undefined,
    allowedLatenessMs: lateness,
    clock: new ManualClock(),
    windowFunction,
  };
}

/**
 * An output that pushes a line to `log` per result, side output and
 * watermark.
 *
 * @param log Receives the lines.
 */
export function outputOf(log: string[]): WindowOutput<string> {
  return {
    collect: (value, ts) => log.push(`fire ${value} @${ts}`),
    sideOutput: (_tag, value, ts) => log.push(`side ${value} @${ts}`),
    emitWatermark: (w) => log.push(`watermark ${w}`),
  };
}

/**
 * An operator's counters, to compare engines by.
 *
 * @param op The operator.
 */
export function counters(op: Op): number[] {
  return [
    op.currentWatermark,
    op.numWindows,
    op.numTimers,
    op.lastFiredWindowEnd,
    op.numLateRecordsDropped,
  ];
}

/**
 * Processes `[key, timestamp, v]` records as one batch.
 *
 * @param op The operator.
 * @param records The records.
 */
export function batch(op: Op, records: [number, number, number][]): void {
  op.processBatch(
    records.map(([key, , v]) => ({ key, v })),
    records.map(([, ts]) => ts),
  );
}
