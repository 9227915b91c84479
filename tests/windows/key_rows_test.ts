// The session and pane engines' key index (src/windows/_key_rows.ts)
// against a Map: the same rows for every key, integers in a range (its
// typed array, moved and grown), -0, fractions, window ends, the safe
// integers' ends, large numbers and other keys, and ids that grow while old ones go.

import assert from "node:assert/strict";
import fc from "fast-check";
import { KeyRows } from "../../src/windows/_key_rows.ts";

const key = fc.oneof(
  fc.integer({ min: -3_000, max: 3_000 }),
  fc.integer({ min: 2 ** 20, max: 2 ** 20 + 50 }),
  // Window ends, as q5's second stage keys by them.
  fc.integer({ min: 0, max: 40 }).map((n) => 1.7e12 + n * 2_000),
  fc.constantFrom(1.7e12 + 0.5, 2 ** 53 - 1, 2 ** 53, 2 ** 53 + 2, -(2 ** 53)),
  fc.constantFrom(-0, 0, 0.5, -1, NaN, 2 ** 31 - 1, -(2 ** 31), 2 ** 31),
  fc.constantFrom(2 ** 32, 1e300, -Infinity),
  // Fractions next to integers of the range: they must not find the
  // integer's row.
  fc.constantFrom(2 + 2 ** -51, 1 - 2 ** -53, 5e-324, -5e-324, -0.5),
  fc.double(),
  fc.string({ maxLength: 2 }),
  fc.constantFrom(null, undefined, true, 1n),
);

type Op = { kind: "set" | "delete"; key: unknown; row: number };

function check(rows: KeyRows<unknown>, model: Map<unknown, number>): void {
  for (const [k, r] of model) assert.equal(rows.get(k), r);
}

const op = fc.record({
  kind: fc.constantFrom("set" as const, "set" as const, "delete" as const),
  key,
  row: fc.integer({ min: 0, max: 1_000_000 }),
});

// Applies `ops` to `rows` and to a Map, checking each key as it changes and
// every key at the end; returns the Map.
function replay(rows: KeyRows<unknown>, ops: Op[]): Map<unknown, number> {
  const model = new Map<unknown, number>();
  for (const { kind, key, row } of ops) {
    if (kind === "set") {
      rows.set(key, row);
      model.set(key, row);
    } else {
      rows.delete(key);
      model.delete(key);
    }
    assert.equal(rows.get(key), model.get(key));
  }
  check(rows, model);
  return model;
}

Deno.test("KeyRows holds the rows a Map holds, for every kind of key (property)", () => {
  fc.assert(
    fc.property(fc.array(op, { maxLength: 300 }), (ops: Op[]) => {
      const rows = new KeyRows<unknown>();
      const model = replay(rows, ops);
      rows.clear();
      for (const k of model.keys()) assert.equal(rows.get(k), undefined);
    }),
    { numRuns: 500 },
  );
});

Deno.test("KeyRows sized for the keys expected holds the rows a Map holds (property)", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 5_000 }),
      fc.array(op, { maxLength: 300 }),
      (expected: number, ops: Op[]) => {
        replay(new KeyRows<unknown>(expected), ops);
      },
    ),
    { numRuns: 300 },
  );
});

Deno.test("KeyRows sized for the keys expected follows ids beyond them, and the safe integers' ends", () => {
  const rows = new KeyRows<number>(700);
  const model = new Map<number, number>();
  for (let id = 0; id < 20_000; id++) {
    const key = id % 3 === 0 ? 5_000 + id : 5_000 + (id * 7) % 800;
    rows.set(key, id);
    model.set(key, id);
  }
  for (const edge of [Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER]) {
    const ends = new KeyRows<number>(1_000);
    ends.set(edge, 1);
    ends.set(edge - Math.sign(edge) * 999, 2);
    assert.equal(ends.get(edge), 1);
    assert.equal(ends.get(edge - Math.sign(edge) * 999), 2);
    assert.equal(ends.get(edge - Math.sign(edge)), undefined);
  }
  for (const [k, r] of model) assert.equal(rows.get(k), r);
});

Deno.test("KeyRows follows ids that grow while the oldest go, and far ones", () => {
  const rows = new KeyRows<unknown>();
  const model = new Map<unknown, number>();
  for (let id = 0; id < 200_000; id++) {
    rows.set(id, id);
    model.set(id, id);
    const far = id % 97 === 0 ? id * 7_919 : id - 1_000;
    rows.set(far, 1_000_000 + id);
    model.set(far, 1_000_000 + id);
    if (id >= 1_000) {
      rows.delete(id - 1_000);
      model.delete(id - 1_000);
    }
    if (id % 20_000 === 0) check(rows, model);
  }
  check(rows, model);
});

Deno.test("KeyRows treats -0 and 0 as one key, as a Map does", () => {
  const rows = new KeyRows<number>();
  rows.set(-0, 7);
  assert.equal(rows.get(0), 7);
  rows.delete(0);
  assert.equal(rows.get(-0), undefined);
});

