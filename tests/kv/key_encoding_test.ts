import assert from "node:assert/strict";
import {
  encodedKeySize,
  kvKeySize,
  orderedKey,
} from "../../src/kv/key_encoding.ts";

Deno.test("encodedKeySize() counts tag, UTF-8, escaped zero bytes and terminator per string, 9 bytes per number", () => {
  assert.equal(encodedKeySize([]), 0);
  assert.equal(encodedKeySize(["v"]), 3);
  assert.equal(encodedKeySize(["é"]), 4);
  assert.equal(encodedKeySize(["a\0b"]), 2 + 3 + 1);
  assert.equal(encodedKeySize([1.5, -Infinity]), 18);
  // A key's size is its encoding's length.
  for (const key of [["weir", "job", 7], ["a\0\0", -0, "😀"]]) {
    assert.equal(encodedKeySize(key), orderedKey(key).length);
  }
});

Deno.test("kvKeySize() is encodedKeySize() for strings and numbers, and counts byte arrays and bigints", () => {
  assert.equal(kvKeySize(["weir", 1]), encodedKeySize(["weir", 1]));
  assert.equal(kvKeySize([new Uint8Array(4)]), 6);
  assert.equal(kvKeySize([1n]), 10);
  assert.equal(kvKeySize([true]), 1);
});

Deno.test("orderedKey() sorts as Deno KV does: strings before numbers, numbers numerically, a prefix first", async () => {
  const keys: Deno.KvKey[] = [
    [2],
    [-1],
    [-Infinity],
    [Infinity],
    [0],
    ["b"],
    ["a"],
    ["a", 1],
    ["a\0"],
    ["é"],
    [""],
  ];
  const kv = await Deno.openKv(":memory:");
  try {
    for (const key of keys) await kv.set(key, 1);
    const expected: Deno.KvKey[] = [];
    for await (const entry of kv.list({ prefix: [] })) expected.push(entry.key);
    const sorted = [...keys].sort((a, b) => {
      const x = orderedKey(a as (string | number)[]);
      const y = orderedKey(b as (string | number)[]);
      return x < y ? -1 : x > y ? 1 : 0;
    });
    assert.deepEqual(sorted, expected);
  } finally {
    kv.close();
  }
});
