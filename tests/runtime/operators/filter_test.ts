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

// --- the arrays it emits ---------------------------------------------------
// A batch function's output, recorded as the arrays themselves.
function capture(
  operator: FilterOperator<number>,
  reject?: (
    value: unknown,
    timestamp: number,
    error: unknown,
    index?: number,
  ) => void,
) {
  const emitted: [number[], number[]][] = [];
  const output = {
    emitBatch: (values: number[], timestamps: number[]) => {
      emitted.push([values, timestamps]);
    },
    emitWatermark: () => {},
    emitWatermarkStatus: () => {},
    emitSideOutput: () => {},
  };
  operator.open({ reject } as never, output);
  return emitted;
}

Deno.test("FilterOperator hands on a copy, not the input's own arrays, when it keeps every record", () => {
  // The input itself would give a later operator exact input positions,
  // and a dead letter's id at a source would then depend on the polls.
  const operator = new FilterOperator((v: number) => v > 0);
  const emitted = capture(operator);
  const values = [1, 2, 3];
  const timestamps = [10, 20, 30];
  operator.processBatch(values, timestamps);
  assert.deepEqual(emitted, [[[1, 2, 3], [10, 20, 30]]]);
  assert.notEqual(emitted[0][0], values);
  assert.notEqual(emitted[0][1], timestamps);
});

Deno.test("FilterOperator emits new arrays of the kept records' exact size, which later batches leave as they are", () => {
  const operator = new FilterOperator((v: number) => v % 2 === 0);
  const emitted = capture(operator);
  const values = [2, 4, 5, 6, 7, 8];
  const timestamps = [1, 2, 3, 4, 5, 6];
  operator.processBatch(values, timestamps);
  operator.processBatch([1, 10, 3, 12], [7, 8, 9, 10]);
  operator.processBatch([9, 9, 14], [11, 12, 13]);
  assert.deepEqual(emitted, [
    [[2, 4, 6, 8], [1, 2, 4, 6]],
    [[10, 12], [8, 10]],
    [[14], [13]],
  ]);
  assert.notEqual(emitted[0][0], values);
  // The input is never modified.
  assert.deepEqual(values, [2, 4, 5, 6, 7, 8]);
  assert.deepEqual(timestamps, [1, 2, 3, 4, 5, 6]);
});

Deno.test("FilterOperator sets aside a record whose fn throws wherever it is in the batch", () => {
  const fn = (v: number) => {
    if (v < 0) throw new Error(`bad ${v}`);
    return v % 2 === 0;
  };
  const cases: [number[], string[], number[]][] = [
    [[-1, 2, 4], ["R(2)@2", "R(4)@3"], [0]],
    [[2, -1, 4], ["R(2)@1", "R(4)@3"], [1]],
    [[2, 4, -1], ["R(2)@1", "R(4)@2"], [2]],
    [[1, -1, 4, -2, 6], ["R(4)@3", "R(6)@5"], [1, 3]],
    [[-1, -2], [], [0, 1]],
  ];
  for (const [values, kept, rejected] of cases) {
    const indices: number[] = [];
    const operator = new FilterOperator(fn);
    const emitted = capture(operator, (_value, _ts, _error, index) => {
      indices.push(index!);
    });
    operator.processBatch(values, values.map((_, i) => i + 1));
    const got = emitted.flatMap(([v, t]) => v.map((x, i) => `R(${x})@${t[i]}`));
    assert.deepEqual(got, kept, `${values}`);
    assert.deepEqual(indices, rejected, `${values}`);
  }
});

Deno.test("FilterOperator filtering through itself from its predicate keeps each batch's records apart", () => {
  const emitted: string[] = [];
  let inner: FilterOperator<number> | null = null;
  const operator = new FilterOperator((v: number) => {
    // A nested batch, run while the outer one is filtered.
    if (v === 3) inner!.processBatch([20, 21, 22, 24], [0, 0, 0, 0]);
    return v % 2 === 0;
  });
  inner = operator;
  operator.open({} as never, {
    emitBatch: (values: number[]) => emitted.push(values.join(",")),
    emitWatermark: () => {},
    emitWatermarkStatus: () => {},
    emitSideOutput: () => {},
  });
  operator.processBatch([1, 2, 3, 4, 6], [1, 2, 3, 4, 5]);
  assert.deepEqual(emitted, ["20,22,24", "2,4,6"]);
});
