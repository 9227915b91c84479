import assert from "node:assert/strict";
import {
  type AppendRecord,
  KvLog,
} from "../../../src/connectors/sources/kv_log.ts";
import { AtomicConflictError } from "../../../src/actors/kv/kv_storage.ts";
import { countUnder, interceptCommits, kvTest } from "../_kv_support.ts";

function records<T>(
  values: readonly T[],
  timestamp = 1_000,
): AppendRecord<T>[] {
  return values.map((value, i) => ({ value, timestamp: timestamp + i }));
}

kvTest(
  "KvLog.append() numbers records from 0 without gaps, per partition",
  async (kv) => {
    const log = new KvLog<string>(kv, "events", { partitions: 2 });
    assert.deepEqual(await log.append(0, records(["a", "b", "c"])), {
      firstOffset: 0,
      lastOffset: 2,
    });
    assert.deepEqual(await log.append(0, records(["d", "e"])), {
      firstOffset: 3,
      lastOffset: 4,
    });
    assert.deepEqual(await log.append(1, records(["x"])), {
      firstOffset: 0,
      lastOffset: 0,
    });
    assert.equal(await log.head(0), 5);
    assert.equal(await log.head(1), 1);
    const all = await log.read(0, 0, 100);
    assert.deepEqual(all.map((r) => r.offset), [0, 1, 2, 3, 4]);
    assert.deepEqual(all.map((r) => r.value), ["a", "b", "c", "d", "e"]);
    assert.deepEqual(all.map((r) => r.timestamp), [
      1_000,
      1_001,
      1_002,
      1_000,
      1_001,
    ]);
  },
);

kvTest(
  "KvLog.read() starts inside a batch and stops at max or at the head",
  async (kv) => {
    const log = new KvLog<number>(kv, "events", { partitions: 1 });
    await log.append(0, records([0, 1, 2, 3]));
    await log.append(0, records([4, 5, 6]));
    assert.deepEqual((await log.read(0, 2, 3)).map((r) => r.value), [2, 3, 4]);
    assert.deepEqual((await log.read(0, 4, 10)).map((r) => r.offset), [
      4,
      5,
      6,
    ]);
    assert.deepEqual((await log.read(0, 6, 10)).map((r) => r.value), [6]);
    assert.deepEqual(await log.read(0, 7, 10), []);
    assert.deepEqual(await log.read(0, 100, 10), []);
  },
);

kvTest(
  "KvLog.read() with wholeBatches reads the last batch it reaches to its end",
  async (kv) => {
    const log = new KvLog<number>(kv, "events", { partitions: 1 });
    await log.append(0, records([0, 1, 2, 3]));
    await log.append(0, records([4, 5, 6]));
    const whole = { wholeBatches: true };
    const values = async (from: number, max: number) =>
      (await log.read(0, from, max, whole)).map((r) => r.value);
    assert.deepEqual(await values(1, 2), [1, 2, 3]);
    assert.deepEqual(await values(2, 3), [2, 3, 4, 5, 6]);
    assert.deepEqual(await values(4, 3), [4, 5, 6]);
    assert.deepEqual(await values(7, 3), []);
  },
);

kvTest(
  "KvLog.append() of no records writes nothing and reports the head",
  async (kv) => {
    const log = new KvLog<number>(kv, "events", { partitions: 1 });
    await log.append(0, records([1, 2]));
    assert.deepEqual(await log.append(0, []), {
      firstOffset: 2,
      lastOffset: 1,
    });
    assert.equal(await log.head(0), 2);
  },
);

kvTest(
  "KvLog gives concurrent appenders to one partition distinct offsets",
  async (kv) => {
    // Two instances, as two processes would have, and concurrency within each.
    const logs = [
      new KvLog<string>(kv, "events", { partitions: 1 }),
      new KvLog<string>(kv, "events", { partitions: 1 }),
    ];
    const appends = Array.from(
      { length: 12 },
      (_, i) => logs[i % 2].append(0, records([`${i}.0`, `${i}.1`, `${i}.2`])),
    );
    const results = await Promise.all(appends);
    const firsts = results.map((r) => r.firstOffset).toSorted((a, b) => a - b);
    assert.deepEqual(firsts, Array.from({ length: 12 }, (_, i) => i * 3));
    for (const r of results) assert.equal(r.lastOffset, r.firstOffset + 2);
    assert.equal(await logs[0].head(0), 36);
    const read = await logs[1].read(0, 0, 100);
    assert.deepEqual(
      read.map((r) => r.offset),
      Array.from({ length: 36 }, (_, i) => i),
    );
    // Each append's records are contiguous and in order.
    results.forEach((r, i) => {
      assert.deepEqual(
        read.slice(r.firstOffset, r.lastOffset + 1).map((x) => x.value),
        [`${i}.0`, `${i}.1`, `${i}.2`],
      );
    });
  },
);

