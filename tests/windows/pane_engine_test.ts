// Differential property: tumbling and sliding event-time windows with the
// default trigger run on the pane engine (src/windows/_pane_engine.ts); the
// same operator with a trigger that decides as EventTimeTrigger but is not
// it runs on the general engine. Random records, watermarks, lateness,
// throwing user code and snapshot/restore (also across the two engines)
// must give both the same outputs, snapshots and counters.

import assert from "node:assert/strict";
import fc from "fast-check";
import { ManualClock } from "../../src/time/clock.ts";
import { EventTimeTrigger } from "../../src/windows/event_time_trigger.ts";
import { OutputTag } from "../../src/windows/output_tag.ts";
import { SlidingEventTimeWindows } from "../../src/windows/sliding.ts";
import { TumblingEventTimeWindows } from "../../src/windows/tumbling.ts";
import type { WindowAssigner } from "../../src/windows/window_assigner.ts";
import type { WindowFunction } from "../../src/windows/window_function.ts";
import {
  WindowOperator,
  type WindowOperatorSnapshot,
} from "../../src/windows/window_operator.ts";

type Rec = { key: number; v: number; addThrows: boolean };
type Op =
  | {
    kind: "records";
    records: { key: number; at: number; v: number }[];
    oneByOne: boolean;
  }
  | { kind: "watermark"; at: number }
  | { kind: "end" }
  | { kind: "restore"; cross: boolean }
  | { kind: "groups" };

interface Config {
  base: number;
  tumbling: boolean;
  size: number;
  slide: number;
  offset: number;
  lateness: number;
  lateTag: boolean;
  rejectRecord: boolean;
  rejectFire: boolean;
}

// Decides as EventTimeTrigger, but is another class: the general engine.
class GeneralEventTimeTrigger<T> extends EventTimeTrigger<T> {}

const late = new OutputTag<Rec>("late");
const side = new OutputTag<string>("side");

// Keeps the elements in order (so pane order and element order show), and
// throws on request: in add for a record so marked, in emit for a 13; an
// 11 makes a side output.
const elements: WindowFunction<Rec, number[], string, number> = {
  create: () => [],
  add(contents, value) {
    if (value.addThrows) throw new Error("add threw");
    return [...contents, value.v];
  },
  merge: (a, b) => a.concat(b),
  emit(key, context, contents, out) {
    // The context is plain data: it may be spread or taken apart.
    const { window: { start, end }, currentWatermark, output } = context;
    const { currentProcessingTime } = { ...context };
    out(`${key}|${start}|${end}|${currentWatermark}|${contents}`);
    out(`${key} at ${currentProcessingTime}`);
    if (contents.includes(11)) output(side, `${key} side`);
    if (contents.includes(13)) throw new Error("emit threw");
    out(`${key} done`);
  },
};

function build(config: Config, general: boolean, log: string[]) {
  const assigner: WindowAssigner<Rec> = config.tumbling
    ? TumblingEventTimeWindows.of(config.size, config.offset % config.size)
    : SlidingEventTimeWindows.of(
      config.size,
      config.slide,
      config.offset % config.slide,
    );
  return new WindowOperator<Rec, number, number[], string>({
    assigner,
    keySelector: (r) => r.key,
    windowFunction: elements,
    trigger: general ? new GeneralEventTimeTrigger() : undefined,
    allowedLatenessMs: config.lateness,
    lateDataTag: config.lateTag ? late : null,
    clock: new ManualClock(5),
    partitionOf: (key) => key % 2,
  }, {
    collect: (value, ts) => log.push(`out ${value} @${ts}`),
    sideOutput: (tag, value, ts) =>
      log.push(`side ${tag.id} ${JSON.stringify(value)} @${ts}`),
    emitWatermark: (w) => log.push(`wm ${w}`),
    rejectRecord: config.rejectRecord
      ? (value, ts, error, i) =>
        log.push(`reject ${JSON.stringify(value)} @${ts} ${error} #${i}`)
      : undefined,
    rejectFire: config.rejectFire
      ? (key, window, error, emitted) =>
        log.push(`rejectFire ${key} ${window} ${error} ${emitted}`)
      : undefined,
  });
}

type Operator = ReturnType<typeof build>;

// A snapshot with its slots in id order (groups list them by group).
function normal(snapshot: WindowOperatorSnapshot<number, number[]>) {
  return {
    ...snapshot,
    slots: [...snapshot.slots].sort((a, b) => a.id - b.id),
  };
}

function counters(operator: Operator) {
  return {
    watermark: operator.currentWatermark,
    windows: operator.numWindows,
    timers: operator.numTimers,
    late: operator.numLateRecordsDropped,
    lastFired: operator.lastFiredWindowEnd,
  };
}

// Timestamps and watermarks stay in the safe range near its ends.
function safe(time: number): number {
  return Math.max(
    Number.MIN_SAFE_INTEGER,
    Math.min(time, Number.MAX_SAFE_INTEGER),
  );
}

