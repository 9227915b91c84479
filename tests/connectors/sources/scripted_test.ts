import assert from "node:assert/strict";
import {
  ScriptedSource,
  type ScriptStep,
} from "../../../src/connectors/sources/scripted.ts";
import type { SourceReader } from "../../../src/runtime/source.ts";
import { WatermarkStrategy } from "../../../src/time/watermark_strategy.ts";
import { sourceHarness } from "../../_support/source_harness.ts";
import { assertRejectsForeignSnapshots } from "./_snapshot_checks.ts";

/** Polls at `now` until null; returns [partition, values] per batch. */
function drainAt<T>(
  reader: SourceReader<T>,
  now: number,
  maxRecords = 1024,
): Array<[number, T[]]> {
  const out: Array<[number, T[]]> = [];
  for (
    let b = reader.poll(now, maxRecords);
    b;
    b = reader.poll(now, maxRecords)
  ) out.push([b.partition, b.values]);
  return out;
}

Deno.test("ScriptedSource releases a record only when now reaches its at", () => {
  const reader = new ScriptedSource([
    { at: 100, value: "a", timestamp: 1 },
    { at: 100, value: "b", timestamp: 2 },
    { at: 250, value: "c", timestamp: 3 },
  ]).createReader(0, 1);
  assert.equal(reader.poll(99, 10), null);
  assert.deepEqual(reader.poll(100, 10), {
    partition: 0,
    values: ["a", "b"],
    timestamps: [1, 2],
  });
  assert.equal(reader.poll(249, 10), null);
  assert.equal(reader.finished, false);
  assert.deepEqual(reader.poll(1_000, 10)?.values, ["c"]);
  assert.equal(reader.finished, true);
});

Deno.test("ScriptedSource.nextAvailableAt() is the smallest at of a pending step, then Infinity", () => {
  const reader = new ScriptedSource([
    { at: 300, partition: 0, value: 1 },
    { at: 200, partition: 1, value: 2 },
    { at: 400, partition: 1, end: true },
  ], { partitions: 2 }).createReader(0, 1);
  assert.equal(reader.nextAvailableAt(0), 200);
  assert.deepEqual(drainAt(reader, 200), [[1, [2]]]);
  assert.equal(reader.nextAvailableAt(200), 300);
  assert.deepEqual(drainAt(reader, 300), [[0, [1]]]);
  // Partition 0 ended after its last record; partition 1 waits for its end.
  assert.equal(reader.nextAvailableAt(300), 400);
  assert.equal(reader.finished, false);
  assert.deepEqual(reader.poll(400, 10), {
    partition: 1,
    values: [],
    timestamps: [],
    ended: true,
  });
  assert.equal(reader.finished, true);
  assert.equal(reader.poll(400, 10), null);
  assert.equal(reader.nextAvailableAt(400), Infinity);
});

Deno.test("ScriptedSource.poll() returns at most maxRecords of one partition and rotates partitions", () => {
  const script: ScriptStep<string>[] = [
    { at: 0, partition: 0, value: "a1" },
    { at: 0, partition: 0, value: "a2" },
    { at: 0, partition: 0, value: "a3" },
    { at: 0, partition: 1, value: "b1" },
    { at: 0, partition: 1, value: "b2" },
  ];
  const reader = new ScriptedSource(script, { partitions: 2 }).createReader(
    0,
    1,
  );
  assert.deepEqual(drainAt(reader, 0, 2), [
    [0, ["a1", "a2"]],
    [1, ["b1", "b2"]],
    [0, ["a3"]],
  ]);
  assert.equal(reader.finished, true);
});

Deno.test("ScriptedSource reports -Infinity for a record without a timestamp", () => {
  const reader = new ScriptedSource([{ at: 0, value: "x" }]).createReader(0, 1);
  assert.deepEqual(reader.poll(0, 1)?.timestamps, [-Infinity]);
});

