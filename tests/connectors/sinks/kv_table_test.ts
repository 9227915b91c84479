import assert from "node:assert/strict";
import {
  KvTableSink,
  readTable,
} from "../../../src/connectors/sinks/kv_table.ts";
import { KvAppendSink } from "../../../src/connectors/sinks/kv_append.ts";
import { countUnder, interceptCommits, kvTest } from "../_kv_support.ts";
import { SinkOperator } from "../../../src/runtime/operators/sink.ts";
import { guardHarness } from "../../_support/guard_harness.ts";

interface Count {
  readonly word: string;
  readonly n: number;
}

function countSink(kv: Deno.Kv, table = "counts"): KvTableSink<Count> {
  return new KvTableSink<Count>(kv, table, { key: (c) => c.word });
}

function rows(...counts: Array<[string, number]>): Count[] {
  return counts.map(([word, n]) => ({ word, n }));
}

function asObject(table: Map<string | number, Count>) {
  return Object.fromEntries([...table].map(([k, v]) => [k, v.n]));
}

kvTest(
  "KvTableSink shows nothing before a commit and every row after it",
  async (kv) => {
    const writer = countSink(kv).createWriter(0, 1);
    writer.write(rows(["a", 1], ["b", 1], ["a", 2]), [0, 0, 0]);
    assert.equal((await readTable(kv, "counts")).size, 0);
    writer.snapshotState!(1);
    assert.equal(
      (await readTable(kv, "counts")).size,
      0,
      "staged, not committed",
    );
    await writer.commit!(1);
    assert.deepEqual(asObject(await readTable(kv, "counts")), { a: 2, b: 1 });
  },
);

kvTest(
  "KvTableSink.commit(id) commits the transactions up to id only, later ones winning",
  async (kv) => {
    const writer = countSink(kv).createWriter(0, 1);
    writer.write(rows(["a", 1], ["b", 1]), [0, 0]);
    writer.snapshotState!(1);
    writer.write(rows(["a", 5], ["c", 1]), [0, 0]);
    const state = writer.snapshotState!(2) as { transactions: unknown[] };
    assert.equal(state.transactions.length, 2, "txn 1 is still pending");
    writer.write(rows(["d", 1]), [0]);
    await writer.commit!(1);
    assert.deepEqual(asObject(await readTable(kv, "counts")), { a: 1, b: 1 });
    await writer.commit!(2);
    assert.deepEqual(asObject(await readTable(kv, "counts")), {
      a: 5,
      b: 1,
      c: 1,
    });
    // A skipped notification: commit(4) also covers txn 3.
    writer.snapshotState!(3);
    await writer.commit!(4);
    assert.equal((await readTable<Count>(kv, "counts")).get("d")?.n, 1);
  },
);

kvTest(
  "KvTableSink commits the same transaction twice without a change",
  async (kv) => {
    const writer = countSink(kv).createWriter(0, 1);
    writer.write(rows(["a", 1], ["b", 2]), [0, 0]);
    writer.snapshotState!(1);
    await writer.commit!(1);
    await writer.commit!(1);
    assert.deepEqual(asObject(await readTable(kv, "counts")), { a: 1, b: 2 });
    assert.equal(await countUnder(kv, ["weir", "table", "counts"]), 2);
  },
);

kvTest(
  "KvTableSink commits a restored transaction again, whether or not it was committed",
  async (kv) => {
    const sink = countSink(kv);
    const before = sink.createWriter(0, 1);
    before.write(rows(["a", 1]), [0]);
    before.snapshotState!(1);
    before.write(rows(["b", 1]), [0]);
    // The checkpoint 2 is stored, then the process dies before commit(2).
    const state = structuredClone(before.snapshotState!(2));
    await before.commit!(1);

    const after = sink.createWriter(0, 1);
    after.restoreState!(state);
    assert.deepEqual(asObject(await readTable(kv, "counts")), { a: 1 });
    await after.commit!(2);
    assert.deepEqual(asObject(await readTable(kv, "counts")), { a: 1, b: 1 });
    // Restored once more from the same checkpoint: the same rows again.
    const again = sink.createWriter(0, 1);
    again.restoreState!(state);
    await again.commit!(2);
    assert.deepEqual(asObject(await readTable(kv, "counts")), { a: 1, b: 1 });
    assert.equal(await countUnder(kv, ["weir", "table", "counts"]), 2);
  },
);

kvTest(
  "KvTableSink.finish() commits what is staged and what is pending",
  async (kv) => {
    const writer = countSink(kv).createWriter(0, 1);
    writer.write(rows(["a", 1]), [0]);
    writer.snapshotState!(1);
    writer.write(rows(["b", 1], ["a", 3]), [0, 0]);
    await writer.finish!();
    assert.deepEqual(asObject(await readTable(kv, "counts")), { a: 3, b: 1 });
    assert.deepEqual(
      (writer.snapshotState!(2) as { transactions: unknown[] }).transactions,
      [],
    );
  },
);

