// Differential property: event-time sessions with the default
// EventTimeTrigger (the session engine, _session_engine.ts, and the general
// engine's lazy path after it hands over) behave exactly as on the merging
// path (a trigger that behaves like EventTimeTrigger but is not it), on
// random records, batches, watermarks, allowed lateness, late-data tags,
// adds that throw, window functions that throw on fire (with and without
// rejectFire), and snapshot/restore points: the same results in the same
// order, the same counters after every step, the same snapshots, and either
// snapshot restores into either path with the same results.

import assert from "node:assert/strict";
import fc from "fast-check";
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

type Rec = { key: number; value: number };
type Step =
  | { kind: "records"; records: { key: number; ts: number; value: number }[] }
  | { kind: "element"; key: number; ts: number; value: number }
  | { kind: "watermark"; to: number }
  | { kind: "snapshot"; restore: boolean };
type Setup = {
  gap: number;
  lateness: number;
  base: number;
  tagged: boolean;
  rejectFire: boolean;
};

/** EventTimeTrigger in behaviour, but not it: the operator merges eagerly. */
class LikeEventTimeTrigger<T> extends EventTimeTrigger<T> {}

const LATE = new OutputTag<Rec>("late");

/** One operator and everything it made observable, in order. */
class Run {
  readonly log: string[] = [];
  operator: WindowOperator<Rec, number, number, string>;
  #previousGroups: WindowSlotSnapshot<number, number>[][] = [];

  constructor(readonly setup: Setup, readonly lazy: boolean) {
    this.operator = this.#create();
  }

  #create(): WindowOperator<Rec, number, number, string> {
    const log = this.log;
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
      clock: new ManualClock(),
      windowFunction: aggregateWindow<Rec, number, number, number, string>({
        createAccumulator: () => 0,
        add(r, acc) {
          if (r.value === 0) throw new Error(`add of ${r.key} refused`);
          return acc + r.value * 1000 + 1;
        },
        getResult: (acc) => acc,
        merge: (a, b) => a + b,
      }, (key, ctx, [acc], out) => {
        out(`${key}|${ctx.window.start}|${ctx.window.end}|${acc}`);
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

const record = fc.record({
  key: fc.integer({ min: 0, max: 3 }),
  ts: fc.integer({ min: 0, max: 440 }),
  // 0 makes the add throw.
  value: fc.oneof(
    { arbitrary: fc.integer({ min: 1, max: 9 }), weight: 12 },
    { arbitrary: fc.constant(0), weight: 1 },
  ),
});

const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  {
    arbitrary: fc.record({
      kind: fc.constant("records" as const),
      records: fc.array(record, { minLength: 1, maxLength: 8 }),
    }),
    weight: 6,
  },
  {
    arbitrary: record.map((r) => ({ kind: "element" as const, ...r })),
    weight: 3,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant("watermark" as const),
      to: fc.integer({ min: -10, max: 420 }),
    }),
    weight: 3,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant("snapshot" as const),
      restore: fc.boolean(),
    }),
    weight: 2,
  },
);

// Mostly ascending time (records after their key's session, as in real
// streams), so that the lazy path is taken, with some out of order.
const stepsArbitrary = fc.tuple(
  fc.array(stepArbitrary, { maxLength: 80 }),
  fc.boolean(),
).map(([steps, sorted]) => {
  if (!sorted) return steps;
  let clock = 0;
  return steps.map((step): Step => {
    const at = (ts: number) => (clock += ts % 7);
    switch (step.kind) {
      case "records":
        return {
          kind: "records",
          records: step.records.map((r) => ({ ...r, ts: at(r.ts) })),
        };
      case "element":
        return { ...step, ts: at(step.ts) };
      case "watermark":
        return { kind: "watermark", to: clock - (step.to % 25) };
      default:
        return step;
    }
  });
});

const setupArbitrary: fc.Arbitrary<Setup> = fc.record({
  gap: fc.integer({ min: 1, max: 40 }),
  lateness: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 60 })),
  // Near the end of the safe range, session ends clip and cleanup times
  // leave it.
  base: fc.constantFrom(0, 1_700_000_000_000, Number.MAX_SAFE_INTEGER - 430),
  tagged: fc.boolean(),
  rejectFire: fc.boolean(),
});

function runBoth(setup: Setup, steps: Step[]): void {
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
}

Deno.test("WindowOperator's lazy sessions behave as merging sessions: results, order, counters, snapshots and restores (property)", () => {
  fc.assert(
    fc.property(setupArbitrary, stepsArbitrary, runBoth),
    { numRuns: 2_000, seed: 19 },
  );
});

Deno.test("WindowOperator's lazy sessions keep a session's timer at its old end until it is due, then fire at the session's end", () => {
  const setup = {
    gap: 10,
    lateness: 0,
    base: 0,
    tagged: false,
    rejectFire: false,
  };
  const steps: Step[] = [
    { kind: "element", key: 1, ts: 0, value: 1 },
    { kind: "element", key: 1, ts: 8, value: 2 },
    { kind: "element", key: 1, ts: 15, value: 3 },
    { kind: "watermark", to: 9 },
    { kind: "watermark", to: 24 },
    { kind: "element", key: 1, ts: 30, value: 4 },
    { kind: "watermark", to: 39 },
  ];
  const lazy = new Run(setup, true);
  const eager = new Run(setup, false);
  for (const step of steps) {
    lazy.step(step, eager);
    eager.step(step, lazy);
  }
  assert.deepEqual(lazy.log, eager.log);
  assert.deepEqual(lazy.log.filter((line) => line.startsWith("fire")), [
    "fire 1|0|25|6003 @24",
    "fire 1|30|40|4001 @39",
  ]);
});

Deno.test("WindowOperator's lazy sessions restore a session that lost its cleanup timer to an add that threw as it grew, as merging sessions do", () => {
  const setup = {
    gap: 10,
    lateness: 5,
    base: 0,
    tagged: false,
    rejectFire: false,
  };
  const steps: Step[] = [
    { kind: "element", key: 1, ts: 0, value: 1 },
    // Grows the session, then the add throws: no cleanup timer until the
    // session's next record, on either path.
    { kind: "element", key: 1, ts: 5, value: 0 },
    { kind: "snapshot", restore: true },
    // In the session, then growing it: the merging path registers the
    // cleanup timer only when it grows.
    { kind: "element", key: 1, ts: 5, value: 2 },
    { kind: "element", key: 1, ts: 7, value: 3 },
    { kind: "watermark", to: 100 },
  ];
  const lazy = new Run(setup, true);
  const eager = new Run(setup, false);
  for (const step of steps) {
    lazy.step(step, eager);
    eager.step(step, lazy);
    if (step.kind === "snapshot") {
      assert.deepEqual(lazy.snapshot, eager.snapshot);
      lazy.restoreFromOther();
      eager.restoreFromOther();
    }
    assert.deepEqual(lazy.log, eager.log);
  }
  assert.ok(lazy.log.includes("fire 1|0|17|6003 @16"));
});