kvTest(
  "KvLog.append() retries when another appender moved the head it cached",
  async (kv) => {
    const a = new KvLog<string>(kv, "events", { partitions: 1 });
    const b = new KvLog<string>(kv, "events", { partitions: 1 });
    await a.append(0, records(["a0"])); // a caches head 1
    await b.append(0, records(["b0", "b1"]));
    assert.deepEqual(await a.append(0, records(["a1"])), {
      firstOffset: 3,
      lastOffset: 3,
    });
    assert.deepEqual((await b.read(0, 0, 10)).map((r) => r.value), [
      "a0",
      "b0",
      "b1",
      "a1",
    ]);
  },
);

kvTest(
  "KvLog.append() gives up with AtomicConflictError after its attempts when the head keeps moving, backing off in between",
  async (kv) => {
    const log = new KvLog<string>(kv, "events", { partitions: 1 });
    const other = new KvLog<string>(kv, "events", { partitions: 1 });
    const waits: number[] = [];
    // Another appender commits just before each of this log's commits.
    const racing = new KvLog<string>(
      interceptCommits(
        kv,
        () => other.append(0, records(["x"])).then(() => {}),
      ),
      "events",
      {
        partitions: 1,
        retry: {
          attempts: 5,
          random: () => 0.5,
          sleep: (ms) => {
            waits.push(ms);
            return Promise.resolve();
          },
        },
      },
    );
    await assert.rejects(
      racing.append(0, records(["y"])),
      (error) =>
        error instanceof AtomicConflictError &&
        /within 5 attempts.*nothing was appended/.test(error.message),
    );
    assert.equal(await log.head(0), 5);
    assert.ok(
      (await log.read(0, 0, 10)).every((r) => r.value === "x"),
      "the racing append left nothing behind",
    );
    // Half of 10 ms * 2^n, n = 1..4: exponential backoff with jitter.
    assert.deepEqual(waits, [10, 20, 40, 80]);
  },
);

kvTest("KvLog stores many records per Deno KV value", async (kv) => {
  const log = new KvLog<number>(kv, "events", { partitions: 1 });
  await log.append(0, records(Array.from({ length: 2_000 }, (_, i) => i)));
  const batches = await countUnder(kv, ["weir", "log", "events", 0]);
  assert.ok(batches >= 1 && batches <= 2, `${batches} batches`);
  for await (const entry of kv.list({ prefix: ["weir", "log", "events", 0] })) {
    assert.ok((entry.value as Uint8Array).length <= 65_536);
  }
  const read = await log.read(0, 1_234, 3);
  assert.deepEqual(read.map((r) => r.value), [1_234, 1_235, 1_236]);
});

kvTest(
  "KvLog keeps Map, Set, Date and bigint values through superjson",
  async (kv) => {
    const log = new KvLog<unknown>(kv, "events", { partitions: 1 });
    const value = {
      m: new Map([["k", 1]]),
      s: new Set([1, 2]),
      d: new Date(5),
      b: 12n,
      inf: -Infinity,
    };
    await log.append(0, [{ value, timestamp: 7 }]);
    assert.deepEqual(await log.read(0, 0, 1), [{
      offset: 0,
      value,
      timestamp: 7,
    }]);
  },
);

kvTest(
  "KvLog.append() of a record over 64 KiB stores it in parts and reads it back",
  async (kv) => {
    const log = new KvLog<string>(kv, "events", { partitions: 1 });
    const big = "x".repeat(150_000);
    await log.append(0, records(["small", big, "after"]));
    const read = await log.read(0, 0, 10);
    assert.deepEqual(read.map((r) => r.value.length), [5, 150_000, 5]);
    assert.equal(read[1].value, big);
    assert.equal(await countUnder(kv, ["weir", "log", "events", "part"]), 3);
  },
);

kvTest(
  "KvLog.append() larger than one commit stays invisible until its final commit",
  async (kv) => {
    const reader = new KvLog<string>(kv, "events", { partitions: 1 });
    const seen: Array<[number, number]> = [];
    const writer = new KvLog<string>(
      interceptCommits(kv, async () => {
        seen.push([
          await reader.head(0),
          (await reader.read(0, 0, 10_000)).length,
        ]);
      }),
      "events",
      { partitions: 1 },
    );
    // About 3 MB: several part commits before the one that publishes.
    const values = Array.from(
      { length: 300 },
      (_, i) => `${i}`.padEnd(10_000, "."),
    );
    assert.deepEqual(await writer.append(0, records(values)), {
      firstOffset: 0,
      lastOffset: 299,
    });
    assert.ok(seen.length >= 4, `${seen.length} commits`);
    for (const [head, visible] of seen) {
      assert.deepEqual([head, visible], [0, 0]);
    }
    const read = await reader.read(0, 0, 10_000);
    assert.deepEqual(read.map((r) => r.value), values);
    assert.deepEqual(
      await reader.read(0, 150, 2).then((r) => r.map((x) => x.offset)),
      [150, 151],
    );
  },
);

