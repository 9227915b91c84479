import assert from "node:assert/strict";
import { KeySegment } from "../../src/async/key_segment.ts";

Deno.test("KeySegment counts three increments, keeps the key active after two decrements and removes it after the third (KeySegmentTest)", () => {
  const segment = new KeySegment<string>();
  for (let i = 0; i < 3; i++) segment.incrementKeyReference("k1");
  assert.equal(segment.referenceCount("k1"), 3);
  segment.decrementKeyReference("k1");
  segment.decrementKeyReference("k1");
  assert.equal(segment.referenceCount("k1"), 1);
  assert.equal(segment.hasActiveKey("k1"), true);
  assert.equal(segment.isEmpty(), false);
  segment.decrementKeyReference("k1");
  assert.equal(segment.referenceCount("k1"), 0);
  assert.equal(segment.hasActiveKey("k1"), false);
  assert.equal(segment.isEmpty(), true);
});

Deno.test("KeySegment.incrementKeyReference() inserts an unknown key with a count of 1", () => {
  const segment = new KeySegment<string>();
  assert.equal(segment.hasActiveKey("k1"), false);
  segment.incrementKeyReference("k1");
  assert.equal(segment.referenceCount("k1"), 1);
  assert.deepEqual(segment.entries(), [["k1", 1]]);
});

Deno.test("KeySegment.decrementKeyReference() does nothing for an unknown key", () => {
  const segment = new KeySegment<string>();
  segment.incrementKeyReference("k1");
  assert.equal(segment.decrementKeyReference("k2"), false);
  assert.deepEqual(segment.entries(), [["k1", 1]]);
  assert.equal(segment.totalReferences, 1);
});

Deno.test("KeySegment.hasActiveKey() and isEmpty() follow the keys present", () => {
  const segment = new KeySegment<number>();
  assert.equal(segment.isEmpty(), true);
  segment.incrementKeyReference(1);
  segment.incrementKeyReference(2);
  assert.equal(segment.hasActiveKey(1), true);
  assert.equal(segment.hasActiveKey(2), true);
  assert.equal(segment.keyCount, 2);
  assert.equal(segment.decrementKeyReference(1), true);
  assert.equal(segment.hasActiveKey(1), false);
  assert.equal(segment.isEmpty(), false);
  segment.decrementKeyReference(2);
  assert.equal(segment.isEmpty(), true);
});

Deno.test("KeySegment.totalReferences sums the counts over all keys", () => {
  const segment = new KeySegment<string>();
  segment.incrementKeyReference("a");
  segment.incrementKeyReference("a");
  segment.incrementKeyReference("b", 3);
  assert.equal(segment.totalReferences, 5);
  assert.equal(segment.keyCount, 2);
  segment.decrementKeyReference("b");
  assert.equal(segment.totalReferences, 4);
  assert.deepEqual(segment.entries(), [["a", 2], ["b", 2]]);
});

Deno.test("KeySegment.entries() is detached from the segment", () => {
  const segment = new KeySegment<string>();
  segment.incrementKeyReference("a");
  const entries = segment.entries();
  entries[0][1] = 99;
  entries.push(["b", 1]);
  assert.deepEqual(segment.entries(), [["a", 1]]);
});