kvTest(
  "KvTableSink keeps a transaction pending when its commit fails, and commits it later",
  async (kv) => {
    let fail = true;
    const flaky = interceptCommits(kv, () => {
      if (fail) throw new Error("KV unavailable");
    });
    const writer = countSink(flaky).createWriter(0, 1);
    writer.write(rows(["a", 1]), [0]);
    writer.snapshotState!(1);
    await assert.rejects(writer.commit!(1) as Promise<void>, /KV unavailable/);
    fail = false;
    writer.snapshotState!(2);
    await writer.commit!(2);
    assert.deepEqual(asObject(await readTable(kv, "counts")), { a: 1 });
  },
);

kvTest(
  "KvTableSink splits a large transaction into commits within Deno KV's limits",
  async (kv) => {
    let commits = 0;
    const counting = interceptCommits(kv, () => {
      commits++;
    });
    const writer = new KvTableSink<{ id: number; text: string }>(
      counting,
      "big",
      { key: (row) => row.id },
    ).createWriter(0, 1);
    const values = Array.from({ length: 3_000 }, (_, id) => ({
      id,
      text: "z".repeat(1_000),
    }));
    writer.write(values, values.map(() => 0));
    writer.snapshotState!(1);
    await writer.commit!(1);
    // 3000 rows of 1 KB: over 1000 mutations and over 800 KiB, so 4 commits
    // or more; Deno KV itself rejects a commit over its limits.
    assert.ok(commits >= 4, `${commits} commits`);
    const table = await readTable<{ id: number; text: string }>(kv, "big");
    assert.equal(table.size, 3_000);
    assert.deepEqual([...table.keys()].slice(0, 3), [0, 1, 2]);
  },
);

kvTest(
  "KvTableSink accepts string and number keys and keeps superjson values",
  async (kv) => {
    const writer = new KvTableSink<{ k: string | number; v: unknown }>(
      kv,
      "mixed",
      { key: (row) => row.k },
    ).createWriter(0, 1);
    const value = { m: new Map([[1, new Set(["x"])]]), d: new Date(3), b: 2n };
    writer.write([{ k: 1, v: value }, { k: "1", v: null }], [0, 0]);
    writer.snapshotState!(1);
    await writer.commit!(1);
    const table = await readTable(kv, "mixed");
    assert.deepEqual(
      [...table.keys()],
      ["1", 1],
      "strings sort before numbers",
    );
    assert.deepEqual(table.get(1), { k: 1, v: value });
  },
);

kvTest(
  "KvTableSink refuses another table's state and bad keys, and leaves a row over 64 KiB out of its transaction for takeRefused",
  (kv) => {
    const writer = countSink(kv).createWriter(0, 1);
    writer.write(rows(["a", 1]), [0]);
    const otherState = countSink(kv, "other").createWriter(0, 1).snapshotState!(
      1,
    );
    assert.throws(() => writer.restoreState!(otherState), {
      name: "RangeError",
      message: /'state\.table'.*"counts".*"other"/,
    });
    assert.throws(() => writer.restoreState!(null), {
      name: "TypeError",
      message: /'state'/,
    });
    const byValue = new KvTableSink<unknown>(kv, "t", {
      key: (value) => value as never,
    }).createWriter(0, 1);
    assert.throws(() => byValue.write([{}], [0]), {
      name: "TypeError",
      message: /'key\(value\)'/,
    });
    assert.throws(() => byValue.write([NaN], [0]), {
      name: "RangeError",
      message: /'key\(value\)'.*NaN/,
    });
    const big = new KvTableSink<string>(kv, "t", { key: () => "k" })
      .createWriter(0, 1);
    big.write(["x".repeat(70_000)], [7]);
    const state = big.snapshotState!(1) as { transactions: unknown[] };
    assert.deepEqual(state.transactions, [
      { checkpointId: 1, rows: [] },
    ]);
    const [refused, ...more] = big.takeRefused!();
    assert.equal(more.length, 0);
    assert.equal(refused.timestamp, 7);
    assert.throws(() => {
      throw refused.error;
    }, { name: "RangeError", message: /KvTableSink 't' as row "k".*64 KiB/ });
    assert.deepEqual(big.takeRefused!(), [], "taken once");
    assert.throws(() => big.snapshotState!(-1), {
      name: "RangeError",
      message: /'checkpointId'/,
    });
  },
);

kvTest("KvTableSink validates its arguments at the door", (kv) => {
  assert.throws(() => new KvTableSink({} as Deno.Kv, "t", { key: String }), {
    name: "TypeError",
    message: /'kv'/,
  });
  assert.throws(() => new KvTableSink(kv, "", { key: String }), {
    name: "RangeError",
    message: /'tableName'/,
  });
  assert.throws(() => new KvTableSink(kv, "t", { key: "id" as never }), {
    name: "TypeError",
    message: /'key'/,
  });
  const sink = new KvTableSink(kv, "t", { key: String });
  assert.equal(sink.name, "kv-table:t");
  assert.throws(() => sink.createWriter(2, 2), {
    name: "RangeError",
    message: /'subtaskIndex'/,
  });
});

