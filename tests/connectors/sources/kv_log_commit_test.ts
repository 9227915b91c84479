// A final commit that throws may still have landed: a timeout or a dropped
// connection to a remote database loses the answer, not the commit. The
// append must then answer as done, never append twice and never drop the
// parts a published manifest points at.

import assert from "node:assert/strict";
import {
  type AppendRecord,
  KvLog,
} from "../../../src/connectors/sources/kv_log.ts";
import { AtomicConflictError } from "../../../src/actors/kv/kv_storage.ts";
import { PersistentKvError } from "../../../src/kv/retry.ts";
import { countUnder, kvTest } from "../_kv_support.ts";
import { faultyKv, isFinal } from "../../_support/faulty_kv.ts";

const noWait = { sleep: () => Promise.resolve() };
const LOG: Deno.KvKey = ["weir", "log", "events"];

function records<T>(values: readonly T[]): AppendRecord<T>[] {
  return values.map((value, i) => ({ value, timestamp: 1_000 + i }));
}

// 20 records of 50 KB: about 1 MB, so some batches are staged as parts.
function large(): AppendRecord<string>[] {
  return records(
    Array.from({ length: 20 }, (_, i) => `${i}`.padEnd(50_000, ".")),
  );
}

kvTest(
  "KvLog.appendAll() whose final commit lands but loses its answer answers as appended with its offsets, keeps its parts and reads back",
  async (kv) => {
    let lost = false;
    const log = new KvLog<string>(
      faultyKv(kv, {
        async commit(commit) {
          const result = await commit.send();
          if (isFinal(commit) && !lost) {
            lost = true;
            throw new Error("connection reset by peer");
          }
          return result;
        },
      }),
      "events",
      { partitions: 1, retry: noWait },
    );
    const appended = large();
    const result = await log.appendAll([{ partition: 0, records: appended }], {
      once: { id: "k1", expireInMs: 60_000, memo: () => "first" },
    });
    assert.ok(lost);
    assert.deepEqual(result, {
      duplicate: false,
      offsets: [{ partition: 0, firstOffset: 0, lastOffset: 19 }],
    });
    const reader = new KvLog<string>(kv, "events", { partitions: 1 });
    const read = await reader.read(0, 0, 100);
    assert.deepEqual(read.map((r) => r.value), appended.map((r) => r.value));
    assert.ok(await countUnder(kv, [...LOG, "part"]) > 0);
    assert.equal(await countUnder(kv, [...LOG, "pending"]), 0);
    assert.deepEqual(await reader.recall("k1"), { memo: "first" });
  },
);

kvTest(
  "KvLog.append() whose commit lands but loses its answer appends the records once, not again on retry",
  async (kv) => {
    let lost = 0;
    const log = new KvLog<string>(
      faultyKv(kv, {
        async commit(commit) {
          const result = await commit.send();
          if (lost++ < 2) throw new Error("request timed out");
          return result;
        },
      }),
      "events",
      { partitions: 1, retry: noWait },
    );
    assert.deepEqual(await log.append(0, records(["a", "b"])), {
      firstOffset: 0,
      lastOffset: 1,
    });
    assert.deepEqual(await log.append(0, records(["c"])), {
      firstOffset: 2,
      lastOffset: 2,
    });
    assert.equal(lost, 2, "each append committed once: no retry repeated it");
    const reader = new KvLog<string>(kv, "events", { partitions: 1 });
    assert.equal(await reader.head(0), 3);
    const read = await reader.read(0, 0, 10);
    assert.deepEqual(read.map((r) => r.value), ["a", "b", "c"]);
  },
);

kvTest(
  "KvLog.append() that gives up after commits without an answer makes sure none of them lands later, and drops its parts",
  async (kv) => {
    // Every final commit is held, as if still in flight, and times out.
    const inFlight: Array<
      () => Promise<Deno.KvCommitResult | Deno.KvCommitError>
    > = [];
    const log = new KvLog<string>(
      faultyKv(kv, {
        commit(commit) {
          if (!isFinal(commit)) return commit.send();
          inFlight.push(commit.send);
          return Promise.reject(new Error("request timed out"));
        },
      }),
      "events",
      { partitions: 1, retry: { ...noWait, attempts: 3 } },
    );
    await assert.rejects(
      log.append(0, large()),
      (error) =>
        error instanceof AtomicConflictError &&
        /3 attempts.*timed out.*nothing was appended/.test(error.message),
    );
    assert.equal(inFlight.length, 3);
    for (const send of inFlight) assert.equal((await send()).ok, false);
    const reader = new KvLog<string>(kv, "events", { partitions: 1 });
    assert.equal(await reader.head(0), 0);
    assert.equal(await countUnder(kv, [...LOG, "part"]), 0);
    assert.equal(await countUnder(kv, [...LOG, "pending"]), 0);
  },
);

kvTest(
  "KvLog.append() whose commit lost its answer while Deno KV keeps failing throws PersistentKvError and keeps its parts",
  async (kv) => {
    let down = false;
    const log = new KvLog<string>(
      faultyKv(kv, {
        async commit(commit) {
          if (down) throw new Error("connection refused");
          const result = await commit.send();
          if (isFinal(commit)) {
            down = true;
            throw new Error("connection reset by peer");
          }
          return result;
        },
        read() {
          if (down) throw new Error("connection refused");
        },
      }),
      "events",
      { partitions: 1, retry: { ...noWait, attempts: 3 } },
    );
    const appended = large();
    await assert.rejects(
      log.append(0, appended),
      (error) =>
        error instanceof PersistentKvError &&
        /may have been appended.*Idempotency-Key/.test(error.message),
    );
    // It had landed: the parts its manifests point at are all there.
    const reader = new KvLog<string>(kv, "events", { partitions: 1 });
    const read = await reader.read(0, 0, 100);
    assert.deepEqual(read.map((r) => r.value), appended.map((r) => r.value));
  },
);

kvTest(
  "KvLog.append() retries a commit that SQLite's lock failed without treating it as landed, and drops its parts when it gives up",
  async (kv) => {
    const log = new KvLog<string>(
      faultyKv(kv, {
        commit(commit) {
          if (!isFinal(commit)) return commit.send();
          return Promise.reject(new TypeError("database is locked"));
        },
      }),
      "events",
      { partitions: 1, retry: { ...noWait, attempts: 2 } },
    );
    await assert.rejects(
      log.append(0, large()),
      (error) =>
        error instanceof AtomicConflictError &&
        /2 attempts.*database is locked/.test(error.message),
    );
    assert.equal(await countUnder(kv, [...LOG, "part"]), 0);
    assert.equal(await countUnder(kv, [...LOG, "pending"]), 0);
    assert.equal(await countUnder(kv, [...LOG, "append"]), 0);
  },
);
