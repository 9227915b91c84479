import assert from "node:assert/strict";
import { CollectionSource } from "../../../src/connectors/sources/collection.ts";
import type { SourceBatch, SourceReader } from "../../../src/runtime/source.ts";
import { WatermarkStrategy } from "../../../src/time/watermark_strategy.ts";
import { sourceHarness } from "../../_support/source_harness.ts";
import { assertRejectsForeignSnapshots } from "./_snapshot_checks.ts";

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}

/** Polls until the reader returns null; returns every batch. */
function drain<T>(
  reader: SourceReader<T>,
  maxRecords = 1024,
): SourceBatch<T>[] {
  const batches: SourceBatch<T>[] = [];
  for (let b = reader.poll(0, maxRecords); b; b = reader.poll(0, maxRecords)) {
    batches.push(b);
  }
  return batches;
}

Deno.test("CollectionSource covers every item exactly once at parallelism 1, 2, 3 and 5", () => {
  const items = range(23);
  for (const partitions of [1, 2, 3, 4, 7]) {
    const source = new CollectionSource(items, { partitions });
    for (const parallelism of [1, 2, 3, 5]) {
      const seen: number[] = [];
      for (let s = 0; s < parallelism; s++) {
        const reader = source.createReader(s, parallelism);
        for (const batch of drain(reader, 4)) seen.push(...batch.values);
        assert.equal(reader.finished, true);
      }
      assert.deepEqual(
        seen.toSorted((a, b) => a - b),
        items,
        `partitions ${partitions}, parallelism ${parallelism}`,
      );
    }
  }
});

Deno.test("CollectionSource splits items into contiguous partitions in array order", () => {
  const source = new CollectionSource(range(10), { partitions: 3 });
  const reader = source.createReader(0, 1);
  assert.deepEqual(reader.partitions, [
    "collection-0",
    "collection-1",
    "collection-2",
  ]);
  const byPartition = new Map<number, number[]>();
  for (const batch of drain(reader)) {
    byPartition.set(batch.partition, [
      ...(byPartition.get(batch.partition) ?? []),
      ...batch.values,
    ]);
  }
  assert.deepEqual([...byPartition.entries()], [
    [0, [0, 1, 2]],
    [1, [3, 4, 5]],
    [2, [6, 7, 8, 9]],
  ]);
});

Deno.test("CollectionSource.createReader() assigns partition p to subtask p % parallelism", () => {
  const source = new CollectionSource(range(10), { partitions: 5 });
  assert.deepEqual(source.createReader(0, 2).partitions, [
    "collection-0",
    "collection-2",
    "collection-4",
  ]);
  assert.deepEqual(source.createReader(1, 2).partitions, [
    "collection-1",
    "collection-3",
  ]);
  assert.deepEqual(source.createReader(2, 3).partitions, ["collection-2"]);
});

Deno.test("CollectionSource gives a subtask without a partition a reader that is finished at once", () => {
  const reader = new CollectionSource([1, 2], { partitions: 2 }).createReader(
    4,
    5,
  );
  assert.deepEqual(reader.partitions, []);
  assert.equal(reader.finished, true);
  assert.equal(reader.poll(0, 10), null);
  assert.equal(reader.nextAvailableAt(0), Infinity);
});

Deno.test("CollectionSource.poll() returns at most maxRecords of one partition and rotates partitions", () => {
  const reader = new CollectionSource(range(9), { partitions: 3 })
    .createReader(0, 1);
  const batches = drain(reader, 2).map((b) => [b.partition, b.values]);
  assert.deepEqual(batches, [
    [0, [0, 1]],
    [1, [3, 4]],
    [2, [6, 7]],
    [0, [2]],
    [1, [5]],
    [2, [8]],
  ]);
});

Deno.test("CollectionSource.poll() skips exhausted partitions when rotating", () => {
  const reader = new CollectionSource(range(5), { partitions: 2 })
    .createReader(0, 1);
  const batches = drain(reader, 1).map((b) => [b.partition, b.values[0]]);
  assert.deepEqual(batches, [[0, 0], [1, 2], [0, 1], [1, 3], [1, 4]]);
});

Deno.test("CollectionSource reports timestamps from timestampOf, or -Infinity without it", () => {
  const items = [{ at: 5 }, { at: 3 }];
  const withTs = new CollectionSource(items, { timestampOf: (i) => i.at })
    .createReader(0, 1);
  assert.deepEqual(withTs.poll(0, 10)?.timestamps, [5, 3]);
  const without = new CollectionSource(items).createReader(0, 1);
  assert.deepEqual(without.poll(0, 10)?.timestamps, [-Infinity, -Infinity]);
});

Deno.test("CollectionSource reader is available now until it is finished", () => {
  const reader = new CollectionSource([1, 2, 3]).createReader(0, 1);
  assert.equal(reader.finished, false);
  assert.equal(reader.nextAvailableAt(42), 42);
  reader.poll(42, 2);
  assert.equal(reader.finished, false);
  assert.equal(reader.nextAvailableAt(43), 43);
  reader.poll(43, 2);
  assert.equal(reader.finished, true);
  assert.equal(reader.nextAvailableAt(44), Infinity);
  assert.equal(reader.poll(44, 2), null);
});

