import assert from "node:assert/strict";
import {
  type ProcessContext,
  ProcessOperator,
} from "../../../src/runtime/operators/process.ts";
import { OutputTag } from "../../../src/windows/output_tag.ts";
import { OperatorHarness } from "../../_support/operator_harness.ts";
import { guardHarness } from "../../_support/guard_harness.ts";

Deno.test("ProcessOperator gives outputs the input record's timestamp, one batch per input batch", () => {
  const h = new OperatorHarness(
    new ProcessOperator<number, string>((value, ctx, out) => {
      out(`${value}`);
      out(`${value}@${ctx.timestamp}`);
    }),
  ).open();
  h.batch([1, 2], [10, 20]);
  assert.deepEqual(h.batches, [[
    "R(1)@10",
    "R(1@10)@10",
    "R(2)@20",
    "R(2@20)@20",
  ]]);
});

Deno.test("ProcessOperator sends side outputs by tag or tag id with the record's timestamp", () => {
  const late = new OutputTag<string>("late");
  const h = new OperatorHarness(
    new ProcessOperator<string, string>((value, ctx, out) => {
      if (value.startsWith("x")) ctx.output(late, value);
      else if (value.startsWith("y")) ctx.output("odd", value);
      else out(value);
    }),
  ).open();
  h.batch(["a", "x1", "y2"], [1, 5, 6]);
  assert.deepEqual(h.take(), ["side:late x1@5", "side:odd y2@6", "R(a)@1"]);
});

Deno.test("ProcessOperator shows the current watermark and forwards it unchanged", () => {
  const seen: number[] = [];
  const h = new OperatorHarness(
    new ProcessOperator<number, number>((value, ctx, out) => {
      seen.push(ctx.currentWatermark);
      out(value);
    }),
  ).open();
  h.element(1, 1).watermark(7).status("idle").element(2, 8);
  assert.deepEqual(seen, [-Infinity, 7]);
  assert.deepEqual(h.take(), ["R(1)@1", "W7", "idle", "R(2)@8"]);
});

Deno.test("ProcessOperator snapshots and restores its current watermark", () => {
  const before = new OperatorHarness(
    new ProcessOperator<number, number>((v, _ctx, out) => out(v)),
  ).open();
  before.watermark(42);
  const operator = new ProcessOperator<number, number>(
    (_v, ctx: ProcessContext, out) => out(ctx.currentWatermark),
  );
  const after = new OperatorHarness(operator).open();
  operator.restoreState(before.snapshot());
  after.element(0, 50);
  assert.deepEqual(after.take(), ["R(42)@50"]);
});

Deno.test("ProcessOperator rejects a missing function, naming 'fn'", () => {
  assert.throws(
    () =>
      new ProcessOperator(
        undefined as unknown as ConstructorParameters<
          typeof ProcessOperator
        >[0],
      ),
    { name: "TypeError", message: /'fn'/ },
  );
});

// --- a record whose user function throws is set aside -------------------
Deno.test("ProcessOperator sets aside a record whose fn throws, drops what it collected before the throw, and goes on", () => {
  const h = guardHarness({
    operators: () => [
      new ProcessOperator<number, number>((v, _ctx, out) => {
        out(v);
        if (v < 0) throw new RangeError("Cannot process a negative reading");
        out(v * 10);
      }),
    ],
  });
  h.push([1, -2, 3], [1, 2, 3]);
  assert.deepEqual(h.out, ["1@1", "10@1", "3@3", "30@3"]);
  assert.deepEqual(h.letters().map((l) => [l.value, l.timestamp]), [[-2, 2]]);
});
