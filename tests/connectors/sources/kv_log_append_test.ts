import assert from "node:assert/strict";
import {
  type AppendRecord,
  KvLog,
} from "../../../src/connectors/sources/kv_log.ts";
import { AtomicConflictError } from "../../../src/actors/kv/kv_storage.ts";
import { countUnder, kvTest } from "../_kv_support.ts";
import { observe } from "../../_support/observed_kv.ts";

function records<T>(
  values: readonly T[],
  timestamp = 1_000,
): AppendRecord<T>[] {
  return values.map((value, i) => ({ value, timestamp: timestamp + i }));
}

const noWait = { sleep: () => Promise.resolve() };

kvTest(
  "KvLog.appendAll() writes every partition's records in one commit, or none when it fails",
  async (kv) => {
    const reader = new KvLog<string>(kv, "events", { partitions: 3 });
    const ok = observe(kv);
    const log = new KvLog<string>(ok.kv, "events", { partitions: 3 });
    const result = await log.appendAll([
      { partition: 2, records: records(["c0", "c1"]) },
      { partition: 0, records: records(["a0"]) },
      { partition: 1, records: [] },
    ]);
    assert.deepEqual(result, {
      duplicate: false,
      offsets: [
        { partition: 2, firstOffset: 0, lastOffset: 1 },
        { partition: 0, firstOffset: 0, lastOffset: 0 },
        { partition: 1, firstOffset: 0, lastOffset: -1 },
      ],
    });
    assert.deepEqual(ok.seen.commits, [true]);
    // A failing commit: nothing of either partition shows.
    const failing = observe(kv, () => {
      throw new Error("crash at the commit");
    });
    await assert.rejects(
      new KvLog<string>(failing.kv, "events", { partitions: 3 }).appendAll([
        { partition: 0, records: records(["a1"]) },
        { partition: 1, records: records(["b0"]) },
      ]),
      /crash/,
    );
    assert.deepEqual(
      await Promise.all([0, 1, 2].map((p) => reader.head(p))),
      [1, 0, 2],
    );
    await assert.rejects(
      log.appendAll([
        { partition: 0, records: [] },
        { partition: 0, records: [] },
      ]),
      { name: "RangeError", message: /partition 0 repeats/ },
    );
  },
);

kvTest(
  "KvLog.appendAll() with once appends an id once, keeps it with expireIn in the same commit and hands a repeat the memo",
  async (kv) => {
    const { kv: observed, seen } = observe(kv);
    const log = new KvLog<string>(observed, "events", { partitions: 2 });
    const once = {
      id: "batch-1",
      expireInMs: 3_600_000,
      memo: (offsets: unknown) => ({ digest: "d1", offsets }),
    };
    const first = await log.appendAll([
      { partition: 0, records: records(["a"]) },
      { partition: 1, records: records(["b", "c"]) },
    ], { once });
    assert.equal(first.duplicate, false);
    assert.deepEqual(seen.commits, [true]);
    const idSet = seen.sets.find((s) => s.key.includes("batch-1"));
    assert.deepEqual(idSet?.options, { expireIn: 3_600_000 });
    const memo = {
      digest: "d1",
      offsets: [
        { partition: 0, firstOffset: 0, lastOffset: 0 },
        { partition: 1, firstOffset: 0, lastOffset: 1 },
      ],
    };
    assert.deepEqual(await log.recall("batch-1"), { memo });
    // The repeat appends nothing, whatever it carries.
    const again = await log.appendAll([
      { partition: 0, records: records(["a", "x"]) },
    ], { once: { ...once, memo: () => "other" } });
    assert.deepEqual(again, { duplicate: true, memo });
    assert.deepEqual([await log.head(0), await log.head(1)], [1, 2]);
    assert.equal(await log.recall("batch-2"), null);
  },
);

kvTest(
  "KvLog.appendAll() with once appends once when appenders on two handles race with one id",
  async (kv) => {
    // Two handles: each has its own in-process lock, as two processes do.
    const a = new KvLog<string>(observe(kv).kv, "events", {
      partitions: 2,
      retry: noWait,
    });
    const b = new KvLog<string>(observe(kv).kv, "events", {
      partitions: 2,
      retry: noWait,
    });
    const once = (memo: string) => ({
      id: "same",
      expireInMs: 60_000,
      memo: () => memo,
    });
    const results = await Promise.all([
      a.appendAll([{ partition: 0, records: records(["a0", "a1"]) }], {
        once: once("a"),
      }),
      b.appendAll([{ partition: 1, records: records(["b0"]) }], {
        once: once("b"),
      }),
    ]);
    assert.deepEqual(results.map((r) => r.duplicate).sort(), [false, true]);
    const winner = results[0].duplicate ? "b" : "a";
    const loser = results.find((r) => r.duplicate) as { memo: unknown };
    assert.equal(loser.memo, winner);
    const stored = (await a.head(0)) + (await a.head(1));
    assert.equal(stored, winner === "a" ? 2 : 1);
  },
);

kvTest(
  "KvLog appends through one handle take turns: concurrent appends never lose a race",
  async (kv) => {
    const { kv: observed, seen } = observe(kv);
    const log = new KvLog<number>(observed, "events", { partitions: 2 });
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => log.append(i % 2, records([i]))),
    );
    assert.deepEqual(seen.commits, Array(20).fill(true));
    assert.deepEqual([await log.head(0), await log.head(1)], [10, 10]);
  },
);

kvTest(
  "KvLog.append() retries a commit that SQLite's lock failed, and gives up leaving nothing",
  async (kv) => {
    let locked = 2;
    const flaky = observe(kv, () => {
      if (locked-- > 0) throw new TypeError("database is locked");
    });
    const log = new KvLog<string>(flaky.kv, "events", {
      partitions: 1,
      retry: noWait,
    });
    assert.deepEqual(await log.append(0, records(["a"])), {
      firstOffset: 0,
      lastOffset: 0,
    });
    const stuck = observe(kv, () => {
      throw new TypeError("database is locked");
    });
    await assert.rejects(
      new KvLog<string>(stuck.kv, "events", {
        partitions: 1,
        retry: { ...noWait, attempts: 3 },
      }).append(0, records(["b"])),
      (error) =>
        error instanceof AtomicConflictError &&
        /3 attempts.*database is locked/.test(error.message),
    );
    assert.equal(await log.head(0), 1);
    assert.equal(await countUnder(kv, ["weir", "log", "events", 0]), 1);
  },
);

kvTest(
  "KvLog.appendAll() validates its once option and the memo's size",
  async (kv) => {
    const log = new KvLog<string>(kv, "events", { partitions: 1 });
    const one = [{ partition: 0, records: records(["a"]) }];
    await assert.rejects(
      log.appendAll(one, { once: { id: "", expireInMs: 1 } }),
      { name: "RangeError", message: /'options\.once\.id'/ },
    );
    await assert.rejects(
      log.appendAll(one, { once: { id: "x", expireInMs: 0 } }),
      { name: "RangeError", message: /'options\.once\.expireInMs'/ },
    );
    await assert.rejects(
      log.appendAll(one, {
        once: { id: "x", expireInMs: 1_000, memo: () => "m".repeat(70_000) },
      }),
      { name: "RangeError", message: /memo.*61440 bytes/ },
    );
    assert.equal(await log.head(0), 0);
    assert.equal(await log.recall("x"), null);
  },
);
