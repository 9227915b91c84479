import assert from "node:assert/strict";
import {
  type AppendRecord,
  KvLog,
} from "../../../src/connectors/sources/kv_log.ts";
import {
  type KvLogReader,
  KvLogSource,
  waitForSources,
} from "../../../src/connectors/sources/kv_log_source.ts";
import { CollectionSource } from "../../../src/connectors/sources/collection.ts";
import { WatermarkStrategy } from "../../../src/time/watermark_strategy.ts";
import { sourceHarness } from "../../_support/source_harness.ts";
import { kvTest } from "../_kv_support.ts";

function records<T>(
  values: readonly T[],
  timestamp = 1_000,
): AppendRecord<T>[] {
  return values.map((value, i) => ({ value, timestamp: timestamp + i }));
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from }, (_, i) => from + i);
}

/** Polls until the reader has nothing buffered; returns the values by partition. */
function drain<T>(
  reader: KvLogReader<T>,
  now = 0,
  maxRecords = 1_000,
): T[][] {
  const out: T[][] = reader.partitions.map(() => []);
  for (
    let batch = reader.poll(now, maxRecords);
    batch !== null;
    batch = reader.poll(now, maxRecords)
  ) {
    out[batch.partition].push(...batch.values);
  }
  return out;
}

/** Reads a bounded reader to its end, waiting for each background read. */
async function readToEnd<T>(reader: KvLogReader<T>, maxRecords = 1_000) {
  const out: T[][] = reader.partitions.map(() => []);
  while (!reader.finished) {
    await reader.ready();
    drain(reader, 0, maxRecords).forEach((values, p) => out[p].push(...values));
  }
  return out;
}

kvTest(
  "KvLogSource reader polls every record in order after ready()",
  async (kv) => {
    const log = new KvLog<number>(kv, "events", { partitions: 2 });
    await log.append(0, records([1, 2, 3]));
    await log.append(0, records([4, 5]));
    await log.append(1, records([10, 11]));
    const reader = new KvLogSource(log).createReader(0, 1);
    assert.deepEqual(reader.partitions, ["events-0", "events-1"]);
    assert.equal(reader.poll(0, 10), null, "nothing is buffered before a read");
    await reader.ready();
    const first = reader.poll(0, 10);
    assert.deepEqual(first, {
      partition: 0,
      values: [1, 2, 3, 4, 5],
      timestamps: [1_000, 1_001, 1_002, 1_000, 1_001],
    });
    assert.deepEqual(reader.poll(0, 10)?.values, [10, 11]);
    assert.equal(reader.poll(0, 10), null);
    await reader.close();
  },
);

kvTest(
  "KvLogSource reader refills its buffer in the background in prefetch-sized reads",
  async (kv) => {
    const log = new KvLog<number>(kv, "events", { partitions: 1 });
    await log.append(0, records(range(0, 25)));
    const reader = new KvLogSource(log, { prefetch: 4, bounded: true })
      .createReader(0, 1);
    const values = await readToEnd(reader, 3);
    assert.deepEqual(values, [range(0, 25)]);
    await reader.close();
  },
);

kvTest(
  "KvLogSource reader asks to be woken while a read is in flight and after a read found nothing",
  async (kv) => {
    const log = new KvLog<string>(kv, "events", { partitions: 1 });
    await log.append(0, records(["a"]));
    const reader = new KvLogSource(log, { pollIntervalMs: 50 }).createReader(
      0,
      1,
    );
    assert.equal(reader.nextAvailableAt(1_000), 1_050, "a read is in flight");
    await reader.ready();
    assert.equal(reader.nextAvailableAt(1_000), 1_000, "records are buffered");
    assert.deepEqual(reader.poll(1_000, 10)?.values, ["a"]);
    // The poll found the buffer empty and started a read, which finds nothing.
    await reader.ready();
    assert.equal(reader.nextAvailableAt(1_010), 1_050);
    await log.append(0, records(["b"]));
    assert.equal(reader.poll(1_020, 10), null, "no read before the retry time");
    await reader.ready();
    assert.equal(reader.poll(1_020, 10), null);
    assert.equal(
      reader.nextAvailableAt(1_050),
      1_100,
      "the retry read started",
    );
    await reader.ready();
    assert.deepEqual(reader.poll(1_050, 10)?.values, ["b"]);
    assert.equal(reader.finished, false, "an unbounded reader never finishes");
    await reader.close();
  },
);

kvTest(
  "KvLogSource reader in bounded mode finishes at the head it saw first",
  async (kv) => {
    const log = new KvLog<string>(kv, "events", { partitions: 2 });
    await log.append(0, records(["a", "b"]));
    await log.append(1, records(["c"]));
    const reader = new KvLogSource(log, { bounded: true }).createReader(0, 1);
    await reader.ready();
    // Appended after the reader saw the heads: not part of this bounded read.
    await log.append(0, records(["late"]));
    await log.append(1, records(["late"]));
    assert.equal(reader.finished, false);
    assert.deepEqual(drain(reader), [["a", "b"], ["c"]]);
    assert.equal(reader.finished, true);
    assert.equal(reader.nextAvailableAt(0), Infinity);
    await reader.ready();
    assert.equal(reader.poll(0, 10), null);
    await reader.close();
  },
);

