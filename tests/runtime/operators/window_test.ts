import assert from "node:assert/strict";
import {
  WindowStreamOperator,
  type WindowStreamOperatorOptions,
} from "../../../src/runtime/operators/window.ts";
import { EventTimeSessionWindows } from "../../../src/windows/session.ts";
import { OutputTag } from "../../../src/windows/output_tag.ts";
import { CountTrigger } from "../../../src/windows/count_trigger.ts";
import { TumblingEventTimeWindows } from "../../../src/windows/tumbling.ts";
import { TumblingProcessingTimeWindows } from "../../../src/windows/tumbling_processing_time.ts";
import type { WindowAssigner } from "../../../src/windows/window_assigner.ts";
import { reduceWindow } from "../../../src/windows/window_function.ts";
import { OperatorHarness } from "../../_support/operator_harness.ts";
import { guardHarness } from "../../_support/guard_harness.ts";
import {
  aggregateWindow,
  processWindow,
} from "../../../src/windows/window_function.ts";
import { ManualClock } from "../../../src/time/clock.ts";
import type { WindowOperatorSnapshot } from "../../../src/windows/window_operator.ts";

type KV = [string, number];
type Sum = { value?: KV };

function render(value: KV): string {
  return `${value[0]}:${value[1]}`;
}

function sumOperator(
  assigner: WindowAssigner<KV>,
  options: Partial<WindowStreamOperatorOptions<KV, string, Sum, KV>> = {},
): WindowStreamOperator<KV, string, Sum, KV> {
  return new WindowStreamOperator<KV, string, Sum, KV>({
    assigner,
    keySelector: (kv) => kv[0],
    windowFunction: reduceWindow<KV, string>((a, b) => [a[0], a[1] + b[1]]),
    ...options,
  });
}

function harness(
  operator: WindowStreamOperator<KV, string, Sum, KV>,
): OperatorHarness<KV, KV> {
  return new OperatorHarness<KV, KV>(operator, { render }).open();
}

Deno.test("WindowStreamOperator emits a watermark's results as one batch before forwarding it", () => {
  const h = harness(sumOperator(TumblingEventTimeWindows.of(10)));
  h.batch([["a", 1], ["b", 5], ["a", 2]], [1, 3, 9]);
  assert.deepEqual(h.take(), []);
  h.watermark(9);
  assert.deepEqual(h.take(), ["R(a:3)@9", "R(b:5)@9", "W9"]);
  assert.deepEqual(h.batches, [["R(a:3)@9", "R(b:5)@9"]]);
});

Deno.test("WindowStreamOperator forwards a watermark that fires nothing, and drops one that does not advance", () => {
  const h = harness(sumOperator(TumblingEventTimeWindows.of(10)));
  h.watermark(5).watermark(5).watermark(3);
  assert.deepEqual(h.take(), ["W5"]);
});

Deno.test("WindowStreamOperator sends a record late for all its windows to the late tag with its own timestamp", () => {
  const late = new OutputTag<KV>("late");
  const h = harness(
    sumOperator(TumblingEventTimeWindows.of(10), { lateDataTag: late }),
  );
  h.watermark(9).element(["x", 1], 5).element(["x", 2], 12);
  assert.deepEqual(h.take(), ["W9", "side:late x:1@5"]);
  assert.equal(h.gauges.get("numLateRecordsDropped")!(), 0);
});

Deno.test("WindowStreamOperator registers the numWindows, numLateRecordsDropped and lastFiredWindowEndMs gauges", () => {
  const h = harness(sumOperator(TumblingEventTimeWindows.of(10)));
  assert.deepEqual([...h.gauges.keys()].sort(), [
    "lastFiredWindowEndMs",
    "numLateRecordsDropped",
    "numWindows",
  ]);
  h.batch([["a", 1], ["b", 1], ["a", 1]], [1, 2, 15]);
  assert.equal(h.gauges.get("numWindows")!(), 3);
  h.watermark(9);
  assert.equal(h.gauges.get("numWindows")!(), 1);
  h.element(["a", 1], 4);
  assert.equal(h.gauges.get("numLateRecordsDropped")!(), 1);
});

