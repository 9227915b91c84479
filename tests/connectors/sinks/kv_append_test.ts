import assert from "node:assert/strict";
import superjson from "superjson";
import {
  KvAppendSink,
  readAppendLog,
} from "../../../src/connectors/sinks/kv_append.ts";
import { countUnder, interceptCommits, kvTest } from "../_kv_support.ts";
import { SinkOperator } from "../../../src/runtime/operators/sink.ts";
import { guardHarness } from "../../_support/guard_harness.ts";

async function values<T>(kv: Deno.Kv, name = "out"): Promise<T[]> {
  return (await readAppendLog<T>(kv, name)).map((r) => r.value);
}

/** A checkpoint's state as the runtime stores it: through superjson. */
function stored(state: unknown): unknown {
  return superjson.parse(superjson.stringify(state));
}

kvTest(
  "KvAppendSink shows nothing before a commit and every record after it",
  async (kv) => {
    const writer = new KvAppendSink<string>(kv, "out").createWriter(0, 1);
    writer.write(["a", "b"], [1_000, 2_000]);
    assert.deepEqual(await values(kv), []);
    writer.snapshotState!(1);
    writer.write(["c"], [3_000]);
    assert.deepEqual(await values(kv), [], "closed, not committed");
    await writer.commit!(1);
    assert.deepEqual(await readAppendLog(kv, "out"), [
      { value: "a", timestamp: 1_000, checkpointId: 1, subtask: 0 },
      { value: "b", timestamp: 2_000, checkpointId: 1, subtask: 0 },
    ]);
  },
);

kvTest(
  "KvAppendSink commits the same transaction twice without a duplicate",
  async (kv) => {
    const writer = new KvAppendSink<number>(kv, "out").createWriter(0, 1);
    writer.write([1, 2, 3], [0, 0, 0]);
    writer.snapshotState!(1);
    await writer.commit!(1);
    await writer.commit!(1);
    await writer.commit!(5);
    assert.deepEqual(await values(kv), [1, 2, 3]);
  },
);

kvTest(
  "KvAppendSink commits a restored transaction exactly once, committed before or not",
  async (kv) => {
    const sink = new KvAppendSink<number>(kv, "out");
    const before = sink.createWriter(0, 1);
    before.write([1, 2], [0, 0]);
    before.snapshotState!(1);
    before.write([3], [0]);
    const state = stored(before.snapshotState!(2));
    await before.commit!(2);
    // Crash after commit(2) but before the runtime noted it: restore from 2.
    const after = sink.createWriter(0, 1);
    after.restoreState!(state);
    await after.commit!(2);
    after.write([4], [0]);
    after.snapshotState!(3);
    await after.commit!(3);
    assert.deepEqual(await values(kv), [1, 2, 3, 4]);
    // And a restore whose transactions were never committed.
    const lost = sink.createWriter(0, 1);
    lost.write([5], [0]);
    const pending = stored(lost.snapshotState!(4));
    const revived = sink.createWriter(0, 1);
    revived.restoreState!(pending);
    assert.deepEqual(await values(kv), [1, 2, 3, 4]);
    await revived.commit!(4);
    assert.deepEqual(await values(kv), [1, 2, 3, 4, 5]);
  },
);

kvTest(
  "KvAppendSink.finish() commits the rest as a final transaction",
  async (kv) => {
    const writer = new KvAppendSink<string>(kv, "out").createWriter(1, 2);
    writer.write(["a"], [0]);
    writer.snapshotState!(1);
    writer.write(["b"], [0]);
    await writer.finish!();
    const records = await readAppendLog(kv, "out");
    assert.deepEqual(records.map((r) => [r.value, r.checkpointId, r.subtask]), [
      ["a", 1, 1],
      ["b", Infinity, 1],
    ]);
  },
);

kvTest(
  "readAppendLog() orders records by checkpoint, subtask and write order",
  async (kv) => {
    const sink = new KvAppendSink<string>(kv, "out");
    const [w0, w1] = [sink.createWriter(0, 2), sink.createWriter(1, 2)];
    w1.write(["1a", "1b"], [0, 0]);
    w0.write(["0a"], [0]);
    w0.snapshotState!(1);
    w1.snapshotState!(1);
    w0.write(["0b"], [0]);
    w1.write(["1c"], [0]);
    w0.snapshotState!(2);
    w1.snapshotState!(2);
    await w1.commit!(2);
    await w0.commit!(2);
    assert.deepEqual(await values(kv), ["0a", "1a", "1b", "0b", "1c"]);
  },
);

