import assert from "node:assert/strict";
import superjson from "superjson";
import {
  decodeStored,
  Encoded,
  encodedCheckpoint,
  encodedSnapshots,
  encodeStructured,
  encodeSuperjson,
  fillParts,
  partForm,
  partRows,
  partsPlaceholder,
  snapshotsToUse,
} from "../../src/actors/_codec.ts";
import { SHAPES } from "./_storage_contract.ts";
import { STATE_FORMAT_VERSION } from "../../src/runtime/fingerprint.ts";

/** A window state of `records` records: compressible, like most state. */
function windowState(records: number) {
  return {
    watermark: -Infinity,
    windows: new Map(
      Array.from({ length: records }, (_, i) => [i, {
        key: `user-${i % 100}`,
        ts: 1_700_000_000_000 + i,
        seen: new Set([i % 7]),
      }]),
    ),
  };
}

Deno.test("encodeStructured round-trips every superjson shape, a shared reference and a cycle", () => {
  for (const [shape, value] of SHAPES) {
    assert.deepStrictEqual(
      decodeStored(encodeStructured(value).bytes),
      value,
      shape,
    );
  }
  const shared = { n: 1 };
  const both = decodeStored<{ a: object; b: object }>(
    encodeStructured({ a: shared, b: shared }).bytes,
  );
  assert.equal(both.a, both.b);
  const cycle: { self?: unknown } = {};
  cycle.self = cycle;
  const back = decodeStored<{ self: unknown }>(encodeStructured(cycle).bytes);
  assert.equal(back.self, back);
});

Deno.test("encodeStructured compresses a large compressible value, not an incompressible one", () => {
  const state = windowState(20_000);
  const encoded = encodeStructured(state);
  assert.equal(encoded.bytes[0], 0x78, "deflated in zlib's format");
  assert.deepStrictEqual(decodeStored(encoded.bytes), state);

  let x = 7; // xorshift32: bytes that do not compress
  const noise = new Uint8Array(200_000).map(() => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return x >>> 24;
  });
  const raw = encodeStructured({ noise });
  assert.equal(raw.bytes[0], 0xff, "left as V8's format");
  assert.deepStrictEqual(decodeStored(raw.bytes), { noise });

  assert.equal(encodeStructured(windowState(10)).bytes[0], 0xff, "small");
});

Deno.test("an encoded value is a copy: later changes of the value do not reach it", () => {
  const state = { list: [1, 2], map: new Map([["a", 1]]) };
  const encoded = encodeStructured(state);
  state.list.push(3);
  state.map.set("b", 2);
  assert.deepStrictEqual(encoded.decode(), {
    list: [1, 2],
    map: new Map([["a", 1]]),
  });
  // Each decode is a fresh copy.
  assert.notEqual(encoded.decode(), encoded.decode());
});

Deno.test("encodeStructured refuses functions and symbols", () => {
  assert.throws(() => encodeStructured({ f: () => 1 }), /could not be cloned/);
  assert.throws(() => encodeStructured(Symbol("s")), /could not be cloned/);
});

Deno.test("decodeStored still reads superjson text, as weir wrote every value before", () => {
  const value = { low: -Infinity, seen: new Map([["a", new Set([1])]]) };
  const bytes = new TextEncoder().encode(superjson.stringify(value));
  assert.deepStrictEqual(decodeStored(bytes), value);
  const encoded = encodeSuperjson(value)!;
  assert.deepStrictEqual(encoded.decode(), value);
  assert.deepStrictEqual(decodeStored(encoded.bytes), value);
  assert.equal(encodeSuperjson(() => 1), undefined);
});

Deno.test("encodedCheckpoint decodes its subtasks once, on first read, and restores from fresh copies", () => {
  const fingerprint = {
    jobName: "clicks",
    operatorIds: ["src-1"],
    maxParallelism: 128,
    stateFormatVersion: STATE_FORMAT_VERSION,
  };
  const snapshots = { "clicks/src-1/0": encodeStructured({ offset: 4 }) };
  const checkpoint = encodedCheckpoint(
    { id: 3, fingerprint, createdAt: 10 },
    snapshots,
  );
  assert.equal(encodedSnapshots(checkpoint), snapshots);
  assert.deepStrictEqual(checkpoint, {
    id: 3,
    fingerprint,
    createdAt: 10,
    subtasks: { "clicks/src-1/0": { offset: 4 } },
  });
  const restored = snapshotsToUse(checkpoint);
  assert.deepStrictEqual(restored, checkpoint.subtasks);
  assert.notEqual(
    restored["clicks/src-1/0"],
    checkpoint.subtasks["clicks/src-1/0"],
  );

  const plain = { ...checkpoint };
  assert.equal(encodedSnapshots(plain), undefined);
  assert.equal(snapshotsToUse(plain), plain.subtasks);
});

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

Deno.test("an Encoded with parts decodes to its value with the placeholders filled, afresh each time", () => {
  const partA = encodeStructured([{ id: 1, key: "a" }, { id: 2, key: "b" }]);
  const partB = encodeStructured([{ id: 3, key: new Set(["c"]) }]);
  const main = encodeStructured({ slots: partsPlaceholder([0, 1]), other: 1 });
  const encoded = new Encoded(main.bytes, undefined, [partA, partB]);
  assert.deepStrictEqual(encoded.parts, [partA, partB]);
  const expected = {
    slots: [
      { id: 1, key: "a" },
      { id: 2, key: "b" },
      { id: 3, key: new Set(["c"]) },
    ],
    other: 1,
  };
  const first = encoded.decode();
  assert.deepStrictEqual(first, expected);
  assert.notEqual(encoded.decode(), first);
  // Without parts, the placeholder stays.
  assert.deepStrictEqual(main.decode(), {
    slots: partsPlaceholder([0, 1]),
    other: 1,
  });
  // A superjson payload gets its parts filled too.
  const text = encodeSuperjson({ slots: partsPlaceholder([1]) })!;
  assert.deepStrictEqual(
    new Encoded(text.bytes, text.text, [partA, partB]).decode(),
    { slots: [{ id: 3, key: new Set(["c"]) }] },
  );
  // A part that is missing fails the decode.
  assert.throws(() => new Encoded(main.bytes, undefined, [partA]).decode(), {
    name: "RangeError",
    message: /part 1 /,
  });
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