function apply(operator: Operator, op: Op, config: Config, log: string[]) {
  try {
    if (op.kind === "records") {
      const values = op.records.map((r) => ({
        key: r.key,
        v: r.v,
        addThrows: r.v === 7,
      }));
      // Far outside the safe range (never within the allowed lateness of
      // a watermark) they stay there: their fire timers are refused.
      const far = Math.abs(config.base) > 2 ** 53;
      const timestamps = op.records.map((r) =>
        far ? config.base + r.at : safe(config.base + r.at)
      );
      if (!op.oneByOne) return operator.processBatch(values, timestamps);
      values.forEach((value, i) => {
        try {
          operator.processElement(value, timestamps[i]);
        } catch (error) {
          log.push(`threw ${error}`);
        }
      });
    } else if (op.kind === "watermark") {
      operator.processWatermark(safe(config.base + op.at));
    } else if (op.kind === "end") {
      operator.processWatermark(Infinity);
    }
  } catch (error) {
    log.push(`threw ${error}`);
  }
}

const configs: fc.Arbitrary<Config> = fc.record({
  base: fc.constantFrom(
    0,
    -50,
    Number.MAX_SAFE_INTEGER - 40,
    Number.MIN_SAFE_INTEGER,
    -(2 ** 60),
    -1e17,
    2 ** 60,
  ),
  tumbling: fc.boolean(),
  size: fc.integer({ min: 1, max: 30 }),
  slide: fc.integer({ min: 1, max: 12 }),
  offset: fc.integer({ min: 0, max: 11 }),
  lateness: fc.constantFrom(0, 0, 3, 10, Number.MAX_SAFE_INTEGER),
  lateTag: fc.boolean(),
  rejectRecord: fc.boolean(),
  rejectFire: fc.boolean(),
});

const ops: fc.Arbitrary<Op[]> = fc.array(
  fc.oneof(
    {
      weight: 6,
      arbitrary: fc.record({
        kind: fc.constant("records" as const),
        records: fc.array(
          fc.record({
            key: fc.integer({ min: 0, max: 3 }),
            at: fc.integer({ min: -5, max: 80 }),
            v: fc.integer({ min: 0, max: 15 }),
          }),
          { minLength: 1, maxLength: 6 },
        ),
        oneByOne: fc.boolean(),
      }),
    },
    {
      weight: 3,
      arbitrary: fc.record({
        kind: fc.constant("watermark" as const),
        at: fc.integer({ min: -10, max: 90 }),
      }),
    },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant("end" as const) }) },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant("restore" as const),
        cross: fc.boolean(),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({ kind: fc.constant("groups" as const) }),
    },
  ),
  // fast-check's default size caps arrays at about 10 elements.
  { maxLength: 30, size: "max" },
);

// Runs `steps` on both engines, checking after each that their outputs,
// counters, snapshots and snapshot groups agree.
function runBoth(config: Config, steps: readonly Op[]): void {
  const panesLog: string[] = [];
  const generalLog: string[] = [];
  let panes = build(config, false, panesLog);
  let general = build(config, true, generalLog);
  for (const op of steps) {
    if (op.kind === "restore") {
      const a = structuredClone(panes.snapshot());
      const b = structuredClone(general.snapshot());
      assert.deepEqual(normal(a), normal(b));
      panes = build(config, false, panesLog);
      general = build(config, true, generalLog);
      // Across: each engine restores the other's checkpoint.
      panes.restore(op.cross ? b : a);
      general.restore(op.cross ? a : b);
    } else if (op.kind === "groups") {
      const a = panes.slotGroups();
      const b = general.slotGroups();
      // A group handed out again as it was must still hold what the
      // general engine holds now.
      const byId = (g: { id: number }[]) => [...g].sort((x, y) => x.id - y.id);
      assert.deepEqual(a.map(byId), b.map(byId));
      // Unchanged groups are the very arrays of the call before.
      const again = panes.slotGroups();
      assert.equal(again.length, a.length);
      again.forEach((group, i) => assert.equal(group, a[i]));
    } else {
      apply(panes, op, config, panesLog);
      apply(general, op, config, generalLog);
    }
    assert.deepEqual(panesLog, generalLog);
    assert.deepEqual(counters(panes), counters(general));
  }
  assert.deepEqual(normal(panes.snapshot()), normal(general.snapshot()));
}

Deno.test("WindowOperator's pane engine matches the general engine on tumbling and sliding windows", () => {
  fc.assert(
    fc.property(configs, ops, (config, steps) => runBoth(config, steps)),
    { seed: 19, numRuns: 600 },
  );
});

// Many keys a window, so that its pane columns grow past their first room
// (and past the room taken from the oldest window), and cleanups with
// lateness compact them.
const wideOps: fc.Arbitrary<Op[]> = fc.array(
  fc.oneof(
    {
      weight: 4,
      arbitrary: fc.record({
        kind: fc.constant("records" as const),
        records: fc.array(
          fc.record({
            key: fc.integer({ min: 0, max: 60 }),
            at: fc.integer({ min: -5, max: 80 }),
            v: fc.integer({ min: 0, max: 15 }),
          }),
          { minLength: 1, maxLength: 80, size: "max" },
        ),
        oneByOne: fc.boolean(),
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant("watermark" as const),
        at: fc.integer({ min: -10, max: 90 }),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant("restore" as const),
        cross: fc.boolean(),
      }),
    },
  ),
  { maxLength: 12, size: "max" },
);

Deno.test("WindowOperator's pane engine matches the general engine with many keys a window (columns that grow and compact)", () => {
  fc.assert(
    fc.property(
      configs,
      wideOps,
      (config, steps) => runBoth(config, [...steps, { kind: "end" }]),
    ),
    { seed: 19, numRuns: 150 },
  );
});
