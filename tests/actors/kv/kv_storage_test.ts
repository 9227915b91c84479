import { interceptCommits } from "../../_support/intercept_commits.ts";
import assert from "node:assert/strict";
import {
  AtomicConflictError,
  KvStorage,
} from "../../../src/actors/kv/kv_storage.ts";
import { bigValue, storageContract } from "../_storage_contract.ts";

const PREFIX = ["weir", "job", "actor", "job/window/0"];

async function countUnder(kv: Deno.Kv, prefix: Deno.KvKey): Promise<number> {
  let n = 0;
  for await (const _ of kv.list({ prefix })) n++;
  return n;
}

// Skips no case.
storageContract("KvStorage", async () => {
  const kv = await Deno.openKv(":memory:");
  // A neighbour actor: the storage must neither see nor touch it.
  await kv.set(["weir", "job", "actor", "job/window/1", "v", "x"], 1);
  return {
    storage: new KvStorage(kv, PREFIX),
    countEntries: () => countUnder(kv, PREFIX),
    close() {
      kv.close();
      return Promise.resolve();
    },
  };
});

function kvTest(
  name: string,
  fn: (kv: Deno.Kv) => Promise<void>,
): void {
  Deno.test({
    name,
    sanitizeOps: true,
    sanitizeResources: true,
    async fn() {
      const kv = await Deno.openKv(":memory:");
      try {
        await fn(kv);
      } finally {
        kv.close();
      }
    },
  });
}

kvTest("KvStorage keeps the keys of two actors apart", async (kv) => {
  const a = new KvStorage(kv, ["weir", "job", "actor", "a"]);
  const b = new KvStorage(kv, ["weir", "job", "actor", "b"]);
  await a.put(["state"], "of a");
  await b.put(["state"], "of b");
  await a.delete(["state"]);
  assert.equal(await a.get(["state"]), undefined);
  assert.deepEqual(await b.list([]), [[["state"], "of b"]]);
});

kvTest(
  "KvStorage writes a batch larger than one commit in parts that stay invisible until one switch commit",
  async (kv) => {
    const reader = new KvStorage(kv, PREFIX);
    const seen: unknown[] = [];
    const writer = new KvStorage(
      interceptCommits(kv, async () => {
        seen.push(await reader.getMany([["offset"], ["state"]]));
      }),
      PREFIX,
    );
    await writer.put(["offset"], 1);
    const big = bigValue("switch");
    await writer.atomic([
      { type: "put", key: ["offset"], value: 2 },
      { type: "put", key: ["state"], value: big },
    ]);
    // One commit for the first put, several for the parts, one switch.
    assert.ok(seen.length > 3, `commits: ${seen.length}`);
    for (const before of seen.slice(1)) {
      assert.deepEqual(before, [1, undefined]);
    }
    assert.deepEqual(await reader.getMany([["offset"], ["state"]]), [2, big]);
  },
);

kvTest(
  "KvStorage sweeps the parts of a write that crashed before its switch",
  async (kv) => {
    const crashing = new KvStorage(
      interceptCommits(kv, (n) => {
        if (n === 4) throw new Error("simulated crash");
      }),
      PREFIX,
    );
    await crashing.put(["offset"], 1);
    await assert.rejects(crashing.put(["state"], bigValue("lost")), {
      message: "simulated crash",
    });
    assert.ok(await countUnder(kv, PREFIX) > 2, "staged parts were written");

    const restarted = new KvStorage(kv, PREFIX);
    assert.deepEqual(await restarted.list([]), [[["offset"], 1]]);
    await restarted.put(["offset"], 2); // the first write sweeps
    assert.equal(await countUnder(kv, PREFIX), 1);
    assert.equal(await restarted.sweep(), 0);
  },
);

