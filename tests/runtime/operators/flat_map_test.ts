import assert from "node:assert/strict";
import { FlatMapOperator } from "../../../src/runtime/operators/flat_map.ts";
import { OperatorHarness } from "../../_support/operator_harness.ts";

function splitWords(line: string, out: (word: string) => void): void {
  for (const word of line.split(" ")) if (word !== "") out(word);
}

Deno.test("FlatMapOperator gives each output its input record's timestamp, one batch per input batch", () => {
  const h = new OperatorHarness(new FlatMapOperator(splitWords)).open();
  h.batch(["a b", "", "c"], [1, 2, 3]);
  assert.deepEqual(h.batches, [["R(a)@1", "R(b)@1", "R(c)@3"]]);
});

Deno.test("FlatMapOperator emits no batch when nothing was produced", () => {
  const h = new OperatorHarness(new FlatMapOperator(splitWords)).open();
  h.batch(["", " "], [1, 2]);
  assert.deepEqual(h.batches, []);
});

Deno.test("FlatMapOperator forwards watermarks and statuses unchanged", () => {
  const h = new OperatorHarness(new FlatMapOperator(splitWords)).open();
  h.element("x y", 4).watermark(4).status("idle");
  assert.deepEqual(h.take(), ["R(x)@4", "R(y)@4", "W4", "idle"]);
});

Deno.test("FlatMapOperator is stateless", () => {
  assert.equal(new FlatMapOperator(splitWords).snapshotState(), null);
});

Deno.test("FlatMapOperator rejects a missing function, naming 'fn' (STYLE rule 28)", () => {
  assert.throws(
    () => new FlatMapOperator(42 as unknown as typeof splitWords),
    { name: "TypeError", message: /'fn'.*42/ },
  );
});
