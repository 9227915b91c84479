// StepParts: the KV runtime's step state in parts, written only when a
// group of state changed.

import assert from "node:assert/strict";
import {
  decodeStored,
  type Encoded,
  partRows,
} from "../../../src/actors/_codec.ts";
import { StepParts } from "../../../src/actors/kv/_step_parts.ts";
import type { StorageOp } from "../../../src/actors/storage.ts";

function rowsOf(put: StorageOp): unknown[] | null {
  assert.equal(put.type, "put");
  return partRows(
    decodeStored(((put as { value: unknown }).value as Encoded).bytes),
  );
}

Deno.test("StepParts writes a group once while it is the same array, and a changed group under a new number", () => {
  const parts = new StepParts(0, []);
  const a = [{ key: "a", n: 1 }, { key: "b", n: 2 }];
  const b = [{ key: "c", n: 3 }];
  const first = parts.snapshot(() => ({ window: parts.hook([a, b]) }));
  assert.deepEqual(first.state, { window: { "weir:parts": [0, 1] } });
  assert.deepEqual(first.puts.map((p) => p.key), [["part", 0], ["part", 1]]);
  assert.deepEqual(rowsOf(first.puts[0]), a);
  assert.deepEqual(first.dropped, []);
  parts.committed(first);
  // b changed (a new array); a did not.
  const b2 = [{ key: "c", n: 4 }];
  const second = parts.snapshot(() => ({ window: parts.hook([a, b2]) }));
  assert.deepEqual(second.state, { window: { "weir:parts": [0, 2] } });
  assert.deepEqual(second.puts.map((p) => p.key), [["part", 2]]);
  assert.deepEqual(second.dropped, [1]);
  assert.equal(second.nextPart, 3);
  parts.committed(second);
  const third = parts.snapshot(() => parts.hook([a, b2]));
  assert.deepEqual(third.puts, []);
  assert.deepEqual(third.dropped, []);
});

Deno.test("StepParts hands a checkpoint's snapshot (outside a step) the concatenation itself", () => {
  const parts = new StepParts(0, []);
  assert.deepEqual(parts.hook([[1, 2], [3]]), [1, 2, 3]);
});

Deno.test("StepParts resumes numbering after a take-over and writes the state whole when too many groups changed", () => {
  const parts = new StepParts(7, [5, 6]);
  const one = parts.snapshot(() => parts.hook([[1]]));
  assert.deepEqual(one.parts, [7]);
  assert.deepEqual(one.dropped, [5, 6]);
  parts.committed(one);
  const groups = Array.from({ length: 301 }, (_, i) => [i]);
  const many = parts.snapshot(() => ({ all: parts.hook(groups) }));
  assert.deepEqual(many.puts, []);
  assert.deepEqual(many.parts, []);
  assert.deepEqual(many.dropped, [7]);
  assert.equal((many.state as { all: number[] }).all.length, 301);
});
