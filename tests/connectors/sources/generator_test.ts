import assert from "node:assert/strict";
import { GeneratorSource } from "../../../src/connectors/sources/generator.ts";
import type { SourceReader } from "../../../src/runtime/source.ts";
import { WatermarkStrategy } from "../../../src/time/watermark_strategy.ts";
import { sourceHarness } from "../../_support/source_harness.ts";

type Made = { partition: number; index: number; at: number };

function generator(
  options: {
    ratePerSecond?: number;
    partitions?: number;
    recordsPerPartition?: number | ((partition: number) => number);
  } = {},
): GeneratorSource<Made> {
  return new GeneratorSource<Made>({
    ratePerSecond: options.ratePerSecond ?? 10,
    partitions: options.partitions ?? 1,
    recordsPerPartition: options.recordsPerPartition,
    generate: (index, partition, now) => ({ partition, index, at: now }),
  });
}

/** Every batch at `now`, as [partition, indices, ended]. */
function pollAt(
  reader: SourceReader<Made>,
  now: number,
): Array<[number, number[], boolean]> {
  const out: Array<[number, number[], boolean]> = [];
  for (let b = reader.poll(now, 1_000); b; b = reader.poll(now, 1_000)) {
    out.push([b.partition, b.values.map((v) => v.index), b.ended === true]);
  }
  return out;
}

Deno.test("GeneratorSource makes record i of a partition due at start + i * 1000 / ratePerSecond", () => {
  const reader = generator({ ratePerSecond: 4 }).createReader(0, 1);
  assert.equal(reader.nextAvailableAt(1_000), 1_000);
  assert.deepEqual(pollAt(reader, 1_000), [[0, [0], false]]);
  assert.equal(reader.nextAvailableAt(1_000), 1_250);
  assert.deepEqual(pollAt(reader, 1_600), [[0, [1, 2], false]]);
  assert.equal(reader.finished, false, "endless by default");
});

Deno.test("GeneratorSource with recordsPerPartition ends each partition after its count, reporting the end with its last record", () => {
  const reader = generator({
    partitions: 2,
    recordsPerPartition: (p) => p === 0 ? 1 : 2,
  }).createReader(0, 1);
  assert.deepEqual(pollAt(reader, 0), [[0, [0], true], [1, [0], false]]);
  assert.deepEqual(pollAt(reader, 100), [[1, [1], true]]);
  assert.equal(reader.finished, true);
  assert.equal(reader.nextAvailableAt(100), Infinity);
  assert.deepEqual(pollAt(reader, 1_000), []);
});

Deno.test("GeneratorSource reports the ends again after a restore, without moving its cursor", () => {
  const source = generator({ partitions: 3, recordsPerPartition: 1 });
  const reader = source.createReader(0, 1);
  pollAt(reader, 0);
  const snapshot = reader.snapshotState();
  // Restored in place: the reader had reported every end already.
  reader.restoreState(structuredClone(snapshot), { exact: true });
  assert.equal(reader.nextAvailableAt(0), 0);
  assert.deepEqual(pollAt(reader, 0), [
    [0, [], true],
    [1, [], true],
    [2, [], true],
  ]);
  assert.deepEqual(reader.snapshotState(), snapshot);
});

Deno.test("GeneratorSource restored exactly (persist mode) goes on with its schedule; otherwise it starts afresh at the next poll", () => {
  // 3 records a second: due at 0, 334, 667, 1000...
  const source = generator({ ratePerSecond: 3 });
  const reader = source.createReader(0, 1);
  pollAt(reader, 0);
  pollAt(reader, 334);
  const snapshot = structuredClone(reader.snapshotState());
  const exact = source.createReader(0, 1);
  exact.restoreState(snapshot, { exact: true });
  assert.equal(exact.nextAvailableAt(500), 667);
  assert.deepEqual(pollAt(exact, 500), []);
  assert.deepEqual(pollAt(exact, 667), [[0, [2], false]]);
  const afresh = source.createReader(0, 1);
  afresh.restoreState(snapshot);
  assert.deepEqual(pollAt(afresh, 500), [[0, [2], false]]);
  assert.equal(afresh.nextAvailableAt(500), 834);
});

Deno.test("GeneratorSource restores which partition it polls first", () => {
  const source = generator({ partitions: 3 });
  const reader = source.createReader(0, 1);
  // One poll reads one partition: partition 0, then 1 is next.
  assert.equal(reader.poll(0, 10)?.partition, 0);
  const restored = source.createReader(0, 1);
  restored.restoreState(structuredClone(reader.snapshotState()));
  assert.equal(restored.poll(0, 10)?.partition, 1);
  assert.equal(reader.poll(0, 10)?.partition, 1);
});

Deno.test("GeneratorSource: an ended partition stops holding back its subtask's watermark (Flink's finished split)", () => {
  const reader = generator({
    partitions: 2,
    recordsPerPartition: (p) => p === 0 ? 1 : 3,
  }).createReader(0, 1);
  const h = sourceHarness(
    reader,
    WatermarkStrategy.forBoundedOutOfOrderness<Made>(0)
      .withTimestampAssigner((m) =>
        m.partition === 0 ? 10 : 1_000 * (m.index + 1)
      ),
  );
  assert.deepEqual(h.tick(0), ["R1", "R1"], "partition 0 ends at once");
  assert.deepEqual(h.tick(100), ["W999", "R1"], "not held at 9");
  assert.deepEqual(h.tick(200), ["W1999", "R1", "WInfinity", "end"]);
});

Deno.test("GeneratorSource rejects a count that is not a non-negative safe integer or Infinity, naming 'recordsPerPartition' and the partition", () => {
  assert.throws(() => generator({ recordsPerPartition: -1 }), {
    name: "RangeError",
    message: /'recordsPerPartition'.*-1/,
  });
  assert.throws(
    () => generator({ partitions: 2, recordsPerPartition: (p) => p - 0.5 }),
    { name: "RangeError", message: /'recordsPerPartition'.*partition 0/ },
  );
});
