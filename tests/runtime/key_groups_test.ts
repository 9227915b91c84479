import assert from "node:assert/strict";
import fc from "fast-check";
import {
  DEFAULT_MAX_PARALLELISM,
  hashKey,
  keyGroupOf,
  subtaskForKeyGroup,
} from "../../src/runtime/key_groups.ts";

/** How many keys land in each of `maxParallelism` key groups. */
function groupCounts(
  keys: Iterable<unknown>,
  maxParallelism: number,
): number[] {
  const counts = new Array<number>(maxParallelism).fill(0);
  for (const key of keys) counts[keyGroupOf(key, maxParallelism)]++;
  return counts;
}

function* sequence(n: number): Generator<number> {
  for (let i = 0; i < n; i++) yield i;
}

Deno.test("keyGroupOf() spreads 10,000 sequential integer keys over 128 key groups, none holding more than twice the mean", () => {
  const counts = groupCounts(sequence(10_000), DEFAULT_MAX_PARALLELISM);
  const mean = 10_000 / DEFAULT_MAX_PARALLELISM;
  assert.ok(Math.max(...counts) <= 2 * mean, `max ${Math.max(...counts)}`);
  assert.ok(Math.min(...counts) > 0, "every key group holds some key");
});

Deno.test("keyGroupOf() spreads 10,000 string keys with a shared prefix over 128 key groups, none holding more than twice the mean", () => {
  const keys = Array.from(sequence(10_000), (i) => `user-${i}`);
  const counts = groupCounts(keys, DEFAULT_MAX_PARALLELISM);
  assert.ok(Math.max(...counts) <= 2 * (10_000 / DEFAULT_MAX_PARALLELISM));
});

Deno.test("hashKey() returns the same values in every process, so keys keep their key group across restarts", () => {
  // Pinned once from the implementation (FNV-1a + murmur3 finaliser): a
  // change here moves keyed state to other subtasks after a restore.
  assert.equal(hashKey(""), 2872998923);
  assert.equal(hashKey("a"), 444641715);
  assert.equal(hashKey("user-1"), 2005895916);
  assert.equal(hashKey(0), 0);
  assert.equal(hashKey(1), 1364076727);
  assert.equal(hashKey(42), 142593372);
  assert.equal(hashKey(-1), 2180083513);
  assert.equal(hashKey(true), 1231);
  assert.equal(hashKey(false), 1237);
  assert.equal(hashKey(5n), 92992995);
  assert.equal(keyGroupOf("user-1", 128), 108);
  assert.equal(keyGroupOf(42, 128), 92);
});

