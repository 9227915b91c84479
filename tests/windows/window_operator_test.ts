import assert from "node:assert/strict";
import { EventTimeSessionWindows } from "../../src/windows/session.ts";
import { SlidingEventTimeWindows } from "../../src/windows/sliding.ts";
import { TumblingEventTimeWindows } from "../../src/windows/tumbling.ts";
import { CountTrigger } from "../../src/windows/count_trigger.ts";
import { EventTimeTrigger } from "../../src/windows/event_time_trigger.ts";
import { OutputTag } from "../../src/windows/output_tag.ts";
import { PurgingTrigger } from "../../src/windows/purging_trigger.ts";
import type { Trigger } from "../../src/windows/trigger.ts";
import { aggregateWindow } from "../../src/windows/window_function.ts";
import { WindowOperator } from "../../src/windows/window_operator.ts";
import { ManualClock } from "../../src/time/clock.ts";
import {
  type KV,
  sessionSumHarness,
  sumHarness,
} from "../_support/window_harness.ts";

const late = new OutputTag<KV>("late");

function sorted(values: string[]): string[] {
  return [...values].sort();
}

function feedFlinkInputs(
  h: { element(k: string, v: number, ts: number): unknown },
): void {
  h.element("key2", 1, 3999);
  h.element("key2", 1, 3000);
  h.element("key1", 1, 20);
  h.element("key1", 1, 0);
  h.element("key1", 1, 999);
  h.element("key2", 1, 1998);
  h.element("key2", 1, 1999);
  h.element("key2", 1, 1000);
}

Deno.test("WindowOperator fires tumbling windows when the watermark reaches their end, across a restore (tumbling table)", () => {
  const h = sumHarness(TumblingEventTimeWindows.of(3_000));
  feedFlinkInputs(h);
  assert.deepEqual(h.watermark(999).take(), []);
  assert.deepEqual(h.watermark(1999).take(), []);
  h.snapshotAndRestore();
  assert.deepEqual(sorted(h.watermark(2999).take()), [
    "(key1,3)@2999",
    "(key2,3)@2999",
  ]);
  assert.deepEqual(h.watermark(3999).watermark(4999).take(), []);
  assert.deepEqual(h.watermark(5999).take(), ["(key2,2)@5999"]);
  assert.deepEqual(h.watermark(6999).watermark(7999).take(), []);
  assert.equal(h.operator.numWindows, 0);
  assert.equal(h.operator.numTimers, 0);
});

Deno.test("WindowOperator fires sliding windows at every slide, across a restore (sliding table)", () => {
  const h = sumHarness(SlidingEventTimeWindows.of(3_000, 1_000));
  feedFlinkInputs(h);
  assert.deepEqual(h.watermark(999).take(), ["(key1,3)@999"]);
  assert.deepEqual(sorted(h.watermark(1999).take()), [
    "(key1,3)@1999",
    "(key2,3)@1999",
  ]);
  assert.deepEqual(sorted(h.watermark(2999).take()), [
    "(key1,3)@2999",
    "(key2,3)@2999",
  ]);
  h.snapshotAndRestore();
  assert.deepEqual(h.watermark(3999).take(), ["(key2,5)@3999"]);
  assert.deepEqual(h.watermark(4999).take(), ["(key2,2)@4999"]);
  assert.deepEqual(h.watermark(5999).take(), ["(key2,2)@5999"]);
  assert.deepEqual(h.watermark(6999).watermark(7999).take(), []);
  assert.equal(h.operator.numWindows, 0);
});

Deno.test("WindowOperator forwards each watermark after the results it caused", () => {
  const h = sumHarness(TumblingEventTimeWindows.of(3_000));
  feedFlinkInputs(h);
  h.watermark(2999);
  assert.deepEqual(h.emitted.slice(-3).map((e) => e.startsWith("W")), [
    false,
    false,
    true,
  ]);
  assert.equal(h.emitted.at(-1), "W2999");
});

