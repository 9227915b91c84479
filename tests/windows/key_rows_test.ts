// The session engine's key index (src/windows/_key_rows.ts) against a Map:
// the same rows for every key, small integers (its typed array, grown past
// its first size), -0, fractions, negatives, large numbers and other keys.

import assert from "node:assert/strict";
import fc from "fast-check";
import { KeyRows } from "../../src/windows/_key_rows.ts";

const key = fc.oneof(
  fc.integer({ min: 0, max: 2_000 }),
  fc.constantFrom(-0, 0, 0.5, -1, NaN, 2 ** 20 - 1, 2 ** 20, 2 ** 32, 1e300),
  fc.string({ maxLength: 2 }),
  fc.constantFrom(null, undefined, true, 1n),
);

type Op = { kind: "set" | "delete"; key: unknown; row: number };

Deno.test("KeyRows holds the rows a Map holds, for every kind of key (property)", () => {
  const op = fc.record({
    kind: fc.constantFrom("set" as const, "set" as const, "delete" as const),
    key,
    row: fc.integer({ min: 0, max: 1_000_000 }),
  });
  fc.assert(
    fc.property(fc.array(op, { maxLength: 300 }), (ops: Op[]) => {
      const rows = new KeyRows<unknown>();
      const model = new Map<unknown, number>();
      for (const { kind, key, row } of ops) {
        if (kind === "set") {
          rows.set(key, row);
          model.set(key, row);
        } else {
          rows.delete(key);
          model.delete(key);
        }
        for (const [k, r] of model) assert.equal(rows.get(k), r);
        assert.equal(rows.get(key), model.get(key));
      }
    }),
  );
});

Deno.test("KeyRows treats -0 and 0 as one key, as a Map does", () => {
  const rows = new KeyRows<number>();
  rows.set(-0, 7);
  assert.equal(rows.get(0), 7);
  rows.delete(0);
  assert.equal(rows.get(-0), undefined);
});