// The hash of a number as first written (one switch on the type): the
// fast path for 32-bit integers must give the same value for every number.
function referenceNumberHash(key: number): number {
  if (Number.isInteger(key) && Math.abs(key) <= 0x7fffffff) {
    let h = key | 0;
    h ^= h >>> 16;
    h = Math.imul(h, 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    h ^= h >>> 16;
    return h >>> 0;
  }
  return hashKey(String(key));
}

Deno.test("hashKey() and keyGroupOf() give every number the hash and group of the reference, at the edges of 32 bits too", () => {
  const edges = [
    0,
    -0,
    1,
    -1,
    0x7fffffff,
    -0x7fffffff,
    -0x80000000,
    0x80000000,
    2 ** 32,
    2 ** 53,
    0.5,
    -1.5,
    NaN,
    Infinity,
    -Infinity,
  ];
  const number = fc.oneof(
    fc.constantFrom(...edges),
    fc.integer(),
    fc.integer({ min: -(2 ** 33), max: 2 ** 33 }),
    fc.double(),
  );
  const maxParallelism = fc.oneof(
    fc.integer({ min: 1, max: 32_768 }),
    fc.constantFrom(2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 40),
  );
  fc.assert(
    fc.property(number, maxParallelism, (key, max) => {
      const expected = referenceNumberHash(key);
      assert.equal(hashKey(key), expected);
      assert.equal(keyGroupOf(key, max), expected % max);
    }),
    { seed: 42, numRuns: 2_000 },
  );
});

Deno.test("hashKey() returns an unsigned 32-bit integer for strings, numbers, booleans and bigints", () => {
  const keys: unknown[] = [
    "",
    "ünïcödé 🚀",
    0,
    -0,
    1,
    -1,
    0x7fffffff,
    -0x7fffffff,
    2 ** 40,
    1.5,
    NaN,
    Infinity,
    true,
    false,
    0n,
    -7n,
    2n ** 70n,
  ];
  for (const key of keys) {
    const hash = hashKey(key);
    assert.ok(
      Number.isInteger(hash) && hash >= 0 && hash <= 0xffffffff,
      `${String(key)} -> ${hash}`,
    );
    assert.equal(hashKey(key), hash, `${String(key)} hashes the same twice`);
  }
});

Deno.test("hashKey() hashes -0 like 0 and a large integer like its bigint, so equal keys share a group", () => {
  assert.equal(hashKey(-0), hashKey(0));
  assert.equal(hashKey(2 ** 40), hashKey(2n ** 40n));
});

Deno.test("hashKey() rejects objects, null, undefined, symbols and functions with a TypeError naming the type", () => {
  const cases: Array<[unknown, string]> = [
    [{ id: 1 }, "object"],
    [[1, 2], "object"],
    [null, "null"],
    [undefined, "undefined"],
    [Symbol("k"), "symbol"],
    [() => 1, "function"],
  ];
  for (const [key, type] of cases) {
    assert.throws(() => hashKey(key), {
      name: "TypeError",
      message: new RegExp(
        `string, number, boolean or bigint.*of type ${type}\\b`,
      ),
    });
  }
});

Deno.test("keyGroupOf() returns an integer key group in [0, maxParallelism) for every max parallelism", () => {
  const keys: unknown[] = [
    "a",
    "b",
    0,
    1,
    -5,
    3.25,
    true,
    false,
    9n,
    "long key ".repeat(20),
  ];
  for (const maxParallelism of [1, 2, 3, 7, 128, 1000, 32768]) {
    for (const key of keys) {
      const group = keyGroupOf(key, maxParallelism);
      assert.ok(
        Number.isInteger(group) && group >= 0 && group < maxParallelism,
        `${String(key)} at ${maxParallelism} -> ${group}`,
      );
    }
  }
});

Deno.test("subtaskForKeyGroup() gives each subtask one contiguous range of key groups, covering every subtask, at parallelism 1 to 7", () => {
  for (const maxParallelism of [7, 10, 128]) {
    for (let parallelism = 1; parallelism <= 7; parallelism++) {
      const owners = Array.from(
        sequence(maxParallelism),
        (group) => subtaskForKeyGroup(group, maxParallelism, parallelism),
      );
      assert.equal(owners[0], 0);
      assert.equal(owners[maxParallelism - 1], parallelism - 1);
      for (let g = 1; g < maxParallelism; g++) {
        const step = owners[g] - owners[g - 1];
        assert.ok(
          step === 0 || step === 1,
          `groups ${
            g - 1
          } and ${g} at parallelism ${parallelism} of ${maxParallelism}`,
        );
      }
      assert.deepEqual(new Set(owners).size, parallelism);
    }
  }
});

Deno.test("subtaskForKeyGroup() gives every subtask at least one key group whenever parallelism <= maxParallelism", () => {
  for (const maxParallelism of [1, 2, 5, 16, 128]) {
    for (let parallelism = 1; parallelism <= maxParallelism; parallelism++) {
      const perSubtask = new Array<number>(parallelism).fill(0);
      for (let group = 0; group < maxParallelism; group++) {
        const subtask = subtaskForKeyGroup(group, maxParallelism, parallelism);
        assert.ok(subtask >= 0 && subtask < parallelism);
        perSubtask[subtask]++;
      }
      assert.ok(
        perSubtask.every((n) => n >= 1),
        `parallelism ${parallelism} of ${maxParallelism}: ${perSubtask}`,
      );
      // Ranges differ in size by at most one group.
      assert.ok(Math.max(...perSubtask) - Math.min(...perSubtask) <= 1);
    }
  }
});

Deno.test("subtaskForKeyGroup() keeps a key on one subtask when the parallelism stays the same, and moves whole ranges when it changes", () => {
  // Rescaling 2 -> 4 splits each old range in two: the new owner of a group
  // is always one of the two halves of its old owner's range.
  for (let group = 0; group < 128; group++) {
    const before = subtaskForKeyGroup(group, 128, 2);
    const after = subtaskForKeyGroup(group, 128, 4);
    assert.equal(Math.floor(after / 2), before);
  }
});
