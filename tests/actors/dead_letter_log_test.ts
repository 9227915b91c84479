// The dead-letter log keeps any letter: a record that storage
// cannot encode, or an error message of any length, never makes its
// letter unwritable, which would stop the job the record was set aside
// for.

import assert from "node:assert/strict";
import { DeadLetterLog } from "../../src/actors/dead_letter_log.ts";
import { MemoryStorage } from "../../src/actors/local/memory_storage.ts";
import { KvStorage } from "../../src/actors/kv/kv_storage.ts";
import type { DeadLetter } from "../../src/runtime/dead_letter.ts";
import type { ActorStorage } from "../../src/actors/storage.ts";

function letter(id: string, value: unknown, message = "bad"): DeadLetter {
  return {
    id,
    operator: "Map",
    subtask: 0,
    value,
    timestamp: 1,
    error: { name: "TypeError", message },
    position: "channel 0, record 0",
    reason: "dead-letter",
    at: 0,
  };
}

function getterThrows(): unknown {
  return {
    n: 3,
    get x(): never {
      throw new TypeError("Cannot read x");
    },
  };
}

function unprintable(): unknown {
  const value = Object.create(null);
  Object.defineProperty(value, "x", {
    enumerable: true,
    get() {
      throw new TypeError("Cannot read x");
    },
  });
  return value;
}

async function eachStorage(
  test: (storage: ActorStorage) => Promise<void>,
): Promise<void> {
  await test(new MemoryStorage());
  using kv = await Deno.openKv(":memory:");
  await test(new KvStorage(kv, ["weir", "job", "dead-letters"]));
}

Deno.test("DeadLetterLog.append() keeps a value superjson cannot encode as a description of it, on memory and KV storage", async () => {
  await eachStorage(async (storage) => {
    const log = new DeadLetterLog(storage);
    const fresh = await log.append([
      letter("getter", getterThrows()),
      letter("unprintable", unprintable()),
      letter("function", () => 1),
      letter("symbol", Symbol("x")),
      letter("plain", { n: 1 }),
    ]);
    assert.equal(fresh.length, 5);
    const kept = new Map((await log.list()).map((l) => [l.id, l.value]));
    assert.equal(
      kept.get("getter"),
      "<unencodable: TypeError: Cannot read x> [object Object]",
    );
    assert.equal(
      kept.get("unprintable"),
      "<unencodable: TypeError: Cannot read x> (a object that cannot be printed)",
    );
    assert.match(String(kept.get("function")), /^<unencodable: function> /);
    assert.equal(kept.get("symbol"), "<unencodable: symbol> Symbol(x)");
    assert.deepEqual(kept.get("plain"), { n: 1 });
  });
});

Deno.test("DeadLetterLog.append() cuts an error message over 2,048 characters", async () => {
  await eachStorage(async (storage) => {
    const log = new DeadLetterLog(storage);
    await log.append([letter("long", 1, "x".repeat(100_000))]);
    const [kept] = await log.list();
    assert.equal(
      kept.error.message,
      `${"x".repeat(2_048)}… (cut: 100000 characters)`,
    );
  });
});