kvTest(
  "KvLogSource reader in bounded mode finishes on empty partitions and without any",
  async (kv) => {
    const log = new KvLog<string>(kv, "events", { partitions: 2 });
    const source = new KvLogSource(log, { bounded: true });
    const empty = source.createReader(0, 1);
    assert.equal(empty.finished, false, "the heads are not known yet");
    await empty.ready();
    assert.equal(empty.finished, true);
    const none = source.createReader(2, 3);
    assert.deepEqual(none.partitions, []);
    assert.equal(none.finished, true);
    assert.equal(none.nextAvailableAt(0), Infinity);
    await empty.close();
    await none.close();
  },
);

kvTest(
  "KvLogSource reader resumes at the snapshot offset: no record lost or repeated",
  async (kv) => {
    const log = new KvLog<number>(kv, "events", { partitions: 2 });
    await log.append(0, records(range(0, 10)));
    await log.append(1, records(range(100, 104)));
    const source = new KvLogSource(log, { prefetch: 8, bounded: true });
    const before = source.createReader(0, 1);
    await before.ready();
    const read: number[] = [...before.poll(0, 3)!.values];
    const snapshot = before.snapshotState();
    assert.deepEqual(snapshot, {
      partitions: ["events-0", "events-1"],
      positions: [3, 0],
      cursor: 1,
    });
    // Records read after the snapshot are lost with the crash.
    drain(before);
    await before.close();

    const after = source.createReader(0, 1);
    after.restoreState(structuredClone(snapshot));
    const rest = await readToEnd(after);
    assert.deepEqual([...read, ...rest[0]], range(0, 10));
    assert.deepEqual(rest[1], range(100, 104));
    await after.close();
  },
);

kvTest(
  "KvLogSource reader drops the read in flight when restored",
  async (kv) => {
    const log = new KvLog<number>(kv, "events", { partitions: 1 });
    await log.append(0, records(range(0, 8)));
    const reader = new KvLogSource(log).createReader(0, 1);
    reader.nextAvailableAt(0); // starts a read from offset 0
    reader.restoreState({
      partitions: ["events-0"],
      positions: [5],
      cursor: 0,
    });
    await reader.ready();
    assert.deepEqual(drain(reader), [[5, 6, 7]]);
    await reader.close();
  },
);

kvTest(
  "KvLogSource reader refuses a snapshot of another log, subtask or shape",
  async (kv) => {
    const log = new KvLog<number>(kv, "events", { partitions: 4 });
    const other = new KvLog<number>(kv, "other", { partitions: 4 });
    const reader = new KvLogSource(log).createReader(0, 2);
    const restore = (state: unknown) => () => reader.restoreState(state);
    assert.throws(restore(null), { name: "TypeError", message: /'state'/ });
    assert.throws(
      restore(new KvLogSource(log).createReader(1, 2).snapshotState()),
      { name: "RangeError", message: /'state\.partitions'/ },
    );
    assert.throws(
      restore(new KvLogSource(other).createReader(0, 2).snapshotState()),
      { name: "RangeError", message: /'state\.partitions'/ },
    );
    const own = { partitions: ["events-0", "events-2"], cursor: 0 };
    assert.throws(restore({ ...own, positions: [0, -1] }), {
      name: "RangeError",
      message: /'state\.positions\[1\]'/,
    });
    assert.throws(restore({ ...own, positions: [0] }), {
      name: "RangeError",
      message: /'state\.positions'/,
    });
    assert.throws(restore({ ...own, positions: [0, 0], cursor: 2 }), {
      name: "RangeError",
      message: /'state\.cursor'/,
    });
    await reader.close();
  },
);

kvTest(
  "KvLogSource.createReader() assigns log partition p to subtask p % parallelism",
  async (kv) => {
    const log = new KvLog<number>(kv, "events", { partitions: 5 });
    const source = new KvLogSource(log);
    assert.equal(source.name, "kv-log:events");
    assert.deepEqual(source.createReader(0, 2).partitions, [
      "events-0",
      "events-2",
      "events-4",
    ]);
    assert.deepEqual(source.createReader(1, 2).partitions, [
      "events-1",
      "events-3",
    ]);
    await log.append(3, records([30, 31]));
    const reader = source.createReader(1, 2);
    await reader.ready();
    assert.deepEqual(reader.poll(0, 10), {
      partition: 1,
      values: [30, 31],
      timestamps: [1_000, 1_001],
    });
    await reader.close();
  },
);

Deno.test({
  name: "KvLogSource reader throws a failed background read from the next poll",
  sanitizeOps: true,
  sanitizeResources: true,
  async fn() {
    const failing = {
      atomic() {},
      list() {
        return { next: () => Promise.reject(new Error("KV is down")) };
      },
    } as unknown as Deno.Kv;
    const reader = new KvLogSource(
      new KvLog(failing, "events", { partitions: 1 }),
    )
      .createReader(0, 1);
    await reader.ready();
    assert.equal(reader.nextAvailableAt(0), 0, "the error is due now");
    assert.throws(() => reader.poll(0, 10), /KV is down/);
    await reader.close();
  },
});