// --- a row KV cannot store is set aside ---------------------------------

for (const stepSnapshots of [false, true]) {
  kvTest(
    `KvTableSink refuses a row key over Deno KV's 2048-byte key limit when it arrives, and a row over 64 KiB at its checkpoint, which keeps the key's committed row: the subtask sets both aside and commits the others${
      stepSnapshots ? " (step snapshots)" : ""
    }`,
    async (kv) => {
      const sink = new KvTableSink<{ k: string; v?: string }>(kv, "t", {
        key: (row) => row.k,
      });
      const writer = sink.createWriter(0, 1);
      const h = guardHarness({
        operators: () => [new SinkOperator(writer)],
        stepSnapshots,
      });
      h.push([{ k: "b", v: "small" }], [0]);
      h.subtask.snapshot(1);
      await h.subtask.notifyCheckpointComplete(1);
      const long = "x".repeat(2_100);
      h.push([{ k: "a" }, { k: long }, { k: "b", v: "y".repeat(70_000) }, {
        k: "c",
      }], [1, 2, 3, 4]);
      const [early, ...none] = h.letters();
      assert.equal(none.length, 0);
      assert.deepEqual([early.position, early.error.name], [
        "channel 0, record 2",
        "RangeError",
      ]);
      assert.match(
        early.error.message,
        /KvTableSink 't' as the key of row "x{10,}….* at most 2048 bytes.*current value is 21\d\d bytes/,
      );
      h.subtask.snapshot(2);
      const [late, ...more] = h.letters();
      assert.equal(more.length, 0);
      assert.deepEqual([late.position, late.timestamp, late.error.name], [
        "checkpoint 2",
        3,
        "RangeError",
      ]);
      assert.match(late.error.message, /row "b" must .*64 KiB/);
      await h.subtask.notifyCheckpointComplete(2);
      const table = await readTable<{ k: string; v?: string }>(kv, "t");
      assert.deepEqual([...table.keys()].sort(), ["a", "b", "c"]);
      assert.equal(table.get("b")!.v, "small", "b keeps its committed row");
    },
  );
}

kvTest(
  "KvTableSink.check() reads the row key only: it never encodes the record, which costs O(1) per record",
  (kv) => {
    let reads = 0;
    const record = {
      id: "a",
      get payload() {
        reads++;
        return [1, 2, 3];
      },
    };
    const writer = new KvTableSink<typeof record>(kv, "t", { key: (r) => r.id })
      .createWriter(0, 1);
    writer.check!(record, 0);
    assert.equal(reads, 0);
    const append = new KvAppendSink<typeof record>(kv, "out").createWriter(
      0,
      1,
    );
    assert.equal(
      append.check,
      undefined,
      "KvAppendSink encodes once, at close",
    );
  },
);

kvTest(
  "KvTableSink.check() passes a key short enough for any characters without measuring it, and measures a longer one exactly",
  (kv) => {
    // ["weir", "table", "t"] and the key's tag and end leave 2048 - 17 - 2
    // bytes: 676 characters of up to 3 bytes each, 2029 of one byte.
    const writer = new KvTableSink<string | number>(kv, "t", { key: (k) => k })
      .createWriter(0, 1);
    for (
      const key of ["€".repeat(676), "x".repeat(2_029), "\0".repeat(1_014)]
    ) {
      writer.check!(key, 0);
    }
    for (
      const key of ["€".repeat(677), "x".repeat(2_030), "\0".repeat(1_015)]
    ) {
      assert.throws(() => writer.check!(key, 0), {
        name: "RangeError",
        message: /at most 2048 bytes/,
      });
    }
    writer.check!(42, 0);
  },
);

kvTest(
  "KvTableSink stages nothing of a batch with a record whose key cannot be a row key, and declares atomicWrites",
  (kv) => {
    const sink = new KvTableSink<{ k: unknown }>(kv, "t", {
      key: (r) => r.k as string,
    });
    const writer = sink.createWriter(0, 1);
    assert.equal(writer.atomicWrites, true);
    assert.throws(
      () => writer.write([{ k: "a" }, { k: null }], [1, 2]),
      { name: "TypeError", message: /'key\(value\)'/ },
    );
    assert.deepEqual(
      (writer.snapshotState!(1) as { transactions: unknown[] }).transactions,
      [],
    );
  },
);

kvTest(
  "KvTableSink leaves a row superjson cannot encode out of its transaction for takeRefused, and keeps the others",
  async (kv) => {
    const writer = new KvTableSink<{ k: string }>(kv, "t", {
      key: (row) => row.k,
    }).createWriter(0, 1);
    const poison = {
      k: "p",
      get x(): never {
        throw new TypeError("Cannot read x");
      },
    };
    writer.write([{ k: "a" }, poison], [1, 2]);
    writer.snapshotState!(1);
    const [refused, ...more] = writer.takeRefused!();
    assert.equal(more.length, 0);
    assert.equal(refused.value, poison);
    await writer.commit!(1);
    assert.deepEqual([...(await readTable(kv, "t")).keys()], ["a"]);
  },
);
