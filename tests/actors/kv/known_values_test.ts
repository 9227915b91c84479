// A KvStorage that is its prefix's only writer (`soleWriter`, an actor's
// storage under its lease; `_known_values.ts`) reads nothing before a
// commit that replaces what it wrote itself, or keys named `absent`, and
// still deletes the parts of the chunked values it replaces; a commit that
// failed makes it read again.

import assert from "node:assert/strict";
import {
  AtomicConflictError,
  KvStorage,
} from "../../../src/actors/kv/kv_storage.ts";

/** `kv`, counting its reads (get, getMany, list). */
function countingReads(kv: Deno.Kv): { kv: Deno.Kv; reads: () => number } {
  let reads = 0;
  const proxy = new Proxy(kv, {
    get(target, name) {
      const value = Reflect.get(target, name, target);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        if (name === "get" || name === "getMany" || name === "list") reads++;
        return value.apply(target, args);
      };
    },
  });
  return { kv: proxy, reads: () => reads };
}

async function keysUnder(kv: Deno.Kv, prefix: Deno.KvKey): Promise<number> {
  return (await Array.fromAsync(kv.list({ prefix }))).length;
}

const BIG = "x".repeat(150_000);

Deno.test("a sole writer reads nothing before replacing what it wrote, and still deletes replaced parts", async () => {
  using db = await Deno.openKv(":memory:");
  const { kv, reads } = countingReads(db);
  const storage = new KvStorage(kv, ["a"], { soleWriter: true });
  await storage.atomic([
    { type: "put", key: ["state"], value: BIG },
    { type: "put", key: ["meta"], value: 1 },
  ]);
  const chunked = await keysUnder(db, ["a"]);
  assert.ok(chunked > 3, `${chunked} keys: the state is in parts`);
  const before = reads();
  await storage.atomic([
    { type: "put", key: ["state"], value: BIG + "y" },
    { type: "put", key: ["meta"], value: 2 },
  ]);
  await storage.atomic([
    { type: "put", key: ["state"], value: "small" },
    { type: "put", key: ["meta"], value: 3 },
  ]);
  assert.equal(reads(), before, "no read before the commits");
  // The parts of both big states are gone: only state and meta are left.
  assert.equal(await keysUnder(db, ["a"]), 2);
  assert.equal(await storage.get(["state"]), "small");
});

Deno.test("keys named absent are not read; others the storage did not write are", async () => {
  using db = await Deno.openKv(":memory:");
  const { kv, reads } = countingReads(db);
  const storage = new KvStorage(kv, ["a"], { soleWriter: true });
  await storage.atomic([{ type: "put", key: ["meta"], value: 0 }]);
  const before = reads();
  await storage.atomic(
    [
      { type: "put", key: ["out", 0, 1], value: "e1" },
      { type: "put", key: ["meta"], value: 1 },
    ],
    { absent: [["out", 0, 1]] },
  );
  assert.equal(reads(), before);
  await storage.atomic([{ type: "put", key: ["other"], value: 1 }]);
  assert.equal(reads(), before + 1, "a key it never wrote is read first");
  // Without soleWriter, every commit reads what it replaces.
  const shared = new KvStorage(kv, ["b"]);
  await shared.atomic([{ type: "put", key: ["meta"], value: 0 }]);
  const then = reads();
  await shared.atomic([{ type: "put", key: ["meta"], value: 1 }]);
  assert.equal(reads(), then + 1);
});

Deno.test("after a commit that failed a check, a sole writer reads again what it replaces", async () => {
  using db = await Deno.openKv(":memory:");
  const { kv, reads } = countingReads(db);
  const storage = new KvStorage(kv, ["a"], { soleWriter: true });
  await storage.atomic([{ type: "put", key: ["state"], value: BIG }]);
  // Someone else replaced it meanwhile (a take-over), and moved the lease.
  await db.set(["lease"], 1);
  const lease = await db.get(["lease"]);
  await db.set(["lease"], 2);
  await assert.rejects(
    storage.atomic([{ type: "put", key: ["state"], value: 1 }], {
      checks: [lease],
    }),
    AtomicConflictError,
  );
  await new KvStorage(db, ["a"]).atomic([
    { type: "put", key: ["state"], value: BIG + "z" },
  ]);
  const before = reads();
  await storage.atomic([{ type: "put", key: ["state"], value: "small" }]);
  assert.ok(reads() > before, "read again after the failure");
  assert.equal(await keysUnder(db, ["a"]), 1, "no part left behind");
});

Deno.test("a sole writer tells apart keys that JSON merges (0 and -0, Infinity and -Infinity), as Deno KV does", async () => {
  for (const [a, b] of [[0, -0], [-0, 0], [Infinity, -Infinity]]) {
    for (const soleWriter of [true, false]) {
      using db = await Deno.openKv(":memory:");
      const storage = new KvStorage(db, ["a"], { soleWriter });
      await storage.atomic([
        { type: "put", key: ["k", a], value: "small" },
        { type: "put", key: ["k", b], value: BIG },
      ]);
      assert.equal(await keysUnder(db, ["a", "v"]), 2, "two keys");
      // Replacing one must leave the other's parts alone.
      await storage.atomic([{ type: "put", key: ["k", a], value: "small2" }]);
      assert.equal(await storage.get(["k", b]), BIG, `${b} (${soleWriter})`);
      await storage.atomic([{ type: "put", key: ["k", b], value: "small3" }]);
      assert.equal(await storage.get(["k", a]), "small2");
      assert.equal(await keysUnder(db, ["a"]), 2, "no part left behind");
    }
  }
});