Deno.test("WindowOperator drops a watermark that does not advance", () => {
  const h = sumHarness(TumblingEventTimeWindows.of(3_000));
  h.watermark(10).watermark(10).watermark(5);
  assert.deepEqual(h.emitted, ["W10"]);
});

Deno.test("WindowOperator merges session windows and fires them, across a restore (session table)", () => {
  const h = sessionSumHarness(EventTimeSessionWindows.withGap(3_000));
  h.element("key2", 1, 0).element("key2", 2, 1000).element("key2", 3, 2500);
  h.element("key1", 1, 10).element("key1", 2, 1000);
  h.snapshotAndRestore();
  h.element("key1", 3, 2500).element("key2", 4, 5501).element("key2", 5, 6000);
  h.element("key2", 5, 6000).element("key2", 6, 6050);
  assert.deepEqual(sorted(h.watermark(12_000).take()), [
    "(key1-6,10,5500)@5499",
    "(key2-20,5501,9050)@9049",
    "(key2-6,0,5500)@5499",
  ]);
  h.element("key2", 10, 15_000).element("key2", 20, 15_000);
  assert.deepEqual(h.watermark(17_999).take(), ["(key2-30,15000,18000)@17999"]);
  assert.equal(h.operator.numWindows, 0);
});

Deno.test("WindowOperator fires merged sessions with a purging count trigger, summing counts on merge (session count table)", () => {
  const h = sessionSumHarness(EventTimeSessionWindows.withGap(3_000), {
    trigger: PurgingTrigger.of(CountTrigger.of<KV>(4)),
  });
  h.element("key2", 1, 0).element("key2", 2, 1000).element("key2", 3, 2500);
  assert.deepEqual(h.take(), []);
  h.element("key2", 4, 3500);
  assert.deepEqual(h.take(), ["(key2-10,0,6500)@6499"]);
  h.element("key1", 1, 10).element("key1", 2, 1000);
  h.snapshotAndRestore();
  h.element("key1", 3, 2500).element("key1", 1, 6000).element("key1", 2, 6500);
  h.element("key1", 3, 7000);
  assert.deepEqual(h.take(), []);
  h.element("key1", 10, 4500);
  assert.deepEqual(h.take(), ["(key1-22,10,10000)@9999"]);
});

Deno.test("WindowOperator fires again for records within allowed lateness and side-outputs later ones (tumbling lateness 500)", () => {
  const h = sumHarness(TumblingEventTimeWindows.of(2_000), {
    allowedLatenessMs: 500,
    trigger: PurgingTrigger.of(EventTimeTrigger.create<KV>()),
    lateDataTag: late,
  });
  assert.deepEqual(h.element("key2", 1, 500).watermark(1500).take(), []);
  assert.deepEqual(h.element("key2", 1, 1300).watermark(2300).take(), [
    "(key2,2)@1999",
  ]);
  assert.deepEqual(h.element("key2", 1, 1997).take(), ["(key2,1)@1999"]);
  assert.deepEqual(h.watermark(6000).take(), []);
  assert.equal(h.operator.numWindows, 0);
  assert.deepEqual(h.element("key2", 1, 1998).take(), ["late key2:1@1998"]);
});

Deno.test("WindowOperator side-outputs a record whose window already fired with lateness 0 (tumbling lateness 0)", () => {
  const h = sumHarness(TumblingEventTimeWindows.of(2_000), {
    lateDataTag: late,
  });
  assert.deepEqual(h.element("key2", 1, 1000).watermark(1985).take(), []);
  assert.deepEqual(h.element("key2", 1, 1980).watermark(1999).take(), [
    "(key2,2)@1999",
  ]);
  assert.deepEqual(h.element("key2", 1, 1998).take(), ["late key2:1@1998"]);
  assert.deepEqual(h.element("key2", 1, 2001).watermark(2999).take(), []);
  assert.deepEqual(h.watermark(3999).take(), ["(key2,1)@3999"]);
});