kvTest(
  "KvLog.append() that fails before its final commit leaves nothing visible and drops its parts",
  async (kv) => {
    const values = Array.from(
      { length: 300 },
      (_, i) => `${i}`.padEnd(10_000, "."),
    );
    // A first run on another log counts the commits of this append.
    let total = 0;
    await new KvLog<string>(
      interceptCommits(kv, (n) => void (total = n)),
      "probe",
      { partitions: 1 },
    ).append(0, records(values));
    assert.ok(total >= 2, `${total} commits`);
    const reader = new KvLog<string>(kv, "events", { partitions: 1 });
    let commits = 0;
    const failing = new KvLog<string>(
      interceptCommits(kv, (n) => {
        commits = n;
        if (n === total) throw new Error("crash before the final commit");
      }),
      "events",
      { partitions: 1 },
    );
    await assert.rejects(failing.append(0, records(values)), /crash/);
    assert.ok(commits > total, "the parts were deleted afterwards");
    assert.equal(await reader.head(0), 0);
    assert.deepEqual(await reader.read(0, 0, 10), []);
    // All that is left is the mark that no commit of it may land any more.
    const left = await Array.fromAsync(
      kv.list({ prefix: ["weir", "log", "events"] }),
    );
    assert.deepEqual(left.map((e) => [e.key[3], e.value]), [["append", -1]]);
  },
);

kvTest(
  "KvLog.append() refuses an append over 999 batches with a RangeError naming the limit",
  async (kv) => {
    const log = new KvLog<string>(kv, "events", { partitions: 1 });
    // Two of these do not fit one 64 KiB batch: 1000 batches.
    const value = "y".repeat(33_000);
    await assert.rejects(
      log.append(
        0,
        Array.from({ length: 1_000 }, () => ({ value, timestamp: 0 })),
      ),
      { name: "RangeError", message: /1000 mutations.*1000 batches/ },
    );
    assert.equal(await countUnder(kv, ["weir", "log"]), 0);
  },
);

kvTest("KvLog validates its arguments at the door", async (kv) => {
  assert.throws(() => new KvLog({} as Deno.Kv, "x", { partitions: 1 }), {
    name: "TypeError",
    message: /'kv'/,
  });
  assert.throws(() => new KvLog(kv, "", { partitions: 1 }), {
    name: "RangeError",
    message: /'name'/,
  });
  assert.throws(() => new KvLog(kv, "x".repeat(2_000), { partitions: 1 }), {
    name: "RangeError",
    message: /'name'.*1024 bytes/,
  });
  assert.throws(() => new KvLog(kv, "x", { partitions: 0 }), {
    name: "RangeError",
    message: /'options\.partitions'/,
  });
  const log = new KvLog<number>(kv, "x", { partitions: 2 });
  await assert.rejects(log.append(2, records([1])), {
    name: "RangeError",
    message: /'partition'/,
  });
  await assert.rejects(
    log.append(0, [{ value: 1, timestamp: 1 }, { value: 2, timestamp: 1.5 }]),
    { name: "RangeError", message: /'records\[1\]\.timestamp'.*1\.5/ },
  );
  await assert.rejects(log.append(0, "nope" as never), {
    name: "TypeError",
    message: /'records'/,
  });
  await assert.rejects(log.read(0, -1, 10), {
    name: "RangeError",
    message: /'fromOffset'/,
  });
  await assert.rejects(log.read(0, 0, 0), {
    name: "RangeError",
    message: /'max'/,
  });
  assert.equal(await log.head(0), 0);
});

kvTest("KvLog refuses a head or batch it did not write", async (kv) => {
  const log = new KvLog<number>(kv, "x", { partitions: 1 });
  await kv.set(["weir", "log", "x", "head", 0], "seven");
  await assert.rejects(log.head(0), { name: "TypeError", message: /head/ });
  await kv.set(["weir", "log", "x", 0, 0], { not: "a batch" });
  await assert.rejects(log.read(0, 0, 1), {
    name: "TypeError",
    message: /offset 0 of partition 0/,
  });
});
