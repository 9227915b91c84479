import assert from "node:assert/strict";
import { MapOperator } from "../../../src/runtime/operators/map.ts";
import { OperatorHarness } from "../../_support/operator_harness.ts";
import { guardHarness } from "../../_support/guard_harness.ts";
import { ManualClock } from "../../../src/time/clock.ts";
import { PausableClock } from "../../../src/time/pausable_clock.ts";

Deno.test("MapOperator maps each batch into one batch that keeps the timestamps", () => {
  const h = new OperatorHarness(new MapOperator((v: number) => v * 10)).open();
  h.batch([1, 2, 3], [5, -Infinity, 7]);
  assert.deepEqual(h.batches, [["R(10)@5", "R(20)@-Infinity", "R(30)@7"]]);
});

Deno.test("MapOperator forwards watermarks and statuses unchanged, in order", () => {
  const h = new OperatorHarness(new MapOperator((v: number) => v + 1)).open();
  h.element(1, 1).watermark(4).status("idle").status("active").element(2, 6);
  assert.deepEqual(h.take(), ["R(2)@1", "W4", "idle", "active", "R(3)@6"]);
});

Deno.test("MapOperator emits nothing for an empty batch", () => {
  const h = new OperatorHarness(new MapOperator((v: number) => v)).open();
  h.batch([], []);
  assert.deepEqual(h.batches, []);
});

Deno.test("MapOperator is stateless and never has processing-time work", () => {
  const operator = new MapOperator((v: number) => v);
  assert.equal(operator.snapshotState(), null);
  assert.equal(operator.nextProcessingTime(), Infinity);
});

Deno.test("MapOperator rejects a missing function, naming 'fn'", () => {
  assert.throws(
    () => new MapOperator(undefined as unknown as (v: number) => number),
    { name: "TypeError", message: /'fn'.*undefined/ },
  );
});

// --- a record whose user function throws is set aside -------------------
Deno.test("MapOperator sets aside a record whose fn throws and maps the rest of the batch", () => {
  const h = guardHarness({
    operators: () => [
      new MapOperator<unknown, unknown>((v) => (v as { n: number }).n * 2),
    ],
  });
  h.push([{ n: 1 }, null, { n: 3 }], [1, 2, 3]);
  assert.deepEqual(h.out, ["2@1", "6@3"]);
  const [letter] = h.letters();
  assert.equal(letter.value, null);
  assert.equal(letter.position, "channel 0, record 1");
  assert.equal(letter.error.name, "TypeError");
});

Deno.test("MapOperator rethrows outside a subtask (no reject in its context)", () => {
  const op = new MapOperator<number, number>(() => {
    throw new RangeError("boom");
  });
  op.open({
    clock: new ManualClock(0),
    activityClock: new PausableClock(new ManualClock(0)),
    subtaskIndex: 0,
    parallelism: 1,
    metrics: { gauge() {} },
  }, {
    emitBatch() {},
    emitWatermark() {},
    emitWatermarkStatus() {},
    emitSideOutput() {},
  });
  assert.throws(() => op.processBatch([1], [1]), { name: "RangeError" });
});
