// Two operators of event-time sessions run side by side on the same steps:
// one with the default EventTimeTrigger (the session engine, and the
// general engine's lazy path after a handover), one with a trigger that
// behaves like EventTimeTrigger but is not it (the merging path); each logs
// everything it makes observable, for the differential tests of
// tests/windows/window_operator_lazy_sessions_test.ts.

import assert from "node:assert/strict";
import { ManualClock } from "../../src/time/clock.ts";
import { EventTimeTrigger } from "../../src/windows/event_time_trigger.ts";
import { OutputTag } from "../../src/windows/output_tag.ts";
import { EventTimeSessionWindows } from "../../src/windows/session.ts";
import type { Trigger } from "../../src/windows/trigger.ts";
import { aggregateWindow } from "../../src/windows/window_function.ts";
import {
  WindowOperator,
  type WindowOperatorSnapshot,
  type WindowSlotSnapshot,
} from "../../src/windows/window_operator.ts";

export type Rec = { key: number; value: number };
export type Step =
  | { kind: "records"; records: { key: number; ts: number; value: number }[] }
  | { kind: "element"; key: number; ts: number; value: number }
  | { kind: "watermark"; to: number }
  | { kind: "snapshot"; restore: boolean };
export type Setup = {
  /** The window function advances the clock by 1 ms per fired window. */
  tick: boolean;
  /** A snapshot step also restores the snapshot into the live operator. */
  selfRestore: boolean;
  gap: number;
  lateness: number;
  base: number;
  tagged: boolean;
  rejectFire: boolean;
};

/** EventTimeTrigger in behaviour, but not it: the operator merges eagerly. */
export class LikeEventTimeTrigger<T> extends EventTimeTrigger<T> {}

const LATE = new OutputTag<Rec>("late");

/** One operator and everything it made observable, in order. */
export class Run {
  readonly log: string[] = [];
  operator: WindowOperator<Rec, number, number, string>;
  #previousGroups: WindowSlotSnapshot<number, number>[][] = [];

  constructor(readonly setup: Setup, readonly lazy: boolean) {
    this.operator = this.#create();
  }

  #create(): WindowOperator<Rec, number, number, string> {
    const log = this.log;
    const clock = new ManualClock();
    const tick = this.setup.tick;
    const trigger: Trigger<Rec> | undefined = this.lazy
      ? undefined
      : new LikeEventTimeTrigger<Rec>();
    return new WindowOperator<Rec, number, number, string>({
      assigner: EventTimeSessionWindows.withGap<Rec>(this.setup.gap),
      keySelector: (r) => r.key,
      trigger,
      allowedLatenessMs: this.setup.lateness,
      lateDataTag: this.setup.tagged ? LATE : null,
      partitionOf: (key) => key % 2,
      clock,
      windowFunction: aggregateWindow<Rec, number, number, number, string>({
        createAccumulator: () => 0,
        add(r, acc) {
          if (r.value === 0) throw new Error(`add of ${r.key} refused`);
          return acc + r.value * 1000 + 1;
        },
        getResult: (acc) => acc,
        merge: (a, b) => a + b,
      }, (key, ctx, [acc], out) => {
        // With tick, also what the window is handed besides its contents.
        out(
          `${key}|${ctx.window.start}|${ctx.window.end}|${acc}` +
            (tick
              ? `|now ${ctx.currentProcessingTime} wm ${ctx.currentWatermark}`
              : ""),
        );
        if (tick) clock.advance(1);
        // Some sessions throw once they emitted.
        if (acc % 11 === 3) throw new Error(`emit of ${key} refused`);
      }),
    }, {
      collect: (value, ts) => log.push(`fire ${value} @${ts}`),
      sideOutput: (tag, value, ts) =>
        log.push(`side ${tag.id} ${JSON.stringify(value)} @${ts}`),
      emitWatermark: (w) => log.push(`watermark ${w}`),
      rejectFire: this.setup.rejectFire
        ? (key, window, error, emitted) =>
          log.push(
            `rejectFire ${key} ${window} ${emitted}: ${
              (error as Error).message
            }`,
          )
        : undefined,
      rejectRecord: (value, ts, error, index) =>
        log.push(
          `reject ${JSON.stringify(value)} @${ts} #${index}: ${
            (error as Error).message
          }`,
        ),
    });
  }

  step(step: Step, other: Run): void {
    const base = this.setup.base;
    const operator = this.operator;
    switch (step.kind) {
      case "records": {
        const values = step.records.map(({ key, value }) => ({ key, value }));
        operator.processBatch(values, step.records.map((r) => base + r.ts));
        break;
      }
      case "element":
        try {
          operator.processElement(
            { key: step.key, value: step.value },
            base + step.ts,
          );
        } catch (error) {
          this.log.push(`threw ${(error as Error).message}`);
        }
        break;
      case "watermark":
        try {
          operator.processWatermark(base + step.to);
        } catch (error) {
          this.log.push(`threw ${(error as Error).message}`);
        }
        break;
      case "snapshot":
        this.#snapshot(other);
        if (this.setup.selfRestore) {
          // Into the live operator: an engine revived mid-run.
          operator.restore(structuredClone(this.snapshot!));
          this.log.push("restored its own snapshot");
        }
    }
    this.log.push(
      `counters ${operator.numWindows} ${operator.numTimers} ${operator.lastFiredWindowEnd} ${operator.numLateRecordsDropped} ${operator.currentWatermark}`,
    );
  }

  // Which groups are the very arrays of the last call, then the snapshot.
  #snapshot(other: Run): void {
    const groups = this.operator.slotGroups();
    const reused = groups.map((group) => this.#previousGroups.includes(group));
    this.#previousGroups = groups;
    this.log.push(`groups reused ${reused}`);
    this.snapshot = structuredClone(this.operator.snapshot());
    this.other = other;
  }

  snapshot: WindowOperatorSnapshot<number, number> | null = null;
  other: Run | null = null;

  /** Continues on a fresh operator restored from the other run's snapshot. */
  restoreFromOther(): void {
    const snapshot = this.other!.snapshot!;
    this.operator = this.#create();
    this.operator.restore(structuredClone(snapshot));
    this.#previousGroups = [];
  }
}

/**
 * Runs `steps` on both operators, checking they agree after each, then the
 * end of input; returns the (common) log.
 */
export function runBoth(setup: Setup, steps: Step[]): string[] {
  const lazy = new Run(setup, true);
  const eager = new Run(setup, false);
  for (const step of steps) {
    lazy.step(step, eager);
    eager.step(step, lazy);
    if (step.kind === "snapshot") {
      assert.deepEqual(lazy.snapshot, eager.snapshot);
      // Crosswise: each path goes on from the other's snapshot.
      if (step.restore) {
        lazy.restoreFromOther();
        eager.restoreFromOther();
      }
    }
    assert.deepEqual(lazy.log, eager.log);
  }
  // The end of input: every session fires and goes.
  lazy.step({ kind: "watermark", to: Infinity }, eager);
  eager.step({ kind: "watermark", to: Infinity }, lazy);
  assert.deepEqual(lazy.log, eager.log);
  assert.deepEqual(lazy.operator.snapshot(), eager.operator.snapshot());
  return lazy.log;
}