Deno.test("ScriptedSource end step ends its partition early and records are not held behind it", () => {
  const reader = new ScriptedSource([
    { at: 10, value: "a" },
    { at: 50, end: true },
  ]).createReader(0, 1);
  assert.deepEqual(reader.poll(10, 10)?.values, ["a"]);
  assert.equal(reader.finished, false);
  assert.equal(reader.nextAvailableAt(10), 50);
  assert.equal(reader.poll(49, 10), null);
  assert.equal(reader.finished, false);
  assert.deepEqual(reader.poll(50, 10)?.ended, true);
  assert.equal(reader.finished, true);
  assert.equal(reader.poll(50, 10), null);
});

Deno.test("ScriptedSource takes a due end step with the last records, so finished shows at once", () => {
  const reader = new ScriptedSource([
    { at: 0, value: "a" },
    { at: 0, end: true },
  ]).createReader(0, 1);
  assert.deepEqual(reader.poll(0, 10)?.values, ["a"]);
  assert.equal(reader.finished, true);
});

Deno.test("ScriptedSource leaves a silent partition waiting while the others read (a pause)", () => {
  const reader = new ScriptedSource([
    { at: 0, partition: 0, value: "a" },
    { at: 0, partition: 1, value: "b" },
    { at: 100, partition: 0, value: "c" },
    { at: 5_000, partition: 1, value: "d" },
  ], { partitions: 2 }).createReader(0, 1);
  assert.deepEqual(drainAt(reader, 0), [[0, ["a"]], [1, ["b"]]]);
  assert.deepEqual(drainAt(reader, 100), [[0, ["c"]]]);
  assert.equal(reader.nextAvailableAt(100), 5_000);
  assert.equal(reader.finished, false);
  assert.deepEqual(drainAt(reader, 5_000), [[1, ["d"]]]);
  assert.equal(reader.finished, true);
});

Deno.test("ScriptedSource spreads partitions over subtasks round-robin, each step read once", () => {
  const script = ScriptedSource.everyMs(
    0,
    10,
    Array.from({ length: 20 }, (_, i) => ({
      value: i,
      timestamp: i,
      partition: i % 5,
    })),
  );
  const source = new ScriptedSource(script, { partitions: 5 });
  for (const parallelism of [1, 2, 3, 5]) {
    const seen: number[] = [];
    for (let s = 0; s < parallelism; s++) {
      const reader = source.createReader(s, parallelism);
      assert.deepEqual(
        reader.partitions,
        [0, 1, 2, 3, 4].filter((p) => p % parallelism === s).map((p) =>
          `scripted-${p}`
        ),
      );
      for (const [, values] of drainAt(reader, 1_000)) seen.push(...values);
      assert.equal(reader.finished, true);
    }
    assert.deepEqual(seen.toSorted((a, b) => a - b), [...Array(20).keys()]);
  }
  const empty = source.createReader(6, 7);
  assert.deepEqual(empty.partitions, []);
  assert.equal(empty.finished, true);
  assert.equal(empty.nextAvailableAt(0), Infinity);
});

Deno.test("ScriptedSource reader resumes from a snapshot without losing or repeating a record", () => {
  const source = new ScriptedSource(
    ScriptedSource.everyMs(
      0,
      100,
      Array.from({ length: 12 }, (_, i) => ({
        value: i,
        timestamp: i,
        partition: i % 2,
      })),
    ),
    { partitions: 2 },
  );
  const polls = [250, 250, 600, 600, 600, 2_000, 2_000, 2_000, 2_000];
  const uninterrupted = source.createReader(0, 1);
  const expected = polls.map((now) => uninterrupted.poll(now, 2));

  const first = source.createReader(0, 1);
  const before = polls.slice(0, 4).map((now) => first.poll(now, 2));
  const snapshot = structuredClone(first.snapshotState());
  first.poll(600, 2); // read after the snapshot: lost with the failure
  const second = source.createReader(0, 1);
  second.restoreState(snapshot);
  const after = polls.slice(4).map((now) => second.poll(now, 2));
  assert.deepEqual([...before, ...after], expected);
  assert.equal(second.finished, true);
});

