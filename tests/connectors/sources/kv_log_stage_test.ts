// The parts of a large KvLog append: written ahead of its final commit,
// retried when SQLite's lock fails them, and collected when no commit will
// ever publish them, even after a crash.

import assert from "node:assert/strict";
import {
  type AppendRecord,
  KvLog,
} from "../../../src/connectors/sources/kv_log.ts";
import { AtomicConflictError } from "../../../src/actors/kv/kv_storage.ts";
import { PersistentKvError } from "../../../src/kv/retry.ts";
import { ManualClock } from "../../../src/time/clock.ts";
import { countUnder, kvTest } from "../_kv_support.ts";
import { faultyKv, isFinal } from "../../_support/faulty_kv.ts";

const noWait = { sleep: () => Promise.resolve() };
const LOG: Deno.KvKey = ["weir", "log", "events"];
const HOUR = 3_600_000;

// 20 records of 50 KB: about 1 MB, so some batches are staged as parts.
function large(tag = ""): AppendRecord<string>[] {
  return Array.from({ length: 20 }, (_, i) => ({
    value: `${tag}${i}`.padEnd(50_000, "."),
    timestamp: 1_000 + i,
  }));
}

function isPart(commit: { keys: readonly Deno.KvKey[] }): boolean {
  return commit.keys.some((key) => key.includes("part"));
}

kvTest(
  "KvLog.append() retries a part commit that SQLite's lock failed",
  async (kv) => {
    let locked = 2;
    const log = new KvLog<string>(
      faultyKv(kv, {
        commit(commit) {
          if (isPart(commit) && locked-- > 0) {
            return Promise.reject(new TypeError("database is locked"));
          }
          return commit.send();
        },
      }),
      "events",
      { partitions: 1, retry: noWait },
    );
    const appended = large();
    assert.deepEqual(await log.append(0, appended), {
      firstOffset: 0,
      lastOffset: 19,
    });
    assert.equal(locked, -1);
    const read = await log.read(0, 0, 100);
    assert.deepEqual(read.map((r) => r.value), appended.map((r) => r.value));
    assert.equal(await countUnder(kv, [...LOG, "pending"]), 0);
  },
);

kvTest(
  "KvLog.append() whose part commits stay locked gives up with AtomicConflictError, leaving nothing behind",
  async (kv) => {
    const log = new KvLog<string>(
      faultyKv(kv, {
        commit(commit) {
          if (isPart(commit)) {
            return Promise.reject(new TypeError("database is locked"));
          }
          return commit.send();
        },
      }),
      "events",
      { partitions: 1, retry: { ...noWait, attempts: 3 } },
    );
    await assert.rejects(
      log.append(0, large()),
      (error) =>
        error instanceof AtomicConflictError &&
        /parts must be written within 3 attempts: the last failed as database is locked; nothing was appended/
          .test(error.message),
    );
    assert.equal(await log.head(0), 0);
    assert.equal(await countUnder(kv, LOG), 0);
  },
);

kvTest(
  "KvLog.recall() retries a read SQLite's lock failed, and gives up with PersistentKvError",
  async (kv) => {
    await new KvLog<string>(kv, "events", { partitions: 1 }).appendAll(
      [{ partition: 0, records: [{ value: "a", timestamp: 1 }] }],
      { once: { id: "k", expireInMs: 60_000, memo: () => "m" } },
    );
    let locked = 2;
    const flaky = new KvLog<string>(
      faultyKv(kv, {
        read() {
          if (locked-- > 0) throw new TypeError("database is locked");
        },
      }),
      "events",
      { partitions: 1, retry: noWait },
    );
    assert.deepEqual(await flaky.recall("k"), { memo: "m" });
    const stuck = new KvLog<string>(
      faultyKv(kv, {
        read() {
          throw new TypeError("database is locked");
        },
      }),
      "events",
      { partitions: 1, retry: { ...noWait, attempts: 3 } },
    );
    await assert.rejects(
      stuck.recall("k"),
      (error) =>
        error instanceof PersistentKvError &&
        /recall.*3 attempts.*database is locked/.test(error.message),
    );
  },
);

kvTest(
  "KvLog collects the parts of an append that died before publishing, at a later append an hour on, and never published ones",
  async (kv) => {
    const clock = new ManualClock(0);
    const options = { partitions: 1, retry: noWait, clock };
    const published = large("kept");
    await new KvLog<string>(kv, "events", options).append(0, published);
    const keptParts = await countUnder(kv, [...LOG, "part"]);
    // A process that dies at its final commit: nothing after it lands.
    let dead = false;
    const dying = new KvLog<string>(
      faultyKv(kv, {
        commit(commit) {
          if (isFinal(commit)) dead = true;
          if (dead) return Promise.reject(new Error("process killed"));
          return commit.send();
        },
      }),
      "events",
      options,
    );
    await assert.rejects(dying.append(0, large("lost")), /process killed/);
    assert.ok(await countUnder(kv, [...LOG, "part"]) > keptParts);
    assert.equal(await countUnder(kv, [...LOG, "pending"]), 1);
    // Half an hour on, a new process leaves them: the append may be running.
    clock.advance(HOUR / 2);
    const small = [{ value: "s", timestamp: 1 }];
    await new KvLog<string>(kv, "events", options).append(0, small);
    assert.equal(await countUnder(kv, [...LOG, "pending"]), 1);
    // An hour on, they go; the published append's stay.
    clock.advance(HOUR / 2);
    await new KvLog<string>(kv, "events", options).append(0, small);
    assert.equal(await countUnder(kv, [...LOG, "pending"]), 0);
    assert.equal(await countUnder(kv, [...LOG, "part"]), keptParts);
    const read = await new KvLog<string>(kv, "events", options).read(0, 0, 100);
    assert.deepEqual(
      read.map((r) => r.value),
      [...published.map((r) => r.value), "s", "s"],
    );
  },
);

kvTest(
  "KvLog never publishes parts a sweep collected: the append's final commit fails and it throws AtomicConflictError",
  async (kv) => {
    const clock = new ManualClock(0);
    const sweeper = new KvLog<string>(kv, "events", {
      partitions: 1,
      clock: new ManualClock(HOUR),
    });
    const slow = new KvLog<string>(
      faultyKv(kv, {
        async commit(commit) {
          // The append took over an hour: another process sweeps first.
          if (isFinal(commit)) {
            await sweeper.append(0, [{ value: "other", timestamp: 1 }]);
          }
          return await commit.send();
        },
      }),
      "events",
      { partitions: 1, retry: { ...noWait, attempts: 2 }, clock },
    );
    await assert.rejects(
      slow.append(0, large()),
      (error) =>
        error instanceof AtomicConflictError &&
        /a sweep collected them.*nothing was appended/.test(error.message),
    );
    const read = await sweeper.read(0, 0, 100);
    assert.deepEqual(read.map((r) => r.value), ["other"]);
    assert.equal(await countUnder(kv, [...LOG, "part"]), 0);
    assert.equal(await countUnder(kv, [...LOG, "pending"]), 0);
  },
);