kvTest(
  "KvStorage fences a writer whose staged parts another instance swept",
  async (kv) => {
    const sweeper = new KvStorage(kv, PREFIX);
    const writer = new KvStorage(
      interceptCommits(kv, async (n) => {
        if (n === 3) assert.equal(await sweeper.sweep(), 1);
      }),
      PREFIX,
    );
    await writer.put(["offset"], 1);
    const error = await writer.put(["state"], bigValue("fenced")).then(
      () => null,
      (e) => e,
    );
    assert.ok(error instanceof AtomicConflictError, String(error));
    assert.equal(error.code, "ATOMIC_CONFLICT");
    assert.deepEqual(await sweeper.list([]), [[["offset"], 1]]);
    assert.equal(await countUnder(kv, PREFIX), 1);
  },
);

kvTest(
  "KvStorage.atomic() throws AtomicConflictError and writes nothing when a caller's check fails",
  async (kv) => {
    const storage = new KvStorage(kv, PREFIX);
    const lease = [...PREFIX, "lease"];
    await kv.set(lease, { epoch: 1 });
    const held = await kv.get(lease);
    await storage.atomic([{ type: "put", key: ["a"], value: 1 }], {
      checks: [held],
    });
    await kv.set(lease, { epoch: 2 }); // another instance took over
    await assert.rejects(
      storage.atomic([{ type: "put", key: ["a"], value: 2 }], {
        checks: [held],
      }),
      { name: "AtomicConflictError", message: /check failed/ },
    );
    assert.equal(await storage.get(["a"]), 1);
    // A staged batch refused at its switch discards its parts at once.
    const entries = await countUnder(kv, PREFIX);
    await assert.rejects(
      storage.atomic([{
        type: "put",
        key: ["big"],
        value: bigValue("refused"),
      }], {
        checks: [held],
      }),
      { name: "AtomicConflictError" },
    );
    assert.equal(await countUnder(kv, PREFIX), entries);
    const eleven = Array.from({ length: 11 }, () => held);
    await assert.rejects(
      storage.atomic([{ type: "put", key: ["a"], value: 3 }], {
        checks: eleven,
      }),
      { name: "RangeError", message: /10 checks.*11/ },
    );
  },
);

kvTest(
  "KvStorage reports a chunked value whose parts are missing instead of returning part of it",
  async (kv) => {
    const storage = new KvStorage(kv, PREFIX);
    await storage.put(["state"], bigValue("damaged"));
    for await (
      const entry of kv.list({ prefix: [...PREFIX, "p"] }, { limit: 1 })
    ) {
      await kv.delete(entry.key);
    }
    await assert.rejects(storage.get(["state"]), {
      message: /parts of its value are missing/,
    });
  },
);

kvTest(
  "KvStorage counts its prefix in the key limit and checks its arguments",
  async (kv) => {
    const storage = new KvStorage(kv, PREFIX);
    // 2022 bytes fit MemoryStorage's budget, not this prefix's.
    await assert.rejects(storage.put(["x".repeat(2020)], 1), {
      name: "RangeError",
      message: /'key' must be at most \d+ bytes.*less \d+ bytes of prefix/,
    });
    assert.throws(() => new KvStorage(kv, ["x".repeat(2000)]), {
      name: "RangeError",
      message: /'prefix'/,
    });
    assert.throws(() => new KvStorage(kv, "weir" as unknown as string[]), {
      name: "TypeError",
      message: /'prefix'/,
    });
    assert.throws(() => new KvStorage({} as Deno.Kv, PREFIX), {
      name: "TypeError",
      message: /'kv'/,
    });
    assert.deepEqual(storage.prefix, PREFIX);
  },
);