kvTest(
  "KvAppendSink extends a transaction snapshotted twice under one id",
  async (kv) => {
    const writer = new KvAppendSink<number>(kv, "out").createWriter(0, 1);
    writer.write([1], [0]);
    writer.snapshotState!(1);
    writer.write([2], [0]);
    const state = writer.snapshotState!(1) as { transactions: unknown[] };
    assert.equal(state.transactions.length, 1);
    await writer.commit!(1);
    assert.deepEqual(await values(kv), [1, 2]);
  },
);

kvTest(
  "KvAppendSink shows a transaction larger than one commit only once it is whole",
  async (kv) => {
    const seen: number[] = [];
    const observed = interceptCommits(kv, async () => {
      seen.push((await readAppendLog(kv, "out")).length);
    });
    const writer = new KvAppendSink<string>(observed, "out").createWriter(0, 1);
    // About 3 MB: several commits of at most 800 KiB.
    const big = Array.from(
      { length: 300 },
      (_, i) => `${i}`.padEnd(10_000, "."),
    );
    writer.write(big, big.map(() => 0));
    writer.snapshotState!(1);
    await writer.commit!(1);
    assert.ok(seen.length >= 4, `${seen.length} commits`);
    assert.ok(seen.every((n) => n === 0));
    assert.deepEqual(await values(kv), big);
  },
);

kvTest(
  "KvAppendSink completes a half-committed transaction after a restore, once",
  async (kv) => {
    const big = Array.from(
      { length: 300 },
      (_, i) => `${i}`.padEnd(10_000, "."),
    );
    const crashing = interceptCommits(kv, (n) => {
      if (n === 3) throw new Error("crash in the middle of a commit");
    });
    const sink = new KvAppendSink<string>(crashing, "out");
    const writer = sink.createWriter(0, 1);
    writer.write(big, big.map(() => 0));
    const state = stored(writer.snapshotState!(7));
    await assert.rejects(writer.commit!(7) as Promise<void>, /crash/);
    assert.deepEqual(await values(kv), [], "the marker was never written");

    const restored = new KvAppendSink<string>(kv, "out").createWriter(0, 1);
    restored.restoreState!(state);
    await restored.commit!(7);
    assert.deepEqual(await values(kv), big);
  },
);

kvTest(
  "readAppendLog() leaves out the batches a crashed commit left beyond the count of the transaction that later took its id",
  async (kv) => {
    const big = Array.from(
      { length: 300 },
      (_, i) => `${i}`.padEnd(10_000, "."),
    );
    const crashing = interceptCommits(kv, (n) => {
      if (n === 3) throw new Error("crash in the middle of a commit");
    });
    const first = new KvAppendSink<string>(crashing, "out").createWriter(0, 1);
    first.write(["a"], [0]);
    const atSix = stored(first.snapshotState!(6));
    await first.commit!(6); // commit 1
    first.write(big, big.map(() => 0));
    first.snapshotState!(7);
    // Commit 2 writes the first batches of transaction 7, commit 3 dies.
    await assert.rejects(first.commit!(7) as Promise<void>, /crash/);
    const left = await countUnder(kv, ["weir", "append", "out", "data", 7, 0]);
    assert.ok(left > 1, `${left} batches of transaction 7 left behind`);

    // Checkpoint 7 turns out corrupt: the job falls back to checkpoint 6
    // and reads other input up to its next checkpoint, 7 again.
    const second = new KvAppendSink<string>(kv, "out").createWriter(0, 1);
    second.restoreState!(atSix);
    await second.commit!(6);
    second.write(["b"], [0]);
    second.snapshotState!(7);
    await second.commit!(7);
    assert.deepEqual(await values(kv), ["a", "b"]);
  },
);

kvTest(
  "readAppendLog() shows a job started over only its own transaction, not the batches of a larger one under the same id",
  async (kv) => {
    // Three batches: each record takes most of a 64 KiB value.
    const large = Array.from({ length: 3 }, (_, i) => `${i}`.padEnd(40_000));
    const before = new KvAppendSink<string>(kv, "out").createWriter(0, 1);
    before.write(large, large.map(() => 0));
    before.snapshotState!(1);
    await before.commit!(1);
    assert.equal(
      await countUnder(kv, ["weir", "append", "out", "data", 1, 0]),
      3,
    );
    assert.deepEqual(await values(kv), large);
    // Started over from no checkpoint: its first transaction is 1 again.
    const after = new KvAppendSink<string>(kv, "out").createWriter(0, 1);
    after.write(["small"], [0]);
    after.snapshotState!(1);
    await after.commit!(1);
    assert.deepEqual(await values(kv), ["small"]);
  },
);

