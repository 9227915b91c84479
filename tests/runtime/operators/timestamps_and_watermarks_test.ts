import assert from "node:assert/strict";
import { TimestampsAndWatermarksOperator } from "../../../src/runtime/operators/timestamps_and_watermarks.ts";
import { ManualClock } from "../../../src/time/clock.ts";
import { PunctuatedWatermarks } from "../../../src/time/punctuated.ts";
import type { WatermarkGenerator } from "../../../src/time/watermark_generator.ts";
import type { WatermarkOutput } from "../../../src/time/watermark_output.ts";
import { WatermarkStrategy } from "../../../src/time/watermark_strategy.ts";
import { OperatorHarness } from "../../_support/operator_harness.ts";
import { guardHarness } from "../../_support/guard_harness.ts";

// The test doubles of Flink's TimestampsAndWatermarksOperatorTest: the record's value is its timestamp; the
// periodic generator emits the last event's timestamp minus 1 (-Infinity
// before any event) without enforcing monotonicity; the punctuated one emits
// `f1` as a watermark when `f0` is true.
const INTERVAL = 50;

class PeriodicGenerator implements WatermarkGenerator<number> {
  #last = -Infinity;
  onEvent(_event: number, timestamp: number, _output: WatermarkOutput): void {
    this.#last = timestamp;
  }
  onPeriodicEmit(output: WatermarkOutput): void {
    output.emitWatermark(this.#last - 1);
  }
}

type Flagged = [boolean, number];

function periodic(
  options: { emitProgressiveWatermarks?: boolean; intervalMs?: number } = {},
): OperatorHarness<number, number> {
  const strategy = WatermarkStrategy
    .forGenerator<number>(() => new PeriodicGenerator())
    .withTimestampAssigner((value) => value);
  return new OperatorHarness(
    new TimestampsAndWatermarksOperator(strategy, {
      autoWatermarkIntervalMs: options.intervalMs ?? INTERVAL,
      emitProgressiveWatermarks: options.emitProgressiveWatermarks,
    }),
  ).open();
}

function punctuated(
  emitProgressiveWatermarks = true,
): OperatorHarness<Flagged, Flagged> {
  const strategy = WatermarkStrategy
    .forGenerator<Flagged>(() =>
      new PunctuatedWatermarks<Flagged>((e) => e[0] ? e[1] : null)
    )
    .withTimestampAssigner((value) => value[1]);
  return new OperatorHarness(
    new TimestampsAndWatermarksOperator(strategy, {
      autoWatermarkIntervalMs: INTERVAL,
      emitProgressiveWatermarks,
    }),
    { render: (value) => `(${value[0]},${value[1]})` },
  ).open();
}

function bounded(
  clock = new ManualClock(0),
): OperatorHarness<number, number> {
  const strategy = WatermarkStrategy.forBoundedOutOfOrderness<number>(0)
    .withTimestampAssigner((value) => value);
  return new OperatorHarness(
    new TimestampsAndWatermarksOperator(strategy, {
      autoWatermarkIntervalMs: INTERVAL,
    }),
    { clock },
  ).open();
}

// --- Flink's TimestampsAndWatermarksOperatorTest vectors ---

Deno.test("TimestampsAndWatermarksOperator drops upstream watermarks (inputWatermarksAreNotForwarded)", () => {
  const h = periodic();
  h.watermark(42).setProcessingTime(INTERVAL);
  assert.deepEqual(h.take(), []);
});

Deno.test("TimestampsAndWatermarksOperator drops upstream statuses (inputStatusesAreNotForwarded)", () => {
  const h = periodic();
  h.status("idle").setProcessingTime(INTERVAL);
  h.status("active");
  assert.deepEqual(h.take(), []);
});

Deno.test("TimestampsAndWatermarksOperator forwards the end-of-input Infinity watermark (longMaxInputWatermarkIsForwarded)", () => {
  const h = periodic();
  h.watermark(Infinity);
  assert.deepEqual(h.take(), ["WInfinity"]);
});

Deno.test("TimestampsAndWatermarksOperator stamps records and emits the periodic watermark on the timer (periodic stream)", () => {
  const h = periodic();
  h.element(2, 1).setProcessingTime(50);
  assert.deepEqual(h.take(), ["R(2)@2", "W1"]);
  h.element(4, 1).setProcessingTime(100);
  assert.deepEqual(h.take(), ["R(4)@4", "W3"]);
});

Deno.test("TimestampsAndWatermarksOperator emits periodic watermarks only when the timer fires (periodic only on timer)", () => {
  const h = periodic();
  h.element(2, 1);
  assert.deepEqual(h.take(), ["R(2)@2"]);
});

Deno.test("TimestampsAndWatermarksOperator never lets a periodic watermark regress (periodic no regress)", () => {
  const h = periodic();
  h.element(4, 1).setProcessingTime(50);
  assert.deepEqual(h.take(), ["R(4)@4", "W3"]);
  h.element(2, 1).setProcessingTime(50);
  assert.deepEqual(h.take(), ["R(2)@2"]);
  // The generator now emits 1 when the timer fires: dropped by the emitter.
  h.setProcessingTime(100);
  assert.deepEqual(h.take(), []);
});

Deno.test("TimestampsAndWatermarksOperator emits no watermarks in batch mode (periodic batch mode)", () => {
  const h = periodic({ emitProgressiveWatermarks: false });
  h.element(2, 1).setProcessingTime(50);
  h.element(4, 1).setProcessingTime(100);
  h.finish();
  assert.deepEqual(h.take(), ["R(2)@2", "R(4)@4"]);
  assert.equal(h.operator.nextProcessingTime(), Infinity);
});

Deno.test("TimestampsAndWatermarksOperator emits a punctuated watermark right after its record (punctuated stream)", () => {
  const h = punctuated();
  h.element([true, 2]);
  assert.deepEqual(h.take(), ["R((true,2))@2", "W2"]);
  h.element([true, 4]);
  assert.deepEqual(h.take(), ["R((true,4))@4", "W4"]);
});

Deno.test("TimestampsAndWatermarksOperator never lets a punctuated watermark regress (punctuated no regress)", () => {
  const h = punctuated();
  h.element([true, 4]);
  assert.deepEqual(h.take(), ["R((true,4))@4", "W4"]);
  h.element([true, 2]);
  assert.deepEqual(h.take(), ["R((true,2))@2"]);
});

Deno.test("TimestampsAndWatermarksOperator emits no punctuated watermarks in batch mode (punctuated batch)", () => {
  const h = punctuated(false);
  h.element([true, 2]).element([true, 4]);
  assert.deepEqual(h.take(), ["R((true,2))@2", "R((true,4))@4"]);
});

Deno.test("TimestampsAndWatermarksOperator passes negative, zero and positive timestamps unchanged", () => {
  const h = periodic();
  const values = [
    Number.MIN_SAFE_INTEGER,
    -1,
    0,
    1,
    2,
    3,
    Number.MAX_SAFE_INTEGER,
  ];
  for (const value of values) h.element(value);
  assert.deepEqual(h.take(), values.map((v) => `R(${v})@${v}`));
});

Deno.test("TimestampsAndWatermarksOperator rejects the infinities Flink would pass through as MIN and MAX", () => {
  for (const value of [-Infinity, Infinity]) {
    const h = periodic();
    assert.throws(() => h.element(value), {
      name: "RangeError",
      message: new RegExp(`'timestamp'.*current value is ${value}`),
    });
    assert.deepEqual(h.take(), []);
  }
});

Deno.test("TimestampsAndWatermarksOperator goes idle once, only after back-pressure ends (FLINK-35886)", () => {
  const strategy = WatermarkStrategy
    .forGenerator<Flagged>(() =>
      new PunctuatedWatermarks<Flagged>((e) => e[0] ? e[1] : null)
    )
    .withIdleness(100);
  const h = new OperatorHarness<Flagged, Flagged>(
    new TimestampsAndWatermarksOperator(strategy, {
      autoWatermarkIntervalMs: 100,
    }),
  ).open();
  h.activityClock.pause(); // hard back-pressure
  for (let step = 0; step < 10; step++) h.advanceTime(100);
  assert.deepEqual(h.take(), []);
  // Soft back-pressure: still paused.
  for (let step = 0; step < 10; step++) h.advanceTime(100);
  assert.deepEqual(h.take(), []);
  h.activityClock.resume();
  for (let step = 0; step < 10; step++) h.advanceTime(100);
  assert.deepEqual(h.take(), ["idle"]);
});

// --- Further rules ---

Deno.test("TimestampsAndWatermarksOperator schedules the first periodic emit one interval after open", () => {
  const h = bounded(new ManualClock(1_000));
  assert.equal(h.operator.nextProcessingTime(), 1_050);
});

Deno.test("TimestampsAndWatermarksOperator re-bases the next periodic emit on the current time", () => {
  const h = bounded();
  h.element(10).setProcessingTime(120);
  assert.deepEqual(h.take(), ["R(10)@10", "W9"]);
  assert.equal(h.operator.nextProcessingTime(), 170);
  h.element(20).setProcessingTime(150);
  assert.deepEqual(h.take(), ["R(20)@20"]);
  h.setProcessingTime(170);
  assert.deepEqual(h.take(), ["W19"]);
});

Deno.test("TimestampsAndWatermarksOperator with interval 0 never emits periodically", () => {
  const h = periodic({ intervalMs: 0 });
  assert.equal(h.operator.nextProcessingTime(), Infinity);
  h.element(2).setProcessingTime(1_000);
  h.operator.onProcessingTime(1_000);
  assert.deepEqual(h.take(), ["R(2)@2"]);
});

Deno.test("TimestampsAndWatermarksOperator.finish() emits the last periodic watermark, even with interval 0", () => {
  const h = periodic({ intervalMs: 0 });
  h.element(2).finish();
  assert.deepEqual(h.take(), ["R(2)@2", "W1"]);
  const periodicHarness = periodic();
  periodicHarness.element(7).finish();
  assert.deepEqual(periodicHarness.take(), ["R(7)@7", "W6"]);
  assert.equal(periodicHarness.operator.nextProcessingTime(), Infinity);
});

Deno.test("TimestampsAndWatermarksOperator re-activates an idle output before forwarding Infinity", () => {
  const strategy = WatermarkStrategy.forBoundedOutOfOrderness<number>(0)
    .withTimestampAssigner((value) => value)
    .withIdleness(10);
  const h = new OperatorHarness<number, number>(
    new TimestampsAndWatermarksOperator(strategy, {
      autoWatermarkIntervalMs: 50,
    }),
  ).open();
  h.advanceTime(50).advanceTime(50);
  assert.deepEqual(h.take(), ["idle"]);
  h.watermark(Infinity);
  assert.deepEqual(h.take(), ["active", "WInfinity"]);
});

Deno.test("TimestampsAndWatermarksOperator rejects a whole batch when one timestamp is not a safe integer, naming the record", () => {
  for (const bad of [NaN, 1.5, 2 ** 60]) {
    const h = punctuated();
    assert.throws(() => h.batch([[true, 1], [true, 2], [true, bad]]), {
      name: "RangeError",
      message: new RegExp(`record 2 .*'timestamp'.*current value is ${bad}`),
    });
    assert.deepEqual(h.take(), []);
  }
});

Deno.test("TimestampsAndWatermarksOperator rejects a timestamp that is not a number with a TypeError", () => {
  const strategy = WatermarkStrategy.forMonotonousTimestamps<string>()
    .withTimestampAssigner((value) => value as unknown as number);
  const h = new OperatorHarness<string, string>(
    new TimestampsAndWatermarksOperator(strategy, {
      autoWatermarkIntervalMs: 50,
    }),
  ).open();
  assert.throws(() => h.batch(["5"]), {
    name: "TypeError",
    message: /record 0 .*'timestamp'.*current value is "5"/,
  });
  assert.deepEqual(h.take(), []);
});

Deno.test("TimestampsAndWatermarksOperator explains a missing timestamp when the default assigner meets a record without one", () => {
  const h = new OperatorHarness<number, number>(
    new TimestampsAndWatermarksOperator(
      WatermarkStrategy.forMonotonousTimestamps<number>(),
      { autoWatermarkIntervalMs: 50 },
    ),
  ).open();
  assert.throws(() => h.element(1), {
    name: "RangeError",
    message: /-Infinity.*withTimestampAssigner/,
  });
  h.element(1, 1_700_000_000_000);
  assert.deepEqual(h.take(), ["R(1)@1700000000000"]);
});

Deno.test("TimestampsAndWatermarksOperator warns once that timestamps look like seconds", () => {
  const warnings: string[] = [];
  const strategy = WatermarkStrategy.forMonotonousTimestamps<number>()
    .withTimestampAssigner((value) => value);
  const h = new OperatorHarness<number, number>(
    new TimestampsAndWatermarksOperator(strategy, {
      autoWatermarkIntervalMs: 50,
      onWarning: (message) => warnings.push(message),
    }),
  ).open();
  h.batch([1_700_000_000_000, 0, -5]);
  assert.deepEqual(warnings, []);
  h.batch([1_700_000_000, 1_700_000_001]).element(1_700_000_002);
  assert.equal(warnings.length, 1);
  assert.match(warnings[0], /1700000000.*seconds.*multiply.*1000/);
});

Deno.test("TimestampsAndWatermarksOperator splits a batch after a punctuated watermark's record, keeping the rest batched", () => {
  const h = punctuated();
  h.batch([[false, 1], [true, 2], [false, 3], [false, 4]]);
  assert.deepEqual(h.take(), [
    "R((false,1))@1",
    "R((true,2))@2",
    "W2",
    "R((false,3))@3",
    "R((false,4))@4",
  ]);
  assert.deepEqual(h.batches, [
    ["R((false,1))@1", "R((true,2))@2"],
    ["R((false,3))@3", "R((false,4))@4"],
  ]);
});

Deno.test("TimestampsAndWatermarksOperator emits a batch without watermarks as one batch", () => {
  const h = periodic();
  h.batch([1, 2, 3], [7, 7, 7]);
  assert.deepEqual(h.batches, [["R(1)@1", "R(2)@2", "R(3)@3"]]);
});

Deno.test("TimestampsAndWatermarksOperator passes the record's current timestamp to the assigner", () => {
  const seen: number[] = [];
  const strategy = WatermarkStrategy.forMonotonousTimestamps<string>()
    .withTimestampAssigner((_value, recordTimestamp) => {
      seen.push(recordTimestamp);
      return recordTimestamp + 1;
    });
  const h = new OperatorHarness<string, string>(
    new TimestampsAndWatermarksOperator(strategy, {
      autoWatermarkIntervalMs: 50,
    }),
  ).open();
  h.batch(["a", "b"], [10, 20]);
  assert.deepEqual(seen, [10, 20]);
  assert.deepEqual(h.take(), ["R(a)@11", "R(b)@21"]);
});

Deno.test("TimestampsAndWatermarksOperator resumes a bounded generator's watermark after a restore (watermarkRecovery persist)", () => {
  const before = bounded();
  before.batch([10, 20]).setProcessingTime(50);
  assert.deepEqual(before.take(), ["R(10)@10", "R(20)@20", "W19"]);
  const snapshot = before.snapshot();

  const after = bounded();
  after.operator.restoreState(snapshot);
  after.element(5).setProcessingTime(50);
  // A fresh generator would emit W4; the restored one still holds 20.
  assert.deepEqual(after.take(), ["R(5)@5"]);
  after.element(30).setProcessingTime(100);
  assert.deepEqual(after.take(), ["R(30)@30", "W29"]);
});

Deno.test("TimestampsAndWatermarksOperator restored at the same processing time keeps its periodic schedule (persist snapshots the periodic-emission schedule)", () => {
  const before = bounded();
  before.element(20).setProcessingTime(50);
  before.element(30).setProcessingTime(70);
  assert.deepEqual(before.take(), ["R(20)@20", "W19", "R(30)@30"]);
  const snapshot = before.snapshot();
  assert.equal((snapshot as { nextPeriodicMs: number }).nextPeriodicMs, 100);
  // Opened at 70, a fresh schedule would emit at 120.
  const after = bounded(new ManualClock(70));
  after.operator.restoreState(snapshot);
  before.setProcessingTime(100);
  after.setProcessingTime(100);
  assert.deepEqual(before.take(), ["W29"]);
  assert.deepEqual(after.take(), ["W29"]);
});

Deno.test("TimestampsAndWatermarksOperator in replay mode leaves the schedule out of its snapshot", () => {
  const before = bounded();
  before.element(20).setProcessingTime(50);
  const snapshot = before.operator.snapshotState(1, { watermarks: false });
  assert.equal("nextPeriodicMs" in (snapshot as object), false);
});

Deno.test("TimestampsAndWatermarksOperator applies a snapshot restored before open", () => {
  const before = bounded();
  before.element(20).setProcessingTime(50);
  const strategy = WatermarkStrategy.forBoundedOutOfOrderness<number>(0)
    .withTimestampAssigner((value) => value);
  const operator = new TimestampsAndWatermarksOperator(strategy, {
    autoWatermarkIntervalMs: INTERVAL,
  });
  operator.restoreState(before.snapshot());
  const after = new OperatorHarness(operator).open();
  after.element(5).setProcessingTime(50);
  assert.deepEqual(after.take(), ["R(5)@5"]);
  assert.equal(operator.currentWatermark, 19);
});

Deno.test("TimestampsAndWatermarksOperator creates its generator with the activity clock, subtask index and metrics", () => {
  const seen: unknown[] = [];
  const strategy = WatermarkStrategy.forGenerator<number>((context) => {
    seen.push(context.subtaskIndex);
    context.metrics.gauge("probe", () => context.clock.now());
    return new PeriodicGenerator();
  });
  const h = new OperatorHarness<number, number>(
    new TimestampsAndWatermarksOperator(strategy, {
      autoWatermarkIntervalMs: 50,
    }),
    { clock: new ManualClock(100) },
  ).open();
  h.activityClock.pause();
  h.advanceTime(50);
  assert.deepEqual(seen, [0]);
  assert.equal(h.gauges.get("probe")!(), 100);
});

Deno.test("TimestampsAndWatermarksOperator rejects a bad interval, strategy or warning callback, naming the parameter", () => {
  const strategy = WatermarkStrategy.forMonotonousTimestamps<number>();
  for (const interval of [-1, 1.5, NaN]) {
    assert.throws(
      () =>
        new TimestampsAndWatermarksOperator(strategy, {
          autoWatermarkIntervalMs: interval,
        }),
      { name: "RangeError", message: /'autoWatermarkIntervalMs'/ },
    );
  }
  assert.throws(
    () =>
      new TimestampsAndWatermarksOperator(
        null as unknown as WatermarkStrategy<number>,
        { autoWatermarkIntervalMs: 50 },
      ),
    { name: "TypeError", message: /'strategy'/ },
  );
  assert.throws(
    () =>
      new TimestampsAndWatermarksOperator(strategy, {
        autoWatermarkIntervalMs: 50,
        onWarning: "log" as unknown as () => void,
      }),
    { name: "TypeError", message: /'onWarning'/ },
  );
});

// --- a record whose timestamp cannot be assigned is set aside -----------

Deno.test("TimestampsAndWatermarksOperator sets aside a record whose assigner throws or whose timestamp is not a safe integer, naming the value, and stamps the rest", () => {
  const strategy = WatermarkStrategy.forGenerator<{ ts: unknown }>(
    () => new PunctuatedWatermarks((_e, ts) => ts),
  ).withTimestampAssigner((e) => {
    if (e.ts === undefined) throw new TypeError("Cannot read 'ts'");
    return e.ts as number;
  });
  const h = guardHarness({
    operators: () => [
      new TimestampsAndWatermarksOperator(strategy, {
        autoWatermarkIntervalMs: 0,
      }),
    ],
  });
  h.push([{ ts: 1_000 }, { ts: 1.5 }, {}, { ts: "2000" }, { ts: 3_000 }]);
  assert.deepEqual(h.out, ['{"ts":1000}@1000', '{"ts":3000}@3000']);
  const letters = h.letters();
  assert.deepEqual(letters.map((l) => [l.position, l.error.name]), [
    ["channel 0, record 1", "RangeError"],
    ["channel 0, record 2", "TypeError"],
    ["channel 0, record 3", "TypeError"],
  ]);
  assert.match(letters[0].error.message, /'timestamp'.*current value is 1\.5/);
  assert.equal(letters[0].timestamp, 1.5);
  assert.match(letters[2].error.message, /current value is "2000"/);
  assert.ok(Number.isNaN(letters[2].timestamp));
});
