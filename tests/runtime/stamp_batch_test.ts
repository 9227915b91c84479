import assert from "node:assert/strict";
import fc from "fast-check";
import { stampBatch } from "../../src/runtime/_stamp_batch.ts";
import { recordTimestampAssigner } from "../../src/time/timestamp_assigner.ts";

// Values at the edges of the fast integer test and of the safe range.
const edges = [
  0,
  -0,
  0.5,
  -0.5,
  1.7e12 + 0.5,
  2 ** 51 - 0.5,
  2 ** 51,
  2 ** 51 + 1,
  -(2 ** 51) - 1,
  2 ** 52 + 1,
  2 ** 53 - 1,
  2 ** 53,
  -(2 ** 53 - 1),
  -(2 ** 53),
  1e300,
  NaN,
  Infinity,
  -Infinity,
  Number.MIN_VALUE,
];

const timestamp = fc.oneof(
  fc.constantFrom(...edges),
  fc.double(),
  fc.integer(),
  fc.constantFrom<unknown>("5", null, undefined, 5n, { valueOf: () => 5 }),
);

Deno.test("stampBatch() keeps exactly the safe integers and -Infinity, from the default assigner or another", () => {
  fc.assert(
    fc.property(fc.array(timestamp, { maxLength: 30 }), (given) => {
      const values = given.map((_, i) => i);
      const expected = given.map((ts) =>
        !(Number.isSafeInteger(ts) || ts === -Infinity)
      );
      for (
        const assign of [
          recordTimestampAssigner,
          (_: number, ts: number) => ts,
        ]
      ) {
        const rejected: number[] = [];
        const { timestamps, rejected: flags } = stampBatch(
          values,
          given as number[],
          assign,
          (_value, _ts, _error, i) => rejected.push(i!),
          "p",
        );
        assert.deepEqual(
          rejected,
          expected.flatMap((bad, i) => bad ? [i] : []),
        );
        assert.deepEqual(flags ?? values.map(() => false), expected);
        given.forEach((ts, i) => {
          if (!expected[i]) assert.equal(timestamps[i], ts);
        });
      }
    }),
    { seed: 42, numRuns: 500 },
  );
});

Deno.test("stampBatch() hands on the source's valid timestamps from the default assigner: a copy (the source may refill its array), or the array itself when it is the batch's own (SourceBatch.ownTimestamps)", () => {
  for (const own of [false, true]) {
    const given = [1, 2, -Infinity, 2 ** 53 - 1];
    const { timestamps, rejected } = stampBatch(
      ["a", "b", "c", "d"],
      given,
      recordTimestampAssigner,
      () => assert.fail("nothing is rejected"),
      "p",
      own,
    );
    assert.equal(timestamps === given, own);
    assert.deepEqual(timestamps, [1, 2, -Infinity, 2 ** 53 - 1]);
    assert.deepEqual(given, [1, 2, -Infinity, 2 ** 53 - 1]);
    assert.equal(rejected, null);
  }
});

Deno.test("stampBatch() checks and rejects the source's own timestamps as any others, and leaves their array as it is", () => {
  const given = [1, 0.5, 3];
  const rejectedAt: number[] = [];
  const { timestamps, rejected } = stampBatch(
    ["a", "b", "c"],
    given,
    recordTimestampAssigner,
    (_value, ts, error, i) => {
      rejectedAt.push(i!);
      assert.equal(ts, 0.5);
      assert.match(
        (error as Error).message,
        /Cannot read from partition 'p' as 'timestamp' of record 1 must be a safe integer/,
      );
    },
    "p",
    true,
  );
  assert.deepEqual(rejectedAt, [1]);
  assert.deepEqual(rejected, [false, true, false]);
  assert.notEqual(timestamps, given);
  assert.equal(timestamps[0], 1);
  assert.equal(timestamps[2], 3);
  assert.deepEqual(given, [1, 0.5, 3]);
});

Deno.test("stampBatch() of an end-only batch without timestamps (a plain-JS reader) stamps nothing and rejects nothing", () => {
  const { timestamps, rejected } = stampBatch(
    [],
    undefined as unknown as number[],
    recordTimestampAssigner,
    () => assert.fail("nothing is rejected"),
    "p",
  );
  assert.deepEqual(timestamps, []);
  assert.equal(rejected, null);
});

Deno.test("stampBatch() of a batch without timestamps (a plain-JS reader) rejects each record under the error policy", () => {
  const rejected: number[] = [];
  const result = stampBatch(
    ["a", "b"],
    undefined as unknown as number[],
    recordTimestampAssigner,
    (_value, _ts, error, i) => {
      assert.ok(error instanceof TypeError);
      rejected.push(i!);
    },
    "p",
  );
  assert.deepEqual(rejected, [0, 1]);
  assert.deepEqual(result.rejected, [true, true]);
});