kvTest(
  "KvStorage checks its options and those of a commit, naming the option and the value",
  async (kv) => {
    const bad = (options: unknown) => options as { soleWriter?: boolean };
    for (
      const [options, message] of [
        [null, /'options' must be an object: current value is null/],
        [3, /'options' must be an object: current value is 3/],
        [
          { soleWriter: "yes" },
          /'options.soleWriter' must be a boolean: current value is "yes"/,
        ],
        [{ soleWriter: 1 }, /'options.soleWriter' .*current value is 1/],
      ] as const
    ) {
      assert.throws(() => new KvStorage(kv, PREFIX, bad(options)), {
        name: "TypeError",
        message,
      });
    }
    const storage = new KvStorage(kv, PREFIX, { soleWriter: true });
    const put = [{ type: "put", key: ["k"], value: 1 }] as const;
    const atomicBad = (options: unknown) =>
      storage.atomic(put, options as { absent?: [] });
    for (
      const [options, message] of [
        [null, /Cannot commit to KvStorage as 'options' must be an object/],
        ["x", /'options' must be an object: current value is "x"/],
        [
          { absent: ["out", 0, 1] },
          /'options.absent\[0\]' must be an array.*current value is "out"/,
        ],
        [{ absent: "out" }, /'options.absent' must be an array of keys/],
        [
          { absent: [["out", 1], ["out", NaN]] },
          /'options.absent\[1\]' must be free of NaN parts/,
        ],
      ] as const
    ) {
      await assert.rejects(atomicBad(options), { message });
    }
    assert.equal(await storage.get(["k"]), undefined, "nothing committed");
    // Unset options are no options.
    await new KvStorage(kv, PREFIX, undefined).atomic(put, undefined);
    assert.equal(await storage.get(["k"]), 1);
  },
);

kvTest(
  "KvStorage overwrites and deletes values it did not write (set by hand), in put, delete and atomic batches",
  async (kv) => {
    const storage = new KvStorage(kv, PREFIX);
    const foreign: Array<[string, unknown]> = [
      ["text", "garbage"],
      ["object", { id: 3 }],
      ["unknown tag", new Uint8Array([9, 1, 2])],
      ["manifest tag, not JSON", new Uint8Array([2, 123, 0])],
      ["manifest tag, not a manifest", new Uint8Array([2, 91, 93])],
    ];
    for (const [name, value] of foreign) {
      await kv.set([...PREFIX, "v", name], value);
      await assert.rejects(storage.get([name]), { name: /Error/ });
    }
    await storage.put(["text"], "replaced");
    await storage.delete(["object"]);
    // A chunked value of ours in the same batch: staged in several commits,
    // switched in one.
    await storage.atomic([
      { type: "put", key: ["unknown tag"], value: bigValue("big") },
      { type: "delete", key: ["manifest tag, not JSON"] },
      { type: "put", key: ["manifest tag, not a manifest"], value: 7 },
    ]);
    assert.equal(await storage.get(["text"]), "replaced");
    assert.equal(await storage.get(["object"]), undefined);
    assert.deepEqual(await storage.get(["unknown tag"]), bigValue("big"));
    assert.equal(await storage.get(["manifest tag, not JSON"]), undefined);
    assert.equal(await storage.get(["manifest tag, not a manifest"]), 7);
    // Its own chunked value is still cleaned up when replaced and deleted.
    await storage.put(["unknown tag"], 1);
    await storage.delete(["unknown tag"]);
    await storage.delete(["text"]);
    await storage.delete(["manifest tag, not a manifest"]);
    assert.equal(await countUnder(kv, PREFIX), 0);
  },
);

kvTest(
  "KvStorage reads values stored in the layout existing databases hold: tag 1 and superjson, or tag 2, a manifest and its parts",
  async (kv) => {
    const encoder = new TextEncoder();
    const tagged = (tag: number, text: string) =>
      new Uint8Array([tag, ...encoder.encode(text)]);
    const text = JSON.stringify({ json: { big: "x".repeat(70_000) } });
    const bytes = encoder.encode(text);
    await kv.set([...PREFIX, "v", "small"], tagged(1, '{"json":41}'));
    await kv.set(
      [...PREFIX, "v", "big"],
      tagged(2, `{"v":"abcdefghijklmnopqrstuv","n":2,"b":${bytes.length}}`),
    );
    const version = "abcdefghijklmnopqrstuv";
    await kv.set([...PREFIX, "p", version, 0], bytes.subarray(0, 61_440));
    await kv.set([...PREFIX, "p", version, 1], bytes.subarray(61_440));
    const storage = new KvStorage(kv, PREFIX);
    assert.equal(await storage.get(["small"]), 41);
    assert.deepEqual(await storage.get(["big"]), { big: "x".repeat(70_000) });
    // A delete takes the parts with it.
    await storage.delete(["big"]);
    assert.equal(await countUnder(kv, [...PREFIX, "p"]), 0);
  },
);
