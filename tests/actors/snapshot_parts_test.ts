import assert from "node:assert/strict";
import { decodeStored, encodeStructured } from "../../src/actors/_codec.ts";
import {
  fillParts,
  partForm,
  partRows,
  partsPlaceholder,
} from "../../src/actors/_snapshot_parts.ts";

Deno.test("fillParts replaces nested placeholders by the concatenation of their parts and leaves everything else alone", () => {
  const parts = [[1, 2], ["a"], [], [{ deep: partsPlaceholder([0]) }]];
  const map = new Map([["m", partsPlaceholder([0])]]);
  const date = new Date(5);
  const value = {
    top: partsPlaceholder([0, 1]),
    list: [partsPlaceholder([1, 0, 1]), 7, null, "s"],
    nested: { again: { slots: partsPlaceholder([2]) } },
    // Not placeholders: other keys beside it, or indices that are no array.
    extra: { "weir:parts": [0], other: 1 },
    notIndices: { "weir:parts": 3 },
    map,
    date,
    fromPart: partsPlaceholder([3]),
  };
  const filled = fillParts(value, parts) as Record<string, unknown>;
  assert.equal(filled, value, "changed in place");
  assert.deepStrictEqual(filled, {
    top: [1, 2, "a"],
    list: [["a", 1, 2, "a"], 7, null, "s"],
    nested: { again: { slots: [] } },
    extra: { "weir:parts": [0], other: 1 },
    notIndices: { "weir:parts": 3 },
    map: new Map([["m", partsPlaceholder([0])]]),
    date: new Date(5),
    // The parts themselves are not searched.
    fromPart: [{ deep: partsPlaceholder([0]) }],
  });
  assert.equal(filled.map, map, "a Map is left as it is");
  assert.equal(filled.date, date);
  // A placeholder at the top is replaced by its concatenation.
  assert.deepStrictEqual(fillParts(partsPlaceholder([1, 1]), parts), [
    "a",
    "a",
  ]);
  for (const scalar of [1, "x", null, undefined]) {
    assert.equal(fillParts(scalar, parts), scalar);
  }
});

Deno.test("fillParts throws a RangeError naming the part that is missing or not an array", () => {
  assert.throws(
    () => fillParts({ slots: partsPlaceholder([0, 2]) }, [[1], [2]]),
    {
      name: "RangeError",
      message: /part 2 must be an array or a table: current value is undefined/,
    },
  );
  assert.throws(
    () => fillParts([partsPlaceholder([1])], [[1], { not: "an array" }]),
    {
      name: "RangeError",
      message: /part 1 must be an array or a table: current value is object/,
    },
  );
});

Deno.test("a part of plain rows with the same fields is encoded as a table, numbers as Float64Array, and decodes to equal rows", () => {
  const rows = [
    { id: 1, key: "a", start: 0, end: 10, contents: [1, 2] },
    { id: 2, key: "b", start: -0, end: NaN, contents: { n: 1 } },
    { id: 3, key: 7, start: 1e15, end: Infinity, contents: undefined },
  ];
  const form = partForm(rows) as { columns: unknown[] };
  assert.ok(!Array.isArray(form), "a table, not the rows");
  assert.ok(form.columns[0] instanceof Float64Array, "ids are numbers");
  assert.ok(Array.isArray(form.columns[1]), "keys are mixed");
  const back = partRows(decodeStored(encodeStructured(form).bytes));
  assert.deepStrictEqual(back, rows);
  assert.ok(Object.is((back![1] as { start: number }).start, -0));
});

Deno.test("a part whose rows differ in fields, or are not plain objects, stays rows; a malformed table is refused", () => {
  const mixed = [{ id: 1, key: "a" }, { id: 2, key: "b", triggerState: 3 }];
  assert.equal(partForm(mixed), mixed);
  const reordered = [{ id: 1, key: "a" }, { key: "b", id: 2 }];
  assert.equal(partForm(reordered), reordered);
  const pairs = [["a", 1], ["b", 2]];
  assert.equal(partForm(pairs), pairs);
  assert.deepEqual(partRows(pairs), pairs);
  const one = [{ id: 1 }];
  assert.equal(partForm(one), one);
  assert.equal(partRows({ "weir:table": ["id"], columns: [[1], [2]] }), null);
  assert.equal(
    partRows({ "weir:table": ["id", "k"], columns: [[1], [2, 3]] }),
    null,
  );
  assert.equal(partRows({ columns: [[1]] }), null);
  assert.equal(partRows(undefined), null);
});