Deno.test("ScriptedSource reader rejects a snapshot of other partitions or an out-of-range position or cursor", () => {
  // Subtask 0 of 2 reads partition 0: one step, so positions 0 and 1.
  const source = new ScriptedSource([{ at: 0, value: 1 }], { partitions: 2 });
  assertRejectsForeignSnapshots(source, 2);
});

Deno.test("ScriptedSource rejects a decreasing at within a partition, naming the step", () => {
  assert.throws(
    () =>
      new ScriptedSource([
        { at: 100, value: "a" },
        { at: 50, partition: 1, value: "b" },
        { at: 200, value: "c" },
        { at: 150, value: "d" },
      ], { partitions: 2 }),
    {
      name: "RangeError",
      message:
        "Cannot create ScriptedSource as 'script[3].at' must be at least 200, the 'at' of step 2 in partition 0: current value is 150",
    },
  );
});

Deno.test("ScriptedSource rejects a partition index out of range", () => {
  assert.throws(
    () =>
      new ScriptedSource([{ at: 0, partition: 2, value: 1 }], {
        partitions: 2,
      }),
    {
      name: "RangeError",
      message:
        "Cannot create ScriptedSource as 'script[0].partition' must be an integer from 0 to 1: current value is 2",
    },
  );
  assert.throws(
    () => new ScriptedSource([{ at: 0, partition: -1, value: 1 }]),
    { name: "RangeError", message: /'script\[0\]\.partition'/ },
  );
});

Deno.test("ScriptedSource rejects a step after the end of its partition", () => {
  assert.throws(
    () =>
      new ScriptedSource([
        { at: 0, end: true },
        { at: 5, value: 1 },
      ]),
    {
      name: "RangeError",
      message: /'script\[1\]'.*end of partition 0 at step 0/,
    },
  );
});

Deno.test("ScriptedSource rejects malformed steps and options", () => {
  assert.throws(
    () => new ScriptedSource([{ at: 1.5, value: 1 }]),
    { name: "RangeError", message: /'script\[0\]\.at'.*1\.5/ },
  );
  assert.throws(
    () => new ScriptedSource([{ at: "0" as unknown as number, value: 1 }]),
    { name: "TypeError", message: /'script\[0\]\.at'/ },
  );
  assert.throws(
    () => new ScriptedSource([{ at: 0, value: 1, timestamp: NaN }]),
    { name: "RangeError", message: /'script\[0\]\.timestamp'.*NaN/ },
  );
  assert.throws(
    () => new ScriptedSource([null as unknown as ScriptStep<number>]),
    { name: "TypeError", message: /'script\[0\]'/ },
  );
  assert.throws(
    () =>
      new ScriptedSource([
        { at: 0, end: false } as unknown as ScriptStep<number>,
      ]),
    { name: "TypeError", message: /'script\[0\]\.end'/ },
  );
  assert.throws(() => new ScriptedSource([], { partitions: 0 }), {
    name: "RangeError",
    message: /'partitions'/,
  });
  assert.throws(
    () => new ScriptedSource({} as unknown as ScriptStep<number>[]),
    { name: "TypeError", message: /'script'/ },
  );
});

Deno.test("ScriptedSource with no steps in a partition ends that partition at once", () => {
  const reader = new ScriptedSource<number>([], { partitions: 2 })
    .createReader(0, 1);
  assert.equal(reader.partitions.length, 2);
  assert.equal(reader.finished, true);
  assert.equal(reader.nextAvailableAt(0), 0, "the ends are to be reported");
  assert.deepEqual(
    [reader.poll(0, 10), reader.poll(0, 10)].map((
      b,
    ) => [b?.partition, b?.ended]),
    [[0, true], [1, true]],
  );
  assert.equal(reader.poll(0, 10), null);
  assert.equal(reader.nextAvailableAt(0), Infinity);
});

