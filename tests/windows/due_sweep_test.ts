// The session engine's sweep order (src/windows/_due_sweep.ts) against a
// sorted list: (time, id) order, whatever order the entries came in, by
// its radix sort (integer times of a span below 2^32, 128 entries or more),
// as numbers packed with their index (a span past 2^32), by insertion
// (fewer entries), or by compares (a span past what packing holds, a
// fraction).

import assert from "node:assert/strict";
import fc from "fast-check";
import { DueSweep } from "../../src/windows/_due_sweep.ts";

function check(sweep: DueSweep, entries: [number, number][]): void {
  sweep.clear();
  entries.forEach(([time, id], row) => sweep.add(time, id, row));
  const order = sweep.sort();
  const expected = entries.map(([time, id], row) => ({ time, id, row }))
    .sort((a, b) => a.time - b.time || a.id - b.id);
  const got = Array.from(order.subarray(0, entries.length), (at) => ({
    time: sweep.times[at],
    id: sweep.ids[at],
    row: sweep.rows[at],
  }));
  assert.deepEqual(got, expected);
}

Deno.test("DueSweep sorts its entries by (time, id), ties of one time in id order whatever the order they came in (property)", () => {
  const base = fc.constantFrom(0, 1_700_000_000_000, -(2 ** 40));
  // Few distinct times (many ties) or many, in the radix sort; a span past
  // 2^32, packed; past 2^53 / n, or with a fraction, sorted by compares.
  const times = fc.oneof(
    fc.array(fc.integer({ min: 0, max: 30 }), { maxLength: 400, size: "max" }),
    fc.array(fc.integer({ min: 0, max: 3_000_000 }), {
      maxLength: 400,
      size: "max",
    }),
    fc.array(fc.constantFrom(0, 5, 2 ** 33), { maxLength: 200, size: "max" }),
    fc.array(fc.constantFrom(0, 5, 2 ** 52), { maxLength: 200, size: "max" }),
    fc.array(fc.constantFrom(0, 0.5, 3), { maxLength: 200, size: "max" }),
  );
  fc.assert(
    fc.property(base, times, (at, offsets) => {
      const sweep = new DueSweep();
      // Ids unique, in an order unrelated to the times.
      const entries = offsets.map((t, i): [number, number] => [
        at + t,
        (i * 7919) % 100_003,
      ]);
      check(sweep, entries);
      // Reused, as the engine reuses it sweep after sweep.
      check(sweep, entries.slice().reverse());
    }),
    { numRuns: 300, seed: 19 },
  );
});

Deno.test("DueSweep: 5 000 entries of one time, added in descending id order, come out in id order", () => {
  const entries = Array.from(
    { length: 5000 },
    (_, i): [number, number] => [42, 5000 - i],
  );
  check(new DueSweep(), entries);
});

Deno.test("DueSweep frees the arrays of a sweep past 65 536 entries when cleared, and sorts on after", () => {
  const sweep = new DueSweep();
  const entries = Array.from(
    { length: 100_000 },
    (_, i): [number, number] => [(i * 7919) % 1000, i],
  );
  check(sweep, entries);
  assert.ok(sweep.times.length >= 100_000);
  sweep.clear();
  assert.ok(sweep.times.length <= 65_536, `${sweep.times.length}`);
  check(sweep, entries.slice(0, 70_000));
  check(sweep, entries.slice(0, 10));
  // A sweep within the bound keeps its arrays for the next.
  check(sweep, entries.slice(0, 1000));
  const kept = sweep.times;
  check(sweep, entries.slice(0, 1000));
  assert.equal(sweep.times, kept);
});