Deno.test("WindowStreamOperator's lastFiredWindowEndMs is the largest end of a window fired so far", () => {
  const h = harness(sumOperator(TumblingEventTimeWindows.of(10)));
  const lastEnd = h.gauges.get("lastFiredWindowEndMs")!;
  assert.equal(lastEnd(), -Infinity);
  h.batch([["a", 1], ["b", 1], ["a", 1]], [1, 12, 25]);
  h.watermark(9);
  assert.equal(lastEnd(), 10);
  h.watermark(19);
  assert.deepEqual(h.take(), ["R(a:1)@9", "W9", "R(b:1)@19", "W19"]);
  assert.equal(lastEnd(), 20);
});

Deno.test("WindowStreamOperator emits what a batch fires as one batch at the end of the call", () => {
  const h = harness(
    sumOperator(TumblingEventTimeWindows.of(10), {
      trigger: CountTrigger.of(2),
    }),
  );
  h.batch([["a", 1], ["a", 2], ["b", 1], ["b", 4]], [1, 2, 3, 4]);
  assert.deepEqual(h.batches, [["R(a:3)@9", "R(b:5)@9"]]);
});

Deno.test("WindowStreamOperator forwards statuses", () => {
  const h = harness(sumOperator(TumblingEventTimeWindows.of(10)));
  h.status("idle").status("active");
  assert.deepEqual(h.take(), ["idle", "active"]);
});

Deno.test("WindowStreamOperator fires processing-time windows at nextProcessingTime() on the context's clock", () => {
  const h = harness(sumOperator(TumblingProcessingTimeWindows.of(100)));
  h.setProcessingTime(10).batch([["a", 1], ["a", 2]], [0, 0]);
  assert.equal(h.operator.nextProcessingTime(), 99);
  h.setProcessingTime(98);
  assert.deepEqual(h.take(), []);
  h.setProcessingTime(99);
  assert.deepEqual(h.take(), ["R(a:3)@99"]);
  assert.equal(h.operator.nextProcessingTime(), Infinity);
});

Deno.test("WindowStreamOperator restores windows from a snapshot and fires them later", () => {
  const before = harness(sumOperator(EventTimeSessionWindows.withGap(5)));
  before.batch([["a", 1], ["a", 2]], [1, 3]).watermark(2);
  const snapshot = before.snapshot();
  const operator = sumOperator(EventTimeSessionWindows.withGap(5));
  operator.restoreState(snapshot);
  const after = harness(operator);
  after.element(["a", 4], 6).watermark(2).watermark(Infinity);
  assert.deepEqual(after.take(), ["R(a:7)@10", "WInfinity"]);
});

Deno.test("WindowStreamOperator rejects bad options when constructed, naming the parameter", () => {
  assert.throws(
    () =>
      sumOperator(TumblingEventTimeWindows.of(10), { allowedLatenessMs: -1 }),
    { name: "RangeError", message: /'allowedLatenessMs'/ },
  );
});

// --- a record or a window whose user code throws is set aside -----------

type Reading = { k: unknown; n: number };

function fragileWindow() {
  return new WindowStreamOperator<Reading, string, { sum: number }, string>({
    assigner: TumblingEventTimeWindows.of(10),
    keySelector: (r) => {
      if (typeof r.k !== "string") throw new TypeError("Cannot key a reading");
      return r.k;
    },
    windowFunction: aggregateWindow({
      createAccumulator: () => ({ sum: 0 }),
      add(r: Reading, acc: { sum: number }) {
        if (r.n < 0) throw new RangeError("Cannot add a negative reading");
        acc.sum += r.n;
        return acc;
      },
      getResult: (acc) => acc.sum,
      merge: (a, b) => ({ sum: a.sum + b.sum }),
    }, (key, _ctx, [sum], out) => {
      out(`${key}:${sum}`);
      if (key === "x") throw new Error("Cannot render key x");
    }),
  });
}

