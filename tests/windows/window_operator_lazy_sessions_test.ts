// Differential property: event-time sessions with the default
// EventTimeTrigger (the session engine, _session_engine.ts, and the general
// engine's lazy path after it hands over) behave exactly as on the merging
// path (a trigger that behaves like EventTimeTrigger but is not it), on
// random records, batches, watermarks, allowed lateness, late-data tags,
// adds that throw, window functions that throw on fire (with and without
// rejectFire), window functions that move the clock, watermarks up to
// Infinity mid-run, gaps up to MAX_SAFE_INTEGER near both ends of the safe
// range, and snapshot/restore points: the same results in the same order,
// the same counters after every step, the same snapshots, and either
// snapshot restores into either path, or into the live operator, with the
// same results. Histories are long (size "max"); one property keeps time
// ordered per key with many equal session ends, as real streams do.

import assert from "node:assert/strict";
import fc from "fast-check";
import {
  Run,
  runBoth,
  type Setup,
  type Step,
} from "../_support/session_runs.ts";

// Long histories: the whole file runs in well under 20 s.
const NUM_RUNS = 2_000;

const record = fc.record({
  key: fc.integer({ min: 0, max: 7 }),
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
      to: fc.oneof(
        { arbitrary: fc.integer({ min: -10, max: 420 }), weight: 20 },
        { arbitrary: fc.constant(Infinity), weight: 1 },
      ),
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
  fc.array(stepArbitrary, { maxLength: 80, size: "max" }),
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
        return {
          kind: "watermark",
          to: step.to === Infinity ? Infinity : clock - (step.to % 25),
        };
      default:
        return step;
    }
  });
});

const setupArbitrary: fc.Arbitrary<Setup> = fc.record({
  tick: fc.boolean(),
  selfRestore: fc.boolean(),
  gap: fc.oneof(
    { arbitrary: fc.integer({ min: 1, max: 40 }), weight: 8 },
    { arbitrary: fc.constantFrom(2 ** 52, Number.MAX_SAFE_INTEGER), weight: 1 },
  ),
  lateness: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 60 })),
  // Near the end of the safe range, session ends clip and cleanup times
  // leave it; near its start, session starts are far below 0.
  base: fc.constantFrom(
    0,
    1_700_000_000_000,
    Number.MIN_SAFE_INTEGER,
    Number.MIN_SAFE_INTEGER + 5,
    Number.MAX_SAFE_INTEGER - 430,
    Number.MAX_SAFE_INTEGER - 100,
  ),
  tagged: fc.boolean(),
  rejectFire: fc.boolean(),
});

// Time ordered per key, as in real streams: many keys, small gaps, steps of
// 0-3 ms (many sessions ending at once) and watermarks close behind.
const orderedStepsArbitrary: fc.Arbitrary<Step[]> = fc.array(
  fc.oneof(
    {
      arbitrary: fc.array(
        fc.record({
          key: fc.integer({ min: 0, max: 15 }),
          ts: fc.integer({ min: 0, max: 3 }),
          value: fc.oneof(
            { arbitrary: fc.integer({ min: 1, max: 9 }), weight: 15 },
            { arbitrary: fc.constant(0), weight: 1 },
          ),
        }),
        { minLength: 1, maxLength: 12 },
      ).map((records) => ({ kind: "records" as const, records })),
      weight: 6,
    },
    {
      arbitrary: fc.record({
        kind: fc.constant("element" as const),
        key: fc.integer({ min: 0, max: 15 }),
        ts: fc.integer({ min: 0, max: 3 }),
        value: fc.integer({ min: 0, max: 9 }),
      }),
      weight: 2,
    },
    {
      arbitrary: fc.integer({ min: 0, max: 12 }).map((to) => ({
        kind: "watermark" as const,
        to,
      })),
      weight: 4,
    },
    {
      arbitrary: fc.boolean().map((restore) => ({
        kind: "snapshot" as const,
        restore,
      })),
      weight: 1,
    },
  ),
  { minLength: 10, maxLength: 150, size: "max" },
).map((steps) => {
  // Each step's ts is the time since the previous record; a watermark's to
  // is how far it stays behind the latest record.
  let clock = 0;
  return steps.map((step): Step => {
    switch (step.kind) {
      case "records":
        return {
          kind: "records",
          records: step.records.map((r) => ({ ...r, ts: clock += r.ts })),
        };
      case "element":
        return { ...step, ts: clock += step.ts };
      case "watermark":
        return { kind: "watermark", to: clock - step.to };
      default:
        return step;
    }
  });
});

const orderedSetupArbitrary: fc.Arbitrary<Setup> = fc.record({
  tick: fc.boolean(),
  selfRestore: fc.boolean(),
  gap: fc.integer({ min: 1, max: 8 }),
  lateness: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 10 })),
  base: fc.constantFrom(
    0,
    Number.MIN_SAFE_INTEGER,
    Number.MAX_SAFE_INTEGER - 300,
  ),
  tagged: fc.boolean(),
  rejectFire: fc.boolean(),
});

Deno.test("WindowOperator's lazy sessions behave as merging sessions: results, order, counters, snapshots and restores (property)", () => {
  fc.assert(
    fc.property(setupArbitrary, stepsArbitrary, (setup, steps) => {
      runBoth(setup, steps);
    }),
    { numRuns: NUM_RUNS, seed: 19 },
  );
});

Deno.test("WindowOperator's lazy sessions behave as merging sessions on time ordered per key, with many sessions ending at once (property)", () => {
  fc.assert(
    fc.property(
      orderedSetupArbitrary,
      orderedStepsArbitrary,
      (setup, steps) => {
        runBoth(setup, steps);
      },
    ),
    { numRuns: NUM_RUNS, seed: 19 },
  );
});

Deno.test("WindowOperator's lazy sessions keep a session's timer at its old end until it is due, then fire at the session's end", () => {
  const setup = {
    gap: 10,
    lateness: 0,
    base: 0,
    tick: false,
    selfRestore: false,
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
    tick: false,
    selfRestore: false,
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
  assert.ok(runBoth(setup, steps).includes("fire 1|0|17|6003 @16"));
});
