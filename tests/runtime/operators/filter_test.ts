import assert from "node:assert/strict";
import { FilterOperator } from "../../../src/runtime/operators/filter.ts";
import { OperatorHarness } from "../../_support/operator_harness.ts";
import { guardHarness } from "../../_support/guard_harness.ts";

Deno.test("FilterOperator keeps matching records with their timestamps in one batch", () => {
  const h = new OperatorHarness(new FilterOperator((v: number) => v % 2 === 0))
    .open();
  h.batch([1, 2, 3, 4], [10, 20, 30, 40]);
  assert.deepEqual(h.batches, [["R(2)@20", "R(4)@40"]]);
});

Deno.test("FilterOperator emits no batch when every record is dropped", () => {
  const h = new OperatorHarness(new FilterOperator((_v: number) => false))
    .open();
  h.batch([1, 2], [1, 2]);
  assert.deepEqual(h.batches, []);
});

Deno.test("FilterOperator forwards watermarks and statuses unchanged", () => {
  const h = new OperatorHarness(new FilterOperator((_v: number) => false))
    .open();
  h.element(1, 1).watermark(9).status("idle").watermark(Infinity);
  assert.deepEqual(h.take(), ["W9", "idle", "WInfinity"]);
});

Deno.test("FilterOperator is stateless", () => {
  assert.equal(new FilterOperator(() => true).snapshotState(), null);
});

Deno.test("FilterOperator rejects a missing predicate, naming 'fn'", () => {
  assert.throws(
    () => new FilterOperator(null as unknown as () => boolean),
    { name: "TypeError", message: /'fn'/ },
  );
});

// --- a record whose user function throws is set aside -------------------
Deno.test("FilterOperator sets aside a record whose fn throws and filters the rest of the batch", () => {
  const h = guardHarness({
    operators: () => [
      new FilterOperator<unknown>((v) => (v as { n: number }).n > 1),
    ],
  });
  h.push([{ n: 1 }, undefined, { n: 3 }], [1, 2, 3]);
  assert.deepEqual(h.out, ['{"n":3}@3']);
  assert.deepEqual(h.letters().map((l) => l.position), ["channel 0, record 1"]);
});