Deno.test("WindowStreamOperator sets aside a record whose key selector or aggregate throws, leaving no window behind, and windows the rest", () => {
  const h = guardHarness({ operators: () => [fragileWindow()] });
  h.push([{ k: "a", n: 1 }, { k: null, n: 2 }, { k: "b", n: -1 }, {
    k: "a",
    n: -3,
  }, { k: "a", n: 4 }], [1, 2, 3, 4, 5]);
  const state = h.snapshot().operators[0] as WindowOperatorSnapshot<
    string,
    { sum: number }
  >;
  assert.deepEqual(
    state.slots.map((s) => [s.key, s.contents]),
    [["a", { sum: 5 }]],
    "no empty window for key b",
  );
  assert.deepEqual(h.letters().map((l) => [l.position, l.error.name]), [
    ["channel 0, record 1", "TypeError"],
    ["channel 0, record 2", "RangeError"],
    ["channel 0, record 3", "RangeError"],
  ]);
  h.watermark(20);
  assert.deepEqual(h.out, ["a:5@9"]);
});

Deno.test("WindowStreamOperator sets aside a window whose function throws when it fires as { key, window }, dropping its results, and fires the others", () => {
  const h = guardHarness({ operators: () => [fragileWindow()] });
  h.push([{ k: "x", n: 1 }, { k: "y", n: 2 }], [1, 2]);
  h.watermark(20);
  assert.deepEqual(h.out, ["y:2@9"]);
  const [letter] = h.letters();
  assert.deepEqual(letter.value, { key: "x", window: { start: 0, end: 10 } });
  assert.equal(letter.timestamp, 9);
  assert.equal(letter.position, "watermark 20");
  const state = h.snapshot().operators[0] as WindowOperatorSnapshot<
    string,
    { sum: number }
  >;
  assert.deepEqual(state.slots, [], "the window was cleaned up as fired");
});

// Tumbling 10 ms windows whose function emits `key@processingTime`, then
// moves the clock 7 ms on and calls `then` with the operator.
function clockWatching(
  clock: ManualClock,
  then: (operator: WindowStreamOperator<KV, string, KV[], string>) => void =
    () => {},
): OperatorHarness<KV, string> {
  const operator: WindowStreamOperator<KV, string, KV[], string> =
    new WindowStreamOperator<KV, string, KV[], string>({
      assigner: TumblingEventTimeWindows.of(10),
      keySelector: (kv) => kv[0],
      windowFunction: processWindow<KV, string, string>(
        (key, context, _values, out) => {
          out(`${key}@${context.currentProcessingTime}`);
          clock.advance(7);
          then(operator);
        },
      ),
    });
  return new OperatorHarness<KV, string>(operator, { clock }).open();
}

Deno.test("WindowStreamOperator reads the clock once per call: every window a watermark fires sees one processing time", () => {
  const clock = new ManualClock(100);
  const h = clockWatching(clock);
  h.batch([["a", 1], ["b", 2], ["c", 12]], [1, 2, 12]);
  h.watermark(9);
  h.watermark(19);
  // Time going on while a window fires is seen by the next call.
  assert.deepEqual(h.batches, [["R(a@100)@9", "R(b@100)@9"], ["R(c@114)@19"]]);
  assert.equal(clock.now(), 121);
});

Deno.test("WindowStreamOperator keeps one processing time for a call when a window function's call into it is refused", () => {
  const clock = new ManualClock(100);
  const refused: string[] = [];
  const h = clockWatching(clock, (operator) => {
    try {
      operator.processWatermark(50);
    } catch (error) {
      refused.push((error as Error).name);
    }
  });
  h.batch([["a", 1], ["b", 12]], [1, 12]);
  h.watermark(19);
  assert.equal(refused.length, 2);
  assert.deepEqual(h.batches, [["R(a@100)@9", "R(b@100)@19"]]);
});