Deno.test("ScriptedSource.everyMs() spaces records stepMs apart from startAt", () => {
  assert.deepEqual(
    ScriptedSource.everyMs(1_000, 250, [
      { value: "a", timestamp: 10 },
      { value: "b", timestamp: 20, partition: 1 },
      { value: "c", timestamp: 5 },
    ]),
    [
      { at: 1_000, value: "a", timestamp: 10 },
      { at: 1_250, value: "b", timestamp: 20, partition: 1 },
      { at: 1_500, value: "c", timestamp: 5 },
    ],
  );
});

Deno.test("ScriptedSource.everyMs() rejects a bad startAt or stepMs", () => {
  assert.throws(() => ScriptedSource.everyMs(0, -1, []), {
    name: "RangeError",
    message: /'stepMs'.*-1/,
  });
  assert.throws(() => ScriptedSource.everyMs(NaN, 1, []), {
    name: "RangeError",
    message: /'startAt'.*NaN/,
  });
});

/** Every batch until the reader returns null, as [partition, values, ended]. */
function endsAt<T>(
  reader: SourceReader<T>,
  now: number,
): Array<[number, T[], boolean]> {
  const out: Array<[number, T[], boolean]> = [];
  for (let b = reader.poll(now, 1024); b; b = reader.poll(now, 1024)) {
    out.push([b.partition, b.values, b.ended === true]);
  }
  return out;
}

Deno.test("ScriptedSource reports each partition's end once, with its last records or on its own, and again after a restore", () => {
  const source = new ScriptedSource<string>([
    { at: 0, partition: 0, value: "a" },
    { at: 0, partition: 1, value: "b" },
    { at: 100, partition: 1, end: true },
  ], { partitions: 3 });
  const reader = source.createReader(0, 1);
  // Partition 2 has no steps: ended from the start, reported first.
  assert.deepEqual(endsAt(reader, 0), [
    [2, [], true],
    [0, ["a"], true],
    [1, ["b"], false],
  ]);
  assert.equal(reader.nextAvailableAt(0), 100);
  assert.deepEqual(endsAt(reader, 100), [[1, [], true]]);
  assert.equal(reader.finished, true);
  assert.equal(reader.nextAvailableAt(100), Infinity);
  const snapshot = reader.snapshotState();
  // Restored in place: the reader had reported every end already.
  reader.restoreState(structuredClone(snapshot));
  assert.equal(reader.nextAvailableAt(100), 100, "ends to report again");
  assert.deepEqual(endsAt(reader, 100), [
    [0, [], true],
    [1, [], true],
    [2, [], true],
  ]);
  // Reporting an end alone does not move the cursor.
  assert.deepEqual(reader.snapshotState(), snapshot);
  assert.equal(source.createReader(0, 1).poll(0, 10)?.ended, true);
});

Deno.test("ScriptedSource: an ended partition stops holding back its subtask's watermark (Flink's finished split)", () => {
  const h = sourceHarness(
    new ScriptedSource<number>([
      { at: 0, partition: 0, value: 100 },
      { at: 200, partition: 0, end: true },
      { at: 0, partition: 1, value: 1_000 },
      { at: 300, partition: 1, value: 2_000 },
      { at: 1_000, partition: 1, end: true },
    ], { partitions: 2 }).createReader(0, 1),
    WatermarkStrategy.forBoundedOutOfOrderness<number>(0)
      .withTimestampAssigner((n) => n),
  );
  assert.deepEqual(h.tick(0), ["R1", "R1"]);
  assert.deepEqual(h.tick(100), ["W99"], "partition 0 holds the minimum");
  assert.deepEqual(h.tick(200), ["W999"], "released at its end");
  assert.deepEqual(h.tick(300), ["R1"]);
  assert.deepEqual(h.tick(400), ["W1999"]);
  assert.deepEqual(h.tick(1_000), ["WInfinity", "end"]);
});
