import assert from "node:assert/strict";
import { FlatMapOperator } from "../../../src/runtime/operators/flat_map.ts";
import { OperatorHarness } from "../../_support/operator_harness.ts";
import { guardHarness } from "../../_support/guard_harness.ts";

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

Deno.test("FlatMapOperator rejects a missing function, naming 'fn'", () => {
  assert.throws(
    () => new FlatMapOperator(42 as unknown as typeof splitWords),
    { name: "TypeError", message: /'fn'.*42/ },
  );
});

// --- a record whose user function throws is set aside -------------------
Deno.test("FlatMapOperator sets aside a record whose fn throws, drops what it collected before the throw, and goes on", () => {
  const h = guardHarness({
    operators: () => [
      new FlatMapOperator<string, string>((v, out) => {
        for (const part of v.split(",")) {
          if (part === "") throw new SyntaxError("Cannot split an empty part");
          out(part);
        }
      }),
    ],
  });
  h.push(["a,b", "c,,d", "e"], [1, 2, 3]);
  assert.deepEqual(h.out, ["a@1", "b@1", "e@3"]);
  const [letter] = h.letters();
  assert.equal(letter.value, "c,,d");
  assert.equal(letter.error.name, "SyntaxError");
});