Deno.test("WindowOperator counts late records as dropped when no late tag is set", () => {
  const h = sumHarness(TumblingEventTimeWindows.of(2_000));
  h.element("key2", 1, 1000).watermark(1999);
  h.element("key2", 1, 1998).element("key2", 1, 5);
  assert.deepEqual(h.take(), ["(key2,1)@1999"]);
  assert.equal(h.operator.numLateRecordsDropped, 2);
});

Deno.test("WindowOperator keeps a sliding record for its live windows and side-outputs it only when all are late (sliding lateness)", () => {
  const h = sumHarness(SlidingEventTimeWindows.of(3_000, 1_000), {
    lateDataTag: late,
  });
  assert.deepEqual(h.element("key2", 1, 1000).watermark(1999).take(), [
    "(key2,1)@1999",
  ]);
  assert.deepEqual(h.element("key2", 1, 2000).watermark(3000).take(), [
    "(key2,2)@2999",
  ]);
  h.element("key1", 1, 3001).element("key2", 1, 2400).element("key2", 1, 2400);
  h.element("key1", 1, 3001).element("key2", 1, 3900);
  assert.deepEqual(h.take(), []);
  assert.deepEqual(sorted(h.watermark(6000).take()), [
    "(key1,2)@3999",
    "(key1,2)@4999",
    "(key1,2)@5999",
    "(key2,1)@5999",
    "(key2,4)@4999",
    "(key2,5)@3999",
  ]);
  assert.deepEqual(h.element("key1", 1, 3001).take(), ["late key1:1@3001"]);
  assert.deepEqual(h.watermark(25_000).take(), []);
});

function sessionLatenessPrefix(trigger?: Trigger<KV>, allowedLatenessMs = 0) {
  const h = sessionSumHarness(EventTimeSessionWindows.withGap(3_000), {
    trigger,
    allowedLatenessMs,
    lateDataTag: late,
  });
  assert.deepEqual(h.element("key2", 1, 1000).watermark(1999).take(), []);
  assert.deepEqual(h.element("key2", 1, 2000).watermark(4998).take(), []);
  h.element("key2", 1, 4500).element("key2", 1, 8500);
  assert.deepEqual(h.watermark(7400).take(), []);
  assert.deepEqual(h.element("key2", 1, 7000).watermark(11_501).take(), [
    "(key2-5,1000,11500)@11499",
  ]);
  assert.deepEqual(h.element("key2", 1, 11_600).watermark(14_600).take(), [
    "(key2-1,11600,14600)@14599",
  ]);
  return h;
}

for (
  const [name, trigger] of [
    ["EventTimeTrigger", undefined],
    [
      "PurgingTrigger(EventTimeTrigger)",
      PurgingTrigger.of(EventTimeTrigger.create<KV>()),
    ],
  ] as const
) {
  Deno.test(`WindowOperator side-outputs records for sessions already cleaned up with ${name} (session lateness 0)`, () => {
    const h = sessionLatenessPrefix(trigger);
    assert.deepEqual(h.element("key2", 1, 10_000).take(), [
      "late key2:1@10000",
    ]);
    assert.deepEqual(h.element("key2", 1, 10_100).take(), [
      "late key2:1@10100",
    ]);
    assert.deepEqual(h.element("key2", 1, 14_500).watermark(20_000).take(), [
      "(key2-1,14500,17500)@17499",
    ]);
  });
}

Deno.test("WindowOperator merges a late record into a session still alive within lateness 10 and fires at once, purging", () => {
  const h = sessionLatenessPrefix(
    PurgingTrigger.of(EventTimeTrigger.create<KV>()),
    10,
  );
  assert.deepEqual(h.element("key2", 1, 10_000).take(), [
    "(key2-1,10000,14600)@14599",
  ]);
  assert.deepEqual(h.element("key2", 1, 14_500).watermark(20_000).take(), [
    "(key2-1,10000,17500)@17499",
  ]);
});

