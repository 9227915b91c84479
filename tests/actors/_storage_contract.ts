// The one conformance suite of ActorStorage: every backend's
// test file runs it, and lists the cases it skips with the reason.

import assert from "node:assert/strict";
import type {
  ActorStorage,
  StorageKey,
  StorageOp,
} from "../../src/actors/mod.ts";

/** A storage opened for one test, and how to close it. */
export interface OpenedStorage {
  /** The storage under test, empty. */
  storage: ActorStorage;
  /** Releases what `open` acquired (a KV database). */
  close(): Promise<void>;
  /**
   * Counts the backend's physical entries (parts of large values included);
   * defaults to the length of `storage.list([])`.
   */
  countEntries?(): Promise<number>;
}

/** Options of {@linkcode storageContract}. */
export interface StorageContractOptions {
  /** Cases to skip: the case's title, and the reason, shown in its name. */
  skip?: Record<string, string>;
}

/** Values of many shapes, each of which must come back deep-equal. */
export const SHAPES: ReadonlyArray<readonly [string, unknown]> = [
  ["zero", 0],
  ["negative zero", -0],
  ["a fraction", 1.5],
  ["-Infinity", -Infinity],
  ["Infinity", Infinity],
  ["NaN", NaN],
  ["a safe integer", Number.MAX_SAFE_INTEGER],
  ["an empty string", ""],
  ["a non-ASCII string", "héllo ✓ 🌊 \0 end"],
  ["true", true],
  ["null", null],
  ["a bigint", 12345678901234567890n],
  ["a nested array", [1, [2, [3, []]]]],
  ["an object with undefined", { a: { b: undefined, c: [undefined] } }],
  ["a Map of Sets", new Map([["k", new Set([1, 2])], ["e", new Set()]])],
  ["a Set", new Set(["a", "b"])],
  ["a Date", new Date(86_400_000)],
  ["a watermark state", {
    low: -Infinity,
    high: Infinity,
    windows: new Map([[1_000, { count: 2, at: new Date(0) }]]),
    pending: new Set([[1, "x"]]),
  }],
];

/** A superjson-heavy value of about 3 MB: 40,000 Map entries. */
export function bigValue(tag: string): Map<number, string> {
  return new Map(
    Array.from(
      { length: 40_000 },
      (_, i) => [i, `${tag}-${i}-${"y".repeat(60)}`],
    ),
  );
}

async function count(opened: OpenedStorage): Promise<number> {
  return opened.countEntries
    ? await opened.countEntries()
    : (await opened.storage.list([])).length;
}

/**
 * Registers the ActorStorage conformance tests for one backend.
 *
 * @param name The backend's name, the first words of each test name.
 * @param open Opens an empty storage for one test.
 * @param options Cases to skip, with reasons.
 */