Deno.test("KeyRows does not give a fraction next to an integer that integer's row", () => {
  const rows = new KeyRows<number>();
  rows.set(2, 0);
  assert.equal(rows.get(2 + 2 ** -51), undefined);
  rows.set(2 + 2 ** -51, 1);
  assert.equal(rows.get(2 + 2 ** -51), 1);
  assert.equal(rows.get(2), 0);
  rows.set(5e-324, 2);
  rows.set(0, 3);
  assert.equal(rows.get(5e-324), 2);
  assert.equal(rows.get(-0.5), undefined);
});

Deno.test("KeyRows holds integers at and beyond the small-integer bounds (2 ** 30) as a Map does", () => {
  const keys = [
    2 ** 30 - 2,
    2 ** 30 - 1,
    2 ** 30,
    2 ** 30 + 1,
    2 ** 31 - 1,
    -(2 ** 30),
    -(2 ** 30) - 1,
    -(2 ** 31),
    1.7e12,
    1.7e12 + 2_000,
    0,
    -0,
    1,
  ];
  const rows = new KeyRows<number>(16);
  const model = new Map<number, number>();
  keys.forEach((k, i) => {
    rows.set(k, i);
    model.set(k, i);
  });
  for (const [k, r] of model) assert.equal(rows.get(k), r);
  assert.equal(rows.get(2 ** 30 - 3), undefined);
  assert.equal(rows.get(-(2 ** 30) + 1), undefined);
  assert.equal(rows.get(1 + 2 ** -52), undefined);
  rows.delete(2 ** 30);
  rows.delete(-(2 ** 30));
  assert.equal(rows.get(2 ** 30), undefined);
  assert.equal(rows.get(-(2 ** 30)), undefined);
  assert.equal(rows.get(2 ** 30 - 1), 1);
  assert.equal(rows.get(-(2 ** 30) - 1), 6);
});

Deno.test("KeyRows gives the row a key has now when the same key comes again, after a set, delete or clear", () => {
  const rows = new KeyRows<unknown>();
  const end = 1.7e12;
  rows.set(end, 3);
  rows.set("a", 4);
  assert.equal(rows.get(end), 3);
  assert.equal(rows.get(end), 3);
  rows.set(end, 5);
  assert.equal(rows.get(end), 5);
  rows.delete(end);
  assert.equal(rows.get(end), undefined);
  rows.set(end, 6);
  assert.equal(rows.get(end), 6);
  assert.equal(rows.get("a"), 4);
  rows.clear();
  assert.equal(rows.get("a"), undefined);
  assert.equal(rows.get(end), undefined);
  rows.set(undefined, 7);
  assert.equal(rows.get(undefined), 7);
  assert.equal(rows.get(undefined), 7);
  rows.delete(undefined);
  assert.equal(rows.get(undefined), undefined);
  // A large integer the Map held, then taken into the array by a move.
  const ints = new KeyRows<number>();
  ints.set(2 ** 30 - 300, 1);
  ints.set(0, 2);
  assert.equal(ints.get(2 ** 30 - 300), 1);
  for (let k = 1; k < 4_000; k++) ints.set(2 ** 30 - 4_000 + k, 10 + k);
  assert.equal(ints.get(2 ** 30 - 300), 10 + 3_700);
  assert.equal(ints.get(0), 2);
});

// The lengths of the Int32Arrays made while `run` runs: the key index's
// arrays (nothing else here makes one).
function arraysMade(run: () => void): number[] {
  const lengths: number[] = [];
  const Original = globalThis.Int32Array;
  class Counted extends Original {
    constructor(length: number) {
      super(length);
      lengths.push(length);
    }
  }
  globalThis.Int32Array = Counted as Int32ArrayConstructor;
  try {
    run();
  } finally {
    globalThis.Int32Array = Original;
  }
  return lengths;
}

Deno.test("KeyRows sized for many keys costs no more than 64 bytes a key it holds and 1 KB when few come", () => {
  // One key, two far apart, ten sparse ids: a window after a large one.
  const cases: [number, number[]][] = [
    [65_536, [5]],
    [65_536, [0, 500_000]],
    [1_000, Array.from({ length: 10 }, (_, i) => i * 1_000_003)],
    [100_000, Array.from({ length: 100 }, (_, i) => i)],
  ];
  for (const [expected, keys] of cases) {
    let rows: KeyRows<number> | null = null;
    const made = arraysMade(() => {
      rows = new KeyRows<number>(expected);
      keys.forEach((k, i) => rows!.set(k, i));
    });
    keys.forEach((k, i) => assert.equal(rows!.get(k), i));
    const most = Math.max(0, ...made);
    assert.ok(
      4 * most <= 64 * keys.length + 1024,
      `${keys.length} keys, ${expected} expected: an array of ${most}`,
    );
  }
});

Deno.test("KeyRows sized for the keys expected makes fewer arrays for them once a quarter has come", () => {
  const expected = 1_000;
  const fill = (rows: KeyRows<number>) => {
    // Ids spread over twice their count, from 10 000 on.
    for (let i = 0; i < expected; i++) rows.set(10_000 + 2 * i, i);
  };
  const sized = arraysMade(() => fill(new KeyRows<number>(expected)));
  const unsized = arraysMade(() => fill(new KeyRows<number>()));
  assert.ok(
    sized.length < unsized.length,
    `arrays made: ${sized.join(", ")} against ${unsized.join(", ")}`,
  );
  // The last one spans four times the keys expected.
  assert.equal(sized[sized.length - 1], 4 * expected);
});