Deno.test("WindowOperator merges a late record into a session still alive within lateness 10 and fires accumulated contents", () => {
  const h = sessionLatenessPrefix(undefined, 10);
  assert.deepEqual(h.element("key2", 1, 10_000).take(), [
    "(key2-2,10000,14600)@14599",
  ]);
  assert.deepEqual(h.element("key2", 1, 14_500).take(), []);
  assert.deepEqual(h.watermark(20_000).take(), ["(key2-3,10000,17500)@17499"]);
});

Deno.test("WindowOperator merges every live session with lateness 10000, purging and accumulating", () => {
  const purging = sessionLatenessPrefix(
    PurgingTrigger.of(EventTimeTrigger.create<KV>()),
    10_000,
  );
  assert.deepEqual(purging.element("key2", 1, 10_000).take(), [
    "(key2-1,1000,14600)@14599",
  ]);
  assert.deepEqual(
    purging.element("key2", 1, 14_500).watermark(20_000).take(),
    [
      "(key2-1,1000,17500)@17499",
    ],
  );
  const accumulating = sessionLatenessPrefix(undefined, 10_000);
  assert.deepEqual(accumulating.element("key2", 1, 10_000).take(), [
    "(key2-7,1000,14600)@14599",
  ]);
  assert.deepEqual(
    accumulating.element("key2", 1, 14_500).watermark(20_000).take(),
    [
      "(key2-8,1000,17500)@17499",
    ],
  );
});

Deno.test("WindowOperator cleans a tumbling window up at maxTimestamp + allowedLateness (cleanup)", () => {
  const h = sumHarness(TumblingEventTimeWindows.of(2_000), {
    allowedLatenessMs: 1,
  });
  assert.deepEqual(h.element("key2", 1, 1000).watermark(1599).take(), []);
  assert.deepEqual(h.watermark(1999).take(), ["(key2,1)@1999"]);
  assert.equal(h.operator.numWindows, 1);
  assert.deepEqual(h.watermark(2000).take(), []);
  assert.equal(h.operator.numWindows, 0);
  assert.equal(h.operator.numTimers, 0);
  assert.deepEqual(h.watermark(5000).take(), []);
});

Deno.test("WindowOperator cleans a session window up after its lateness (cleanup)", () => {
  const h = sessionSumHarness(EventTimeSessionWindows.withGap(3_000), {
    allowedLatenessMs: 10,
  });
  assert.deepEqual(h.element("key2", 1, 1000).watermark(4998).take(), [
    "(key2-1,1000,4000)@3999",
  ]);
  assert.deepEqual(h.watermark(14_600).take(), []);
  assert.equal(h.operator.numWindows, 0);
});

Deno.test("WindowOperator registers no cleanup timer when cleanup time leaves the safe range (overflow)", () => {
  const h = sumHarness(TumblingEventTimeWindows.of(1_000), {
    allowedLatenessMs: 2_000,
  });
  const ts = Number.MAX_SAFE_INTEGER - 1750;
  h.element("key2", 1, ts);
  const maxTimestamp = Number.MAX_SAFE_INTEGER - 992; // window [..739000, ..740000)
  assert.equal(h.operator.numTimers, 1); // the trigger's timer only
  assert.deepEqual(h.watermark(Number.MAX_SAFE_INTEGER - 1500).take(), []);
  assert.deepEqual(h.watermark(maxTimestamp).take(), [
    `(key2,1)@${maxTimestamp}`,
  ]);
  assert.equal(h.operator.numWindows, 1);
});

Deno.test("WindowOperator rejects a merge that would end before the watermark", () => {
  const h = sessionSumHarness(EventTimeSessionWindows.withGap(3_000));
  h.element("key2", 1, 1000);
  // A window left without its cleanup timer (as a corrupted snapshot would be).
  const snapshot = h.operator.snapshot();
  h.operator.restore({
    ...snapshot,
    timers: { ...snapshot.timers, eventTime: [] },
  });
  h.watermark(10_000);
  assert.throws(() => h.element("key2", 1, 3_500), {
    name: "RangeError",
    message:
      /cannot become earlier than the current watermark by merging.*10000.*\[1000, 6500\)/,
  });
});