export function storageContract(
  name: string,
  open: () => Promise<OpenedStorage>,
  options: StorageContractOptions = {},
): void {
  function test(
    title: string,
    fn: (storage: ActorStorage, opened: OpenedStorage) => Promise<void>,
  ): void {
    const reason = options.skip?.[title];
    Deno.test({
      name: `${name}: ${title}${reason ? ` (skipped: ${reason})` : ""}`,
      ignore: reason !== undefined,
      sanitizeOps: true,
      sanitizeResources: true,
      async fn() {
        const opened = await open();
        try {
          await fn(opened.storage, opened);
        } finally {
          await opened.close();
        }
      },
    });
  }

  test("put then get returns a copy", async (storage) => {
    const value = { list: [1, 2], map: new Map([["a", 1]]) };
    await storage.put(["state"], value);
    value.list.push(3);
    value.map.set("b", 2);
    const read = await storage.get<typeof value>(["state"]);
    assert.deepEqual(read, { list: [1, 2], map: new Map([["a", 1]]) });
    read!.list.push(4);
    assert.deepEqual((await storage.get<typeof value>(["state"]))!.list, [
      1,
      2,
    ]);
  });

  test("values of every superjson shape round-trip unchanged", async (storage) => {
    for (const [i, [shape, value]] of SHAPES.entries()) {
      await storage.put(["shape", i], value);
      assert.deepStrictEqual(await storage.get(["shape", i]), value, shape);
    }
    const all = await storage.getMany(SHAPES.map((_, i) => ["shape", i]));
    assert.deepStrictEqual(all, SHAPES.map(([, value]) => value));
  });

  test("get of a missing key returns undefined", async (storage) => {
    assert.equal(await storage.get(["missing"]), undefined);
    await storage.put(["present"], 0);
    assert.deepEqual(await storage.getMany([["missing"], ["present"]]), [
      undefined,
      0,
    ]);
  });

  test("getMany returns values in the order of the keys, beyond 10 keys", async (storage) => {
    await storage.atomic(
      Array.from({ length: 25 }, (_, i): StorageOp => ({
        type: "put",
        key: ["k", i],
        value: i * 10,
      })),
    );
    const keys = Array.from(
      { length: 26 },
      (_, i): StorageKey => ["k", 25 - i],
    );
    assert.deepEqual(
      await storage.getMany(keys),
      Array.from({ length: 26 }, (_, i) => i === 0 ? undefined : (25 - i) * 10),
    );
  });

  test("delete removes a key and deleting a missing key does nothing", async (storage) => {
    await storage.put(["a"], 1);
    await storage.put(["b"], 2);
    await storage.delete(["a"]);
    await storage.delete(["never", "written"]);
    assert.equal(await storage.get(["a"]), undefined);
    assert.deepEqual(await storage.list([]), [[["b"], 2]]);
  });

  test("list returns the keys under a prefix in Deno KV's key order, with a limit", async (storage) => {
    const keys: StorageKey[] = [
      ["w", 10],
      ["x", 1],
      ["w", "b"],
      ["w", -Infinity],
      ["w\0"],
      ["w", "a", 1],
      ["w"],
      ["w", 2],
      ["v", 1],
      ["w", "a"],
    ];
    for (const [i, key] of keys.entries()) await storage.put(key, i);
    const under = (await storage.list(["w"])).map(([key]) => key);
    assert.deepEqual(under, [
      ["w", "a"],
      ["w", "a", 1],
      ["w", "b"],
      ["w", -Infinity],
      ["w", 2],
      ["w", 10],
    ]);
    assert.deepEqual(await storage.list(["w"], { limit: 2 }), [
      [["w", "a"], 9],
      [["w", "a", 1], 5],
    ]);
    assert.deepEqual((await storage.list([])).map(([key]) => key), [
      ["v", 1],
      ["w"],
      ["w", "a"],
      ["w", "a", 1],
      ["w", "b"],
      ["w", -Infinity],
      ["w", 2],
      ["w", 10],
      ["w\0"],
      ["x", 1],
    ]);
    assert.deepEqual(await storage.list(["none"]), []);
  });

  test(
    "list with keysOnly returns the same keys in the same order, with undefined values, large values included",
    async (storage, opened) => {
      // Over 64 KiB: KvStorage keeps it in parts under other keys.
      const big = { text: "y".repeat(100_000), n: 1 };
      await storage.atomic([
        { type: "put", key: ["w", 10], value: 1 },
        { type: "put", key: ["w", "big"], value: big },
        { type: "put", key: ["w", "a"], value: { a: 1 } },
        { type: "put", key: ["w", -1], value: "x" },
        { type: "put", key: ["x"], value: 2 },
      ]);
      for (
        const [prefix, options] of [
          [["w"], {}],
          [[], {}],
          [["w"], { limit: 2 }],
          [["none"], {}],
        ] as const
      ) {
        const full = await storage.list(prefix, options);
        const keysOnly = await storage.list(prefix, {
          ...options,
          keysOnly: true,
        });
        assert.deepStrictEqual(
          keysOnly,
          full.map(([key]) => [key, undefined]),
          JSON.stringify([prefix, options]),
        );
      }
      // Every backend that counts its entries stores the large value in parts.
      if (opened.countEntries) {
        assert.ok(
          await opened.countEntries() > (await storage.list([])).length,
        );
      }
      assert.deepStrictEqual(await storage.list(["w"], { keysOnly: true }), [
        [["w", "a"], undefined],
        [["w", "big"], undefined],
        [["w", -1], undefined],
        [["w", 10], undefined],
      ]);
      // keysOnly: false is a plain list.
      assert.deepStrictEqual(
        await storage.list(["w", "big"], { keysOnly: false }),
        [],
      );
      assert.deepStrictEqual(
        (await storage.list(["w"], { keysOnly: false }))[1],
        [["w", "big"], big],
      );
    },
  );

  test("atomic applies every operation, the last one per key winning", async (storage) => {
    await storage.put(["gone"], "old");
    await storage.atomic([
      { type: "put", key: ["a"], value: 1 },
      { type: "put", key: ["b"], value: 2 },
      { type: "delete", key: ["gone"] },
      { type: "put", key: ["a"], value: 3 },
      { type: "delete", key: ["b"] },
    ]);
    assert.deepEqual(await storage.list([]), [[["a"], 3]]);
  });

  test("atomic writes nothing when one operation is invalid", async (storage) => {
    await storage.put(["kept"], "before");
    const bad: unknown[][] = [
      [{ type: "put", key: ["b", true], value: 1 }],
      [{ type: "put", key: ["b"], value: () => 1 }],
      [{ type: "merge", key: ["b"], value: 1 }],
    ];
    const messages = [
      /'ops\[2\]\.key'/,
      /'ops\[2\]\.value'/,
      /'ops\[2\]\.type'/,
    ];
    for (const [i, tail] of bad.entries()) {
      await assert.rejects(
        storage.atomic([
          { type: "put", key: ["kept"], value: "after" },
          { type: "put", key: ["new"], value: 1 },
          ...tail,
        ] as StorageOp[]),
        { name: "TypeError", message: messages[i] },
      );
    }
    assert.deepEqual(await storage.list([]), [[["kept"], "before"]]);
  });

  test(
    "a 3 MB value round-trips in parts and deleting it leaves nothing behind",
    async (storage, opened) => {
      const before = await count(opened);
      const big = bigValue("first");
      await storage.put(["snapshot"], big);
      assert.deepEqual(await storage.get(["snapshot"]), big);
      // Replaced by another large value: the old parts go.
      const next = bigValue("second");
      await storage.put(["snapshot"], next);
      assert.deepEqual(await storage.get(["snapshot"]), next);
      assert.deepEqual((await storage.list([])).map(([key]) => key), [[
        "snapshot",
      ]]);
      await storage.delete(["snapshot"]);
      assert.equal(await storage.get(["snapshot"]), undefined);
      assert.deepEqual(await storage.list([]), []);
      assert.equal(await count(opened), before);
    },
  );

  test(
    "an atomic batch with a 3 MB value and small values applies all of it",
    async (storage, opened) => {
      const before = await count(opened);
      await storage.put(["offset"], 1);
      const big = bigValue("batch");
      await storage.atomic([
        { type: "put", key: ["offset"], value: 2 },
        { type: "put", key: ["state"], value: big },
        { type: "put", key: ["window", 5], value: new Set([5]) },
      ]);
      assert.deepEqual(
        await storage.getMany([["offset"], ["state"], ["window", 5]]),
        [
          2,
          big,
          new Set([5]),
        ],
      );
      await storage.atomic([
        { type: "delete", key: ["offset"] },
        { type: "delete", key: ["state"] },
        { type: "delete", key: ["window", 5] },
      ]);
      assert.equal(await count(opened), before);
    },
  );

  test("an atomic batch over 1000 mutations is a RangeError naming the limit", async (storage) => {
    const ops = Array.from({ length: 1001 }, (_, i): StorageOp => ({
      type: "put",
      key: ["k", i],
      value: i,
    }));
    await assert.rejects(storage.atomic(ops), {
      name: "RangeError",
      message: /'ops'.*1000 mutations: current value is 1001/,
    });
    assert.deepEqual(await storage.list([]), []);
    await storage.atomic(ops.slice(0, 1000));
    assert.equal((await storage.list([])).length, 1000);
  });

  test("an atomic batch over 80 KiB of written keys is a RangeError naming the limit", async (storage) => {
    const ops = Array.from({ length: 60 }, (_, i): StorageOp => ({
      type: "put",
      key: ["k".repeat(1500), i],
      value: i,
    }));
    await assert.rejects(storage.atomic(ops), {
      name: "RangeError",
      message:
        /'ops'.*81920 bytes \(80 KiB\) of written keys: current value is \d+/,
    });
    assert.deepEqual(await storage.list([]), []);
  });

  test("bad keys are rejected with errors naming 'key'", async (storage) => {
    const cases: Array<[() => Promise<unknown>, string, RegExp]> = [
      [() => storage.get("a" as unknown as StorageKey), "TypeError", /'key'/],
      [() => storage.get([]), "RangeError", /'key'.*non-empty/],
      [
        () => storage.get([true] as unknown as StorageKey),
        "TypeError",
        /'key'/,
      ],
      [() => storage.put([NaN], 1), "RangeError", /'key'.*NaN/],
      [() => storage.put(["x".repeat(3000)], 1), "RangeError", /'key'.*bytes/],
      [() => storage.delete({} as unknown as StorageKey), "TypeError", /'key'/],
      [
        () => storage.getMany([["a"], 5 as unknown as StorageKey]),
        "TypeError",
        /'key'/,
      ],
      [
        () => storage.list("a" as unknown as StorageKey),
        "TypeError",
        /'prefix'/,
      ],
      [() => storage.list([], { limit: 0 }), "RangeError", /'options.limit'/],
    ];
    for (const [call, name, message] of cases) {
      await assert.rejects(call(), { name, message });
    }
    assert.deepEqual(await storage.list([]), []);
  });

  test("undefined and functions are rejected with errors naming 'value'", async (storage) => {
    await assert.rejects(storage.put(["a"], undefined), {
      name: "TypeError",
      message: /'value'.*delete\(\)/,
    });
    await assert.rejects(storage.put(["a"], () => 1), {
      name: "TypeError",
      message: /'value'.*superjson/,
    });
    assert.equal(await storage.get(["a"]), undefined);
  });
}
