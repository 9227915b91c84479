import assert from "node:assert/strict";
import fc from "fast-check";
import { MemoryStorage } from "../../../src/actors/local/memory_storage.ts";
import type { StorageKey } from "../../../src/actors/storage.ts";
import { storageContract } from "../_storage_contract.ts";

// Skips no case.
storageContract("MemoryStorage", () =>
  Promise.resolve({
    storage: new MemoryStorage(),
    close: () => Promise.resolve(),
  }));

const keyPart = fc.oneof(
  fc.string({ maxLength: 4, unit: fc.constantFrom("a", "b", "\0", "é", "🌊") }),
  fc.constantFrom(-Infinity, -1.5, -0, 0, 1, 2 ** 40, Infinity),
  fc.integer({ min: -5, max: 5 }),
);
const key = fc.array(keyPart, { minLength: 1, maxLength: 3 });

Deno.test({
  name:
    "MemoryStorage.list() orders any keys exactly as Deno KV does, and lists the same prefixes",
  sanitizeOps: true,
  sanitizeResources: true,
  async fn() {
    const kv = await Deno.openKv(":memory:");
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.uniqueArray(key, {
            maxLength: 20,
            selector: (k) =>
              JSON.stringify(k.map(String)) +
              k.map((p) => Object.is(p, -0) ? "-0" : typeof p).join(),
          }),
          key.map((k) => k.slice(0, 1)),
          async (keys, prefix) => {
            const storage = new MemoryStorage();
            const run = crypto.randomUUID();
            for (const k of keys) {
              await storage.put(k, 1);
              await kv.set([run, ...k], 1);
            }
            for (const p of [[], prefix] as StorageKey[]) {
              const fromKv: unknown[] = [];
              for await (const e of kv.list({ prefix: [run, ...p] })) {
                fromKv.push(e.key.slice(1));
              }
              const fromMemory = (await storage.list(p)).map(([k]) => k);
              assert.deepStrictEqual(fromMemory, fromKv);
            }
          },
        ),
        { numRuns: 60 },
      );
    } finally {
      kv.close();
    }
  },
});

Deno.test({
  name:
    "MemoryStorage checks keys against Deno KV's 2048-byte limit less 3 bytes of layout",
  sanitizeOps: true,
  sanitizeResources: true,
  async fn() {
    const storage = new MemoryStorage();
    await storage.put(["x".repeat(2043)], 1); // 2045 bytes encoded
    await assert.rejects(storage.put(["x".repeat(2044)], 1), {
      name: "RangeError",
      message: /'key' must be at most 2045 bytes.*2046 bytes/,
    });
  },
});