Deno.test("WindowOperator rejects a negative allowed lateness", () => {
  assert.throws(
    () =>
      sumHarness(TumblingEventTimeWindows.of(1_000), { allowedLatenessMs: -1 }),
    {
      name: "RangeError",
      message: /'allowedLatenessMs'.*-1/,
    },
  );
});

// A count per key whose trigger throws for the value 99, after changing
// its state and its timers; the results are "key:count@ts".
function failingCount(rejected: unknown[][]) {
  const count = CountTrigger.of<KV>(3);
  const trigger: Trigger<KV> = {
    canMerge: false,
    onElement(e, ts, w, c) {
      const result = count.onElement(e, ts, w, c);
      c.registerEventTimeTimer(w.maxTimestamp());
      if (e[1] === 99) {
        c.registerEventTimeTimer(5);
        c.deleteEventTimeTimer(w.maxTimestamp());
        throw new Error("Cannot trigger on 99");
      }
      return result;
    },
    onEventTime: () => "fire",
    onProcessingTime: () => "continue",
    onMerge: () => {},
    clear: (w, c) => count.clear(w, c),
  };
  const emitted: string[] = [];
  const operator = new WindowOperator<KV, string, number, string>({
    assigner: TumblingEventTimeWindows.of(10),
    keySelector: (kv) => kv[0],
    trigger,
    windowFunction: aggregateWindow<KV, number, number, string, string>({
      createAccumulator: () => 0,
      add: (_kv, n) => n + 1,
      getResult: (n) => n,
      merge: (a, b) => a + b,
    }, (key, _ctx, [n], out) => out(`${key}:${n}`)),
    clock: new ManualClock(0),
  }, {
    collect: (value, ts) => emitted.push(`${value}@${ts}`),
    sideOutput() {},
    emitWatermark() {},
    rejectRecord: (value, ts, error, index) =>
      rejected.push([value, ts, (error as Error).message, index]),
  });
  return { operator, emitted };
}

Deno.test("WindowOperator.processBatch() rejects each record whose trigger throws, in a new or an existing window, and goes on with the batch", () => {
  const rejected: unknown[][] = [];
  const { operator, emitted } = failingCount(rejected);
  operator.processBatch([
    ["a", 99],
    ["a", 1],
    ["a", 99],
    ["b", 99],
    ["a", 2],
  ], [1, 2, 3, 4, 5]);
  assert.deepEqual(rejected.map(([v, ts, , i]) => [v, ts, i]), [
    [["a", 99], 1, 0],
    [["a", 99], 3, 2],
    [["b", 99], 4, 3],
  ]);
  assert.equal(operator.numWindows, 1, "b's window went with its record");
  const snapshot = operator.snapshot();
  assert.equal(snapshot.slots[0].triggerState, 2, "a's count without 99");
  operator.processWatermark(9);
  assert.deepEqual(emitted, ["a:2@9"]);
  assert.equal(operator.numTimers, 0);
});

Deno.test("WindowOperator.processElement() takes back a record whose trigger throws, then rethrows", () => {
  const { operator, emitted } = failingCount([]);
  // The windows with their trigger state, and the timers; a new window's
  // id is not handed out again.
  const state = () => {
    const { slots, timers } = operator.snapshot();
    return { slots, timers };
  };
  operator.processElement(["a", 1], 1);
  const before = state();
  assert.throws(() => operator.processElement(["a", 99], 2), {
    message: "Cannot trigger on 99",
  });
  assert.deepEqual(state(), before);
  assert.throws(() => operator.processElement(["b", 99], 3), {
    message: "Cannot trigger on 99",
  });
  assert.deepEqual(state(), before);
  operator.processWatermark(9);
  assert.deepEqual(emitted, ["a:1@9"]);
});
