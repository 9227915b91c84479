import assert from "node:assert/strict";
import fc from "fast-check";
import {
  keyGroupOf,
  subtaskForKeyGroup,
} from "../../src/runtime/key_groups.ts";
import {
  broadcastPartitioner,
  forwardPartitioner,
  hashPartitioner,
  type Partitioner,
  rebalancePartitioner,
} from "../../src/runtime/partitioner.ts";

interface Sent<T> {
  channel: number;
  values: T[];
  timestamps: number[];
}

/** Routes one batch and records every send, in order. */
function route<T>(
  partitioner: Partitioner<T>,
  values: T[],
  numChannels: number,
  timestamps: number[] = values.map((_, i) => 100 + i),
): Sent<T>[] {
  const sent: Sent<T>[] = [];
  partitioner.route(values, timestamps, numChannels, (channel, v, t) => {
    sent.push({ channel, values: v, timestamps: t });
  });
  return sent;
}

Deno.test("forwardPartitioner() sends the whole batch to the channel with the producer's own index", () => {
  const partitioner = forwardPartitioner<string>(2);
  assert.equal(partitioner.name, "forward");
  assert.deepEqual(route(partitioner, ["a", "b"], 4), [
    { channel: 2, values: ["a", "b"], timestamps: [100, 101] },
  ]);
  assert.deepEqual(route(partitioner, ["c"], 4), [
    { channel: 2, values: ["c"], timestamps: [100] },
  ]);
});

Deno.test("rebalancePartitioner() sends whole batches round-robin, starting at the producer's own index", () => {
  const partitioner = rebalancePartitioner<number>(2);
  assert.equal(partitioner.name, "rebalance");
  const channels: number[] = [];
  for (let i = 0; i < 7; i++) {
    const sent = route(partitioner, [i, i + 100], 3);
    assert.equal(sent.length, 1, "one send per batch");
    assert.deepEqual(sent[0].values, [i, i + 100]);
    assert.deepEqual(sent[0].timestamps, [100, 101]);
    channels.push(sent[0].channel);
  }
  assert.deepEqual(channels, [2, 0, 1, 2, 0, 1, 2]);
});

Deno.test("rebalancePartitioner() of different producers start on different channels", () => {
  const firsts = [0, 1, 2, 3].map((index) =>
    route(rebalancePartitioner<number>(index), [1], 4)[0].channel
  );
  assert.deepEqual(firsts, [0, 1, 2, 3]);
});

Deno.test("broadcastPartitioner() sends every record to every channel, sharing the (immutable) arrays", () => {
  const partitioner = broadcastPartitioner<{ n: number }>();
  assert.equal(partitioner.name, "broadcast");
  const values = [{ n: 1 }, { n: 2 }];
  const timestamps = [10, 20];
  const sent = route(partitioner, values, 3, timestamps);
  assert.deepEqual(sent.map((s) => s.channel), [0, 1, 2]);
  for (const s of sent) {
    assert.deepEqual(s.values, values);
    assert.deepEqual(s.timestamps, timestamps);
    // Emitted batches are never modified, so no copy per channel is needed.
    assert.equal(s.values, values);
    assert.equal(s.timestamps, timestamps);
  }
});

Deno.test("hashPartitioner() sends the records of one key to the same channel at parallelism 1 to 8", () => {
  const keys = Array.from({ length: 50 }, (_, i) => `k${i}`);
  for (let numChannels = 1; numChannels <= 8; numChannels++) {
    const partitioner = hashPartitioner<{ key: string; seq: number }>(
      (r) => r.key,
      128,
    );
    const channelOf = new Map<string, number>();
    for (let round = 0; round < 3; round++) {
      const batch = keys.map((key, seq) => ({ key, seq: round * 100 + seq }));
      for (const s of route(partitioner, batch, numChannels)) {
        for (const record of s.values) {
          const seen = channelOf.get(record.key);
          if (seen === undefined) channelOf.set(record.key, s.channel);
          else {assert.equal(
              s.channel,
              seen,
              `key ${record.key} at ${numChannels} channels`,
            );}
        }
      }
    }
    assert.equal(channelOf.size, keys.length);
  }
});

Deno.test("hashPartitioner() sends at most one batch per channel per call, routing every record exactly once with its timestamp", () => {
  for (let numChannels = 1; numChannels <= 8; numChannels++) {
    const partitioner = hashPartitioner<number>((n) => n, 128);
    const values = Array.from({ length: 200 }, (_, i) => i);
    const timestamps = values.map((v) => 1_000 + v);
    const sent = route(partitioner, values, numChannels, timestamps);
    const channels = sent.map((s) => s.channel);
    assert.equal(
      new Set(channels).size,
      channels.length,
      "one batch per channel",
    );
    assert.deepEqual(
      channels,
      [...channels].sort((a, b) => a - b),
      "channels in order",
    );
    const routed = sent.flatMap((s) => s.values);
    assert.deepEqual(
      [...routed].sort((a, b) => a - b),
      values,
      "every record exactly once",
    );
    for (const s of sent) {
      assert.ok(s.values.length > 0, "no empty batch");
      assert.deepEqual(s.timestamps, s.values.map((v) => 1_000 + v));
      // Records of one channel keep their input order.
      assert.deepEqual(s.values, [...s.values].sort((a, b) => a - b));
    }
  }
});