kvTest("KvLogSource reader stops reading when closed", async (kv) => {
  const log = new KvLog<number>(kv, "events", { partitions: 1 });
  await log.append(0, records([1, 2]));
  const reader = new KvLogSource(log).createReader(0, 1);
  reader.nextAvailableAt(0);
  await reader.close(); // waits for the read in flight
  assert.equal(reader.poll(0, 10), null);
  assert.deepEqual(reader.snapshotState(), {
    partitions: ["events-0"],
    positions: [0],
    cursor: 0,
  });
  assert.equal(reader.nextAvailableAt(0), Infinity);
  await reader.ready();
});

kvTest(
  "waitForSources() waits for the background reads of every reader",
  async (kv) => {
    const log = new KvLog<number>(kv, "events", { partitions: 2 });
    await log.append(0, records([1]));
    await log.append(1, records([2]));
    const source = new KvLogSource(log);
    const readers = [source.createReader(0, 2), source.createReader(1, 2)];
    const collection = new CollectionSource([9]).createReader(0, 1);
    await waitForSources([...readers, collection]);
    assert.deepEqual(readers.map((r) => r.poll(0, 10)?.values), [[1], [2]]);
    await Promise.all(readers.map((r) => r.close()));
  },
);

kvTest("KvLogSource validates its options", (kv) => {
  const log = new KvLog<number>(kv, "events", { partitions: 1 });
  assert.throws(() => new KvLogSource(log, { prefetch: 0 }), {
    name: "RangeError",
    message: /'prefetch'/,
  });
  assert.throws(() => new KvLogSource(log, { pollIntervalMs: 1.5 }), {
    name: "RangeError",
    message: /'pollIntervalMs'/,
  });
  assert.throws(() => new KvLogSource({} as never), {
    name: "TypeError",
    message: /'log'/,
  });
  assert.throws(() => new KvLogSource(log, { bounded: "yes" as never }), {
    name: "TypeError",
    message: /'bounded'/,
  });
});

/** Every batch of a bounded reader, [partition, values, ended], until it has finished and reported every end. */
async function batchesToEnd<T>(
  reader: KvLogReader<T>,
): Promise<Array<[number, T[], boolean]>> {
  const out: Array<[number, T[], boolean]> = [];
  for (let round = 0; reader.nextAvailableAt(0) !== Infinity; round++) {
    assert.ok(round < 100, "the reader must finish");
    await reader.ready();
    for (let b = reader.poll(0, 1_000); b; b = reader.poll(0, 1_000)) {
      out.push([b.partition, b.values, b.ended === true]);
    }
  }
  return out;
}

kvTest(
  "KvLogSource reports each bounded partition's end once, and again after a restore",
  async (kv) => {
    const log = new KvLog<number>(kv, "events", { partitions: 3 });
    await log.append(0, records([1, 2]));
    await log.append(2, records([3]));
    const reader = new KvLogSource(log, { bounded: true }).createReader(0, 1);
    const seen = await batchesToEnd(reader);
    assert.deepEqual(
      seen.filter(([, , ended]) => ended).map(([p]) => p).sort(),
      [0, 1, 2],
      "each end once",
    );
    assert.deepEqual(seen.flatMap(([, values]) => values).sort(), [1, 2, 3]);
    // The end comes with the last records where there are any.
    assert.ok(
      seen.some(([p, values, ended]) => p === 0 && ended && values.length > 0),
    );
    // Restored in place: the reader had reported every end already.
    reader.restoreState(reader.snapshotState());
    assert.deepEqual(await batchesToEnd(reader), [
      [0, [], true],
      [1, [], true],
      [2, [], true],
    ]);
    await reader.close();
  },
);

kvTest(
  "KvLogSource: an ended partition stops holding back its subtask's watermark (Flink's finished split)",
  async (kv) => {
    const log = new KvLog<number>(kv, "events", { partitions: 2 });
    await log.append(0, [{ value: 10, timestamp: 10 }]);
    await log.append(
      1,
      [1_000, 2_000, 3_000].map((ts) => ({ value: ts, timestamp: ts })),
    );
    const reader = new KvLogSource(log, { bounded: true }).createReader(0, 1);
    const h = sourceHarness(
      reader,
      WatermarkStrategy.forBoundedOutOfOrderness<number>(0),
      { maxBatchSize: 1 },
    );
    const tick = async (now: number) => {
      await reader.ready();
      return h.tick(now, 1);
    };
    assert.deepEqual(await tick(0), ["R1"], "10, the end of partition 0");
    assert.deepEqual(await tick(100), ["R1"]);
    assert.deepEqual(await tick(200), ["W999", "R1"], "not held at 9");
    assert.deepEqual(await tick(300), ["W1999", "R1", "WInfinity", "end"]);
    await reader.close();
  },
);