kvTest(
  "KvAppendSink keeps a restored transaction's subtask after a change of parallelism",
  async (kv) => {
    const sink = new KvAppendSink<string>(kv, "out");
    const old = sink.createWriter(1, 2);
    old.write(["x"], [0]);
    const state = stored(old.snapshotState!(1));
    // Both new writers may be handed the old state: the keys are the same.
    for (const writer of [sink.createWriter(0, 1), sink.createWriter(0, 1)]) {
      writer.restoreState!(state);
      await writer.commit!(1);
    }
    const records = await readAppendLog(kv, "out");
    assert.deepEqual(records.map((r) => [r.value, r.subtask]), [["x", 1]]);
  },
);

kvTest(
  "KvAppendSink refuses another output's state and bad ids, and leaves a record over 64 KiB out of its transaction for takeRefused",
  (kv) => {
    const writer = new KvAppendSink<string>(kv, "out").createWriter(0, 1);
    const other = new KvAppendSink<string>(kv, "other").createWriter(0, 1)
      .snapshotState!(1);
    assert.throws(() => writer.restoreState!(other), {
      name: "RangeError",
      message: /'state\.output'.*"out".*"other"/,
    });
    assert.throws(() => writer.restoreState!([]), {
      name: "TypeError",
      message: /'state'/,
    });
    assert.throws(
      () =>
        writer.restoreState!({
          output: "out",
          transactions: [{ checkpointId: 1, subtask: 0, batches: [{}] }],
        }),
      {
        name: "TypeError",
        message: /'state\.transactions\[0\]\.batches\[0\]'/,
      },
    );
    assert.throws(() => writer.snapshotState!(1.5), {
      name: "RangeError",
      message: /'checkpointId'/,
    });
    writer.write(["a", "x".repeat(70_000), "b"], [1, 2, 3]);
    const state = writer.snapshotState!(1) as {
      transactions: { batches: { count: number }[] }[];
    };
    assert.deepEqual(state.transactions[0].batches.map((b) => b.count), [
      1,
      1,
    ]);
    const [refused, ...more] = writer.takeRefused!();
    assert.equal(more.length, 0);
    assert.equal((refused.value as string).length, 70_000);
    assert.equal(refused.timestamp, 2);
    assert.throws(() => {
      throw refused.error;
    }, { name: "RangeError", message: /KvAppendSink 'out'.*64 KiB/ });
    assert.deepEqual(writer.takeRefused!(), [], "taken once");
    assert.throws(() => new KvAppendSink(kv, ""), {
      name: "RangeError",
      message: /'name'/,
    });
    assert.throws(() => new KvAppendSink(null as never, "x"), {
      name: "TypeError",
      message: /'kv'/,
    });
  },
);

// --- a record KV cannot store is set aside at its checkpoint ------------

kvTest(
  "KvAppendSink leaves a record larger than Deno KV's 64 KiB value limit out of its checkpoint's transaction: the subtask sets it aside and commits the others",
  async (kv) => {
    const writer = new KvAppendSink<string>(kv, "out").createWriter(0, 1);
    const h = guardHarness({ operators: () => [new SinkOperator(writer)] });
    h.push(["a", "y".repeat(70_000), "c"], [1, 2, 3]);
    assert.deepEqual(h.letters(), [], "encoded once, at the checkpoint");
    h.subtask.snapshot(1);
    const [letter, ...more] = h.letters();
    assert.equal(more.length, 0);
    assert.equal(letter.timestamp, 2);
    assert.match(letter.error.message, /KvAppendSink 'out'.*64 KiB/);
    assert.equal(letter.position, "checkpoint 1");
    await h.subtask.notifyCheckpointComplete(1);
    assert.deepEqual(
      (await readAppendLog<string>(kv, "out")).map((r) => r.value),
      ["a", "c"],
    );
  },
);

kvTest(
  "KvAppendSink declares atomicWrites: its write only stages in memory and cannot throw midway",
  (kv) => {
    const writer = new KvAppendSink<string>(kv, "out").createWriter(0, 1);
    assert.equal(writer.atomicWrites, true);
  },
);

kvTest(
  "KvAppendSink leaves a record superjson cannot encode out of its transaction for takeRefused, and keeps the others",
  async (kv) => {
    const writer = new KvAppendSink<unknown>(kv, "out").createWriter(0, 1);
    const poison = {
      get x(): never {
        throw new TypeError("Cannot read x");
      },
    };
    writer.write(["a", poison, "b"], [1, 2, 3]);
    writer.snapshotState!(1);
    const [refused, ...more] = writer.takeRefused!();
    assert.equal(more.length, 0);
    assert.equal(refused.value, poison);
    assert.equal((refused.error as Error).message, "Cannot read x");
    await writer.commit!(1);
    assert.deepEqual(await values(kv), ["a", "b"]);
  },
);