Deno.test("hashPartitioner() sends a record to subtaskForKeyGroup(keyGroupOf(key))", () => {
  const maxParallelism = 16;
  const keys: unknown[] = [
    "a",
    "b",
    "c",
    1,
    2,
    3,
    4.5,
    true,
    false,
    7n,
    "zz",
    -3,
  ];
  for (const numChannels of [2, 3, 5, 8]) {
    const partitioner = hashPartitioner<unknown>((k) => k, maxParallelism);
    for (const s of route(partitioner, keys, numChannels)) {
      for (const key of s.values) {
        const expected = subtaskForKeyGroup(
          keyGroupOf(key, maxParallelism),
          maxParallelism,
          numChannels,
        );
        assert.equal(
          s.channel,
          expected,
          `key ${String(key)} at ${numChannels} channels`,
        );
      }
    }
  }
});

Deno.test("hashPartitioner() rejects a key that cannot be hashed with a TypeError naming its type", () => {
  const partitioner = hashPartitioner<{ id: number }>((r) => r, 128);
  assert.equal(partitioner.name, "hash");
  assert.throws(() => route(partitioner, [{ id: 1 }], 2), {
    name: "TypeError",
    message: /of type object/,
  });
});

Deno.test("hashPartitioner() routes like a record-by-record reference over batches of any size, channel count and rejected keys, one partitioner for all", () => {
  const key = fc.oneof(
    fc.integer({ min: -50, max: 50 }),
    fc.constantFrom<unknown>("a", "b", 2 ** 40, 1.5, null, { id: 1 }),
  );
  const call = fc.record({
    keys: fc.array(key, { maxLength: 300 }),
    numChannels: fc.integer({ min: 1, max: 9 }),
  });
  fc.assert(
    fc.property(fc.array(call, { minLength: 1, maxLength: 6 }), (calls) => {
      const maxParallelism = 32;
      const partitioner = hashPartitioner<unknown>((k) => k, maxParallelism);
      for (const { keys, numChannels } of calls) {
        const timestamps = keys.map((_, i) => 10 * i);
        const expected = new Map<number, [unknown[], number[]]>();
        const expectedRejected: number[] = [];
        keys.forEach((k, i) => {
          const type = typeof k;
          if (type !== "number" && type !== "string") {
            expectedRejected.push(i);
            return;
          }
          const channel = subtaskForKeyGroup(
            keyGroupOf(k, maxParallelism),
            maxParallelism,
            numChannels,
          );
          const part = expected.get(channel) ?? [[], []];
          part[0].push(k);
          part[1].push(timestamps[i]);
          expected.set(channel, part);
        });
        const sent: Array<[number, unknown[], number[]]> = [];
        const rejected: number[] = [];
        partitioner.route(
          keys,
          timestamps,
          numChannels,
          (c, v, t) => sent.push([c, [...v], [...t]]),
          (value, ts, error, i) => {
            assert.equal(value, keys[i!]);
            assert.equal(ts, timestamps[i!]);
            assert.ok(error instanceof TypeError);
            rejected.push(i!);
          },
        );
        // One channel with nothing rejected gets the batch as it is, even empty.
        if (numChannels === 1 && expectedRejected.length === 0) {
          expected.set(0, [keys, timestamps]);
        }
        assert.deepEqual(rejected, expectedRejected);
        assert.deepEqual(
          sent,
          [...expected].sort((a, b) => a[0] - b[0]).map((
            [c, [v, t]],
          ) => [c, v, t]),
        );
      }
    }),
    { seed: 42, numRuns: 300 },
  );
});

// What a record-by-record route sends: each key's channel, in input order.
function routedOneByOne(
  keys: readonly number[],
  maxParallelism: number,
  numChannels: number,
): Array<[number, number[]]> {
  const parts = new Map<number, number[]>();
  for (const k of keys) {
    const c = subtaskForKeyGroup(
      keyGroupOf(k, maxParallelism),
      maxParallelism,
      numChannels,
    );
    parts.set(c, [...(parts.get(c) ?? []), k]);
  }
  return [...parts].sort((a, b) => a[0] - b[0]);
}

for (const maxParallelism of [2 ** 15 + 1, 2 ** 40, Number.MAX_SAFE_INTEGER]) {
  Deno.test(`hashPartitioner() at maxParallelism ${maxParallelism} routes each record to its key group's subtask without a table of key groups`, () => {
    const sent: Array<[number, number[]]> = [];
    const keys = [1, 2, 3, 4, 5, 6, 7, 8];
    hashPartitioner<number>((k) => k, maxParallelism).route(
      keys,
      keys.map(() => 0),
      3,
      (c, v) => sent.push([c, [...v]]),
    );
    assert.deepEqual(sent, routedOneByOne(keys, maxParallelism, 3));
  });
}

Deno.test("hashPartitioner() at 0 channels sends nothing and still rejects the keys it cannot hash", () => {
  const sent: unknown[] = [];
  const rejected: number[] = [];
  hashPartitioner<unknown>((k) => k, 128).route(
    [1, null, 2],
    [0, 0, 0],
    0,
    (c, v) => sent.push([c, v]),
    (_v, _t, _e, i) => rejected.push(i!),
  );
  assert.deepEqual(sent, []);
  assert.deepEqual(rejected, [1]);
});

Deno.test("hashPartitioner() routes a batch whose key selector routes another through the same partitioner as if called apart", () => {
  const keys = [1, 2, 3, 4, 5, 6, 7, 8];
  const inner = [11, 12, 13, 14, 15, 16, 17, 18];
  const sent: Array<[number, number[]]> = [];
  let nested = false;
  const partitioner = hashPartitioner<number>((k) => {
    if (k === 5 && !nested) {
      nested = true;
      partitioner.route(inner, inner.map(() => 0), 3, () => {});
    }
    return k;
  }, 128);
  partitioner.route(keys, keys.map(() => 0), 3, () => {}); // fills its buffer
  nested = false;
  partitioner.route(
    keys,
    keys.map(() => 0),
    3,
    (c, v) => sent.push([c, [...v]]),
  );
  assert.deepEqual(sent, routedOneByOne(keys, 128, 3));
});