Deno.test("CollectionSource of an empty array is finished at once", () => {
  const reader = new CollectionSource([], { partitions: 3 }).createReader(0, 1);
  assert.equal(reader.partitions.length, 3);
  assert.equal(reader.finished, true);
  const ends = [0, 1, 2].map(() => reader.poll(0, 10));
  assert.deepEqual(ends.map((b) => [b?.partition, b?.values, b?.ended]), [
    [0, [], true],
    [1, [], true],
    [2, [], true],
  ]);
  assert.equal(reader.poll(0, 10), null);
});

Deno.test("CollectionSource reader resumes from a snapshot without losing or repeating a record", () => {
  const source = new CollectionSource(range(20), { partitions: 3 });
  const uninterrupted = drain(source.createReader(0, 1), 3);

  const first = source.createReader(0, 1);
  const before = [first.poll(0, 3)!, first.poll(0, 3)!, first.poll(0, 3)!];
  const snapshot = structuredClone(first.snapshotState());
  first.poll(0, 3); // read after the snapshot: lost with the failure
  const second = source.createReader(0, 1);
  second.restoreState(snapshot);
  assert.deepEqual([...before, ...drain(second, 3)], uninterrupted);
});

Deno.test("CollectionSource reader snapshot is plain data of per-partition positions", () => {
  const reader = new CollectionSource(range(6), { partitions: 2 })
    .createReader(0, 1);
  reader.poll(0, 2);
  assert.deepEqual(reader.snapshotState(), {
    partitions: ["collection-0", "collection-1"],
    positions: [2, 0],
    cursor: 1,
  });
});

Deno.test("CollectionSource reader rejects a snapshot of other partitions or an out-of-range position or cursor", () => {
  // Subtask 0 of 2 reads partition 0: items 0 to 2, so positions 0 to 3.
  assertRejectsForeignSnapshots(
    new CollectionSource(range(6), { partitions: 2 }),
    4,
  );
});

Deno.test("CollectionSource rejects bad items, partitions and timestampOf", () => {
  assert.throws(
    () => new CollectionSource("abc" as unknown as string[]),
    { name: "TypeError", message: /CollectionSource.*'items'.*"abc"/ },
  );
  assert.throws(() => new CollectionSource([], { partitions: 0 }), {
    name: "RangeError",
    message:
      "Cannot create CollectionSource as 'partitions' must be a positive safe integer: current value is 0",
  });
  assert.throws(
    () =>
      new CollectionSource([1], {
        timestampOf: 5 as unknown as (n: number) => number,
      }),
    { name: "TypeError", message: /'timestampOf'/ },
  );
});

Deno.test("CollectionSource.createReader() rejects a subtask index out of range or a bad parallelism", () => {
  const source = new CollectionSource([1]);
  assert.throws(() => source.createReader(2, 2), {
    name: "RangeError",
    message: /'subtaskIndex'.*2/,
  });
  assert.throws(() => source.createReader(0, 0), {
    name: "RangeError",
    message: /'parallelism'.*0/,
  });
});

Deno.test("CollectionSource reports a partition's end with its last records, an empty one's alone, and again after a restore", () => {
  const source = new CollectionSource([1, 2, 3], { partitions: 4 });
  // Partitions: [], [1], [2], [3].
  const reader = source.createReader(0, 1);
  const shown = (batches: SourceBatch<number>[]) =>
    batches.map((b) => [b.partition, b.values, b.ended === true]);
  assert.deepEqual(shown(drain(reader)), [
    [0, [], true],
    [1, [1], true],
    [2, [2], true],
    [3, [3], true],
  ]);
  const snapshot = reader.snapshotState();
  // Restored in place: the reader had reported every end already.
  reader.restoreState(structuredClone(snapshot));
  assert.equal(reader.nextAvailableAt(5), 5, "ends to report again");
  assert.deepEqual(shown(drain(reader)), [
    [0, [], true],
    [1, [], true],
    [2, [], true],
    [3, [], true],
  ]);
  assert.deepEqual(reader.snapshotState(), snapshot);
  assert.equal(reader.nextAvailableAt(5), Infinity);
});

Deno.test("CollectionSource: an ended partition stops holding back its subtask's watermark (Flink's finished split)", () => {
  // Partition 0 holds [10, 20], partition 1 holds [1000, 1001].
  const h = sourceHarness(
    new CollectionSource([10, 20, 1_000, 1_001], { partitions: 2 })
      .createReader(0, 1),
    WatermarkStrategy.forBoundedOutOfOrderness<number>(0)
      .withTimestampAssigner((n) => n),
    { maxBatchSize: 1 },
  );
  assert.deepEqual(h.tick(0, 1), ["R1"]);
  assert.deepEqual(h.tick(100, 1), ["R1"]);
  assert.deepEqual(h.tick(200, 1), ["W9", "R1", "W999"], "20 was the last");
  assert.deepEqual(h.tick(300, 1), ["R1", "WInfinity", "end"]);
});
