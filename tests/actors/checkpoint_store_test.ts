// CheckpointStore over both storage backends: every case runs against
// MemoryStorage and against KvStorage on an in-memory Deno KV.

import assert from "node:assert/strict";
import {
  type ActorStorage,
  CheckpointStore,
  type CheckpointStoreOptions,
  type CompletedCheckpoint,
  KvStorage,
  type ListOptions,
  MemoryStorage,
  type StorageKey,
  type StorageOp,
  UnreadableCheckpointsError,
} from "../../src/actors/mod.ts";
import { Encoded, encodeStructured } from "../../src/actors/_codec.ts";
import { encodedCheckpoint } from "../../src/actors/_encoded_checkpoint.ts";
import { partsPlaceholder } from "../../src/actors/_snapshot_parts.ts";
import {
  CheckpointMismatchError,
  type JobFingerprint,
  STATE_FORMAT_VERSION,
} from "../../src/runtime/fingerprint.ts";

const PREFIX = ["weir", "clicks", "checkpoints"];

/** A storage opened for one test, and how to close it. */
interface Opened {
  storage: ActorStorage;
  /** The raw entries under the storage (KV: value parts and markers too). */
  rawKeys(): Promise<unknown[][]>;
  /** Writes a value as a hand would, bypassing the storage (KV: `kv.set`). */
  setRaw(key: StorageKey, value: unknown): Promise<void>;
  close(): void;
}

const BACKENDS: ReadonlyArray<readonly [string, () => Promise<Opened>]> = [
  ["MemoryStorage", () => {
    const storage = new MemoryStorage();
    return Promise.resolve({
      storage,
      // As KvStorage lays them out: values under "v", nothing else.
      rawKeys: async () =>
        (await storage.list([])).map(([key]) => ["v", ...key]),
      setRaw: (key, value) => storage.put(key, value),
      close() {},
    });
  }],
  ["KvStorage", async () => {
    const kv = await Deno.openKv(":memory:");
    return {
      storage: new KvStorage(kv, PREFIX),
      async rawKeys() {
        const keys: unknown[][] = [];
        for await (const entry of kv.list({ prefix: PREFIX })) {
          keys.push(entry.key.slice(PREFIX.length));
        }
        return keys;
      },
      async setRaw(key, value) {
        await kv.set([...PREFIX, "v", ...key], value);
      },
      close: () => kv.close(),
    };
  }],
];

const CLICKS: JobFingerprint = {
  jobName: "clicks",
  operatorIds: ["src-1", "window-3"],
  maxParallelism: 128,
  stateFormatVersion: STATE_FORMAT_VERSION,
};

/** A window operator's state: event-time bounds and a Map of windows. */
function snapshot(tag: number) {
  return {
    watermark: -Infinity,
    idleUntil: Infinity,
    windows: new Map([[tag * 1_000, { count: tag, keys: new Set(["a"]) }]]),
  };
}

/** About 1 MB of superjson: 12,000 Map entries. */
function megabyte(tag: string): Map<number, string> {
  return new Map(
    Array.from(
      { length: 12_000 },
      (_, i) => [i, `${tag}-${i}-${"x".repeat(70)}`],
    ),
  );
}

function checkpoint(
  id: number,
  fingerprint: JobFingerprint = CLICKS,
  subtasks: Record<string, unknown> = {
    "clicks/src-1/0": { offset: id * 10 },
    "clicks/window-3/0": snapshot(id),
    "clicks/window-3/1": snapshot(id + 100),
  },
): CompletedCheckpoint {
  return { id, fingerprint, createdAt: 1_700_000_000_000 + id, subtasks };
}

/** Whether a key (relative to the storage) belongs to checkpoint `id`. */
function isOf(id: number, key: readonly unknown[]): boolean {
  return (key[0] === "cp" && key[1] === id) ||
    (key[0] === "index" && key[1] === id);
}

async function keysOf(storage: ActorStorage): Promise<StorageKey[]> {
  return (await storage.list([])).map(([key]) => key);
}

/** Collects log lines. */
function recorder(): { lines: string[]; log(line: string): void } {
  const lines: string[] = [];
  return { lines, log: (line) => lines.push(line) };
}

/**
 * An ActorStorage that forwards to another and throws `fail(op, arg)`'s
 * error when it returns one: a crash or an outage at a chosen call.
 */
class FaultyStorage implements ActorStorage {
  readonly #inner: ActorStorage;
  fail: (op: string, arg: unknown) => Error | undefined = () => undefined;

  constructor(inner: ActorStorage) {
    this.#inner = inner;
  }

  #check(op: string, arg: unknown): Promise<void> {
    const error = this.fail(op, arg);
    return error ? Promise.reject(error) : Promise.resolve();
  }

  async get<V = unknown>(key: StorageKey): Promise<V | undefined> {
    await this.#check("get", key);
    return this.#inner.get<V>(key);
  }

  async getMany<V = unknown>(
    keys: readonly StorageKey[],
  ): Promise<Array<V | undefined>> {
    await this.#check("getMany", keys);
    return this.#inner.getMany<V>(keys);
  }

  async put(key: StorageKey, value: unknown): Promise<void> {
    await this.#check("put", key);
    return this.#inner.put(key, value);
  }

  async delete(key: StorageKey): Promise<void> {
    await this.#check("delete", key);
    return this.#inner.delete(key);
  }

  async list<V = unknown>(
    prefix: StorageKey,
    options?: ListOptions,
  ): Promise<Array<[StorageKey, V]>> {
    await this.#check("list", prefix);
    return this.#inner.list<V>(prefix, options);
  }

  async atomic(ops: readonly StorageOp[]): Promise<void> {
    await this.#check("atomic", ops);
    return this.#inner.atomic(ops);
  }
}

/** Whether an atomic batch writes the "latest" pointer (the manifest commit). */
function commitsManifest(op: string, arg: unknown): boolean {
  return op === "atomic" &&
    (arg as StorageOp[]).some((o) => o.key[0] === "latest");
}

/** Registers one test per backend, each with a fresh storage, closed afterwards. */
function test(name: string, fn: (opened: Opened) => Promise<void>): void {
  for (const [backend, open] of BACKENDS) {
    Deno.test(`CheckpointStore over ${backend}: ${name}`, async () => {
      const opened = await open();
      try {
        await fn(opened);
      } finally {
        opened.close();
      }
    });
  }
}

/** A store over `storage` whose log lines are recorded. */
function storeOver(
  storage: ActorStorage,
  options: CheckpointStoreOptions = {},
): { store: CheckpointStore; lines: string[] } {
  const { lines, log } = recorder();
  return { store: new CheckpointStore(storage, { log, ...options }), lines };
}

test("latest() and list() find nothing in an empty storage", async ({ storage }) => {
  const { store, lines } = storeOver(storage);
  assert.equal(await store.latest(CLICKS), null);
  assert.deepEqual(await store.list(), []);
  assert.deepEqual(lines, []);
});

test("save() then latest() round-trips every snapshot with -Infinity, Infinity and Maps", async ({ storage }) => {
  const { store, lines } = storeOver(storage);
  const saved = checkpoint(1);
  await store.save(saved);
  const restored = await store.latest(CLICKS);
  assert.deepEqual(restored, saved);
  const window = restored!.subtasks["clicks/window-3/0"] as ReturnType<
    typeof snapshot
  >;
  assert.equal(window.watermark, -Infinity);
  assert.equal(window.idleUntil, Infinity);
  assert.ok(window.windows instanceof Map);
  assert.deepEqual(lines, []);
});

test("save() writes each snapshot under its own key, the manifest and the latest pointer", async ({ storage }) => {
  const { store } = storeOver(storage);
  await store.save(checkpoint(4));
  assert.equal(await storage.get(["latest"]), 4);
  const manifest = await storage.get<Record<string, unknown>>([
    "cp",
    4,
    "m",
  ]);
  assert.deepEqual(manifest, {
    id: 4,
    fingerprint: CLICKS,
    createdAt: 1_700_000_000_004,
    subtaskIds: ["clicks/src-1/0", "clicks/window-3/0", "clicks/window-3/1"],
  });
  assert.deepEqual(await storage.get(["cp", 4, "s", "clicks/src-1/0"]), {
    offset: 40,
  });
});

test("latest() returns the newest of several complete checkpoints", async ({ storage }) => {
  const { store } = storeOver(storage);
  for (const id of [1, 2, 5]) await store.save(checkpoint(id));
  assert.equal((await store.latest(CLICKS))?.id, 5);
  assert.deepEqual(await store.list(), [
    { id: 1, createdAt: 1_700_000_000_001 },
    { id: 2, createdAt: 1_700_000_000_002 },
    { id: 5, createdAt: 1_700_000_000_005 },
  ]);
});

test("save() and latest() round-trip a 5 MB checkpoint of five 1 MB snapshots", async ({ storage }) => {
  const { store } = storeOver(storage);
  const subtasks: Record<string, unknown> = {};
  for (let i = 0; i < 5; i++) {
    subtasks[`clicks/window-3/${i}`] = megabyte(`s${i}`);
  }
  const saved = checkpoint(1, CLICKS, subtasks);
  await store.save(saved);
  const restored = await store.latest(CLICKS);
  assert.equal(restored?.id, 1);
  assert.deepEqual(restored?.subtasks, subtasks);
});

test("save() keeps the last `retain` complete checkpoints and deletes every key of the older ones", async ({ storage }) => {
  const { store } = storeOver(storage, { retain: 2 });
  for (let id = 1; id <= 5; id++) await store.save(checkpoint(id));
  assert.deepEqual((await store.list()).map((info) => info.id), [4, 5]);
  const keys = await keysOf(storage);
  for (const id of [1, 2, 3]) {
    assert.deepEqual(
      keys.filter((key) => isOf(id, key)),
      [],
      `checkpoint ${id}`,
    );
  }
  assert.ok(keys.some((key) => isOf(4, key)));
  assert.equal((await store.latest(CLICKS))?.id, 5);
});

test("save() keeps 3 complete checkpoints by default", async ({ storage }) => {
  const { store } = storeOver(storage);
  for (let id = 1; id <= 6; id++) await store.save(checkpoint(id));
  assert.deepEqual((await store.list()).map((info) => info.id), [4, 5, 6]);
});

test("retention leaves no value parts behind after large checkpoints", async ({ storage, rawKeys }) => {
  const { store } = storeOver(storage, { retain: 1 });
  for (let id = 1; id <= 3; id++) {
    await store.save(
      checkpoint(id, CLICKS, { "clicks/window-3/0": megabyte(`c${id}`) }),
    );
  }
  await store.save(checkpoint(4));
  const raw = await rawKeys();
  // Only checkpoint 4 remains: its small values, nothing chunked.
  assert.deepEqual(raw.filter((key) => key[0] !== "v"), []);
  assert.deepEqual(
    (await keysOf(storage)).filter((key) => key[0] === "cp")
      .map((key) => key[1]),
    [4, 4, 4, 4],
  );
});

test("a save that crashes before its manifest is ignored, then deleted by the next save", async ({ storage }) => {
  const faulty = new FaultyStorage(storage);
  const { store, lines } = storeOver(faulty);
  await store.save(checkpoint(1));
  faulty.fail = (op, arg) =>
    commitsManifest(op, arg)
      ? new Error("crash before the manifest")
      : undefined;
  await assert.rejects(
    store.save(checkpoint(2)),
    /crash before the manifest/,
  );
  faulty.fail = () => undefined;
  assert.ok((await keysOf(storage)).some((key) => isOf(2, key)));

  const { store: restarted } = storeOver(storage);
  assert.equal((await restarted.latest(CLICKS))?.id, 1);
  assert.deepEqual((await restarted.list()).map((info) => info.id), [1]);
  await assert.rejects(restarted.load(2, CLICKS), {
    name: "RangeError",
    message:
      /'id' .*current value is 2, but it has no manifest.*the complete ones are 1$/,
  });
  await restarted.save(checkpoint(3));
  assert.deepEqual((await keysOf(storage)).filter((key) => isOf(2, key)), []);
  assert.deepEqual((await restarted.list()).map((info) => info.id), [1, 3]);
  assert.deepEqual(lines, []);
});

test("save() may retry the id of a crashed save, and leaves none of the crashed parts", async ({ storage }) => {
  const faulty = new FaultyStorage(storage);
  const { store } = storeOver(faulty);
  faulty.fail = (op, arg) =>
    commitsManifest(op, arg) ? new Error("crash") : undefined;
  await assert.rejects(
    store.save(
      checkpoint(1, CLICKS, { "clicks/gone/0": 1, "clicks/kept/0": 2 }),
    ),
  );
  faulty.fail = () => undefined;
  const retried = checkpoint(1, CLICKS, { "clicks/kept/0": 3 });
  await store.save(retried);
  assert.deepEqual(await store.latest(CLICKS), retried);
  assert.equal(await storage.get(["cp", 1, "s", "clicks/gone/0"]), undefined);
});

test("a partial checkpoint written by hand (snapshots, no manifest) is ignored, then deleted by a later save", async ({ storage }) => {
  await storage.put(["cp", 1, "s", "clicks/src-1/0"], { offset: 99 });
  await storage.put(["cp", 1, "s", "clicks/window-3/0"], megabyte("orphan"));
  const { store, lines } = storeOver(storage);
  assert.equal(await store.latest(CLICKS), null);
  assert.deepEqual(await store.list(), []);
  await assert.rejects(store.load(1, CLICKS), {
    name: "RangeError",
    message: /'id'/,
  });

  await store.save(checkpoint(2));
  assert.deepEqual((await keysOf(storage)).filter((key) => isOf(1, key)), []);
  assert.equal((await store.latest(CLICKS))?.id, 2);
  assert.deepEqual(lines, []);
});

test("latest() skips a checkpoint with a missing snapshot, with exactly one log line naming it, and returns the previous one", async ({ storage }) => {
  const { store, lines } = storeOver(storage);
  await store.save(checkpoint(1));
  await store.save(checkpoint(2));
  await storage.delete(["cp", 2, "s", "clicks/window-3/1"]);
  const restored = await store.latest(CLICKS);
  assert.equal(restored?.id, 1);
  assert.deepEqual(restored, checkpoint(1));
  assert.equal(lines.length, 1);
  assert.match(lines[0], /checkpoint 2 of job 'clicks'/);
  assert.match(lines[0], /'clicks\/window-3\/1' is missing/);
});

test("latest() skips a checkpoint with a malformed manifest, with one log line", async ({ storage }) => {
  const { store, lines } = storeOver(storage);
  await store.save(checkpoint(1));
  await store.save(checkpoint(2));
  await storage.put(["cp", 2, "m"], { id: 2, note: "not a manifest" });
  assert.equal((await store.latest(CLICKS))?.id, 1);
  assert.equal(lines.length, 1);
  assert.match(lines[0], /checkpoint 2 .*manifest is malformed/);
});

test("latest() skips a checkpoint whose latest pointer has no manifest, with one log line", async ({ storage }) => {
  const { store, lines } = storeOver(storage);
  await store.save(checkpoint(1));
  await store.save(checkpoint(2));
  await storage.delete(["cp", 2, "m"]);
  assert.equal((await store.latest(CLICKS))?.id, 1);
  assert.equal(lines.length, 1);
  assert.match(lines[0], /checkpoint 2 .*no manifest/);
});

test("latest() skips a snapshot that cannot be read, naming the subtask", async ({ storage }) => {
  const faulty = new FaultyStorage(storage);
  const { store, lines } = storeOver(faulty);
  await store.save(checkpoint(1));
  await store.save(checkpoint(2));
  const broken = (key: unknown) =>
    Array.isArray(key) && key[1] === 2 && key[3] === "clicks/window-3/0";
  faulty.fail = (op, arg) =>
    (op === "get" && broken(arg)) ||
      (op === "getMany" && (arg as unknown[]).some(broken))
      ? new Error("parts of its value are missing")
      : undefined;
  assert.equal((await store.latest(CLICKS))?.id, 1);
  assert.equal(lines.length, 1);
  assert.match(
    lines[0],
    /checkpoint 2 .*'clicks\/window-3\/0' cannot be read \(Error: parts of its value are missing\)/,
  );
});

test("latest() throws UnreadableCheckpointsError naming each checkpoint and how to start over when no complete one is whole", async ({ storage, setRaw }) => {
  const { store, lines } = storeOver(storage);
  await store.save(checkpoint(1));
  await store.save(checkpoint(2));
  await storage.delete(["cp", 1, "s", "clicks/src-1/0"]);
  await setRaw(["cp", 2, "m"], "garbage");
  await assert.rejects(store.latest(CLICKS), (error: unknown) => {
    assert.ok(error instanceof UnreadableCheckpointsError);
    assert.equal(error.code, "CHECKPOINTS_UNREADABLE");
    assert.equal(error.jobName, "clicks");
    assert.deepEqual(error.checkpoints.map((c) => c.id), [2, 1]);
    assert.match(
      error.message,
      /^Cannot restore the latest checkpoint of job 'clicks' as one of its complete checkpoints must be whole: current value is checkpoint 2 \(its manifest .*\), checkpoint 1 \(the snapshot of subtask 'clicks\/src-1\/0' is missing\); to start over .*--restore none \(execute\(\{ restore: "none" \}\) in the API\)$/,
    );
    return true;
  });
  // The error says it all: no log lines besides.
  assert.deepEqual(lines, []);
});

test("latest() returns null without a line when the store holds only saves that crashed before their manifest", async ({ storage }) => {
  const faulty = new FaultyStorage(storage);
  const { store, lines } = storeOver(faulty);
  faulty.fail = (op, arg) =>
    commitsManifest(op, arg) ? new Error("crash") : undefined;
  await assert.rejects(store.save(checkpoint(1)), /crash/);
  await assert.rejects(store.save(checkpoint(2)), /crash/);
  faulty.fail = () => undefined;
  assert.equal(await store.latest(CLICKS), null);
  assert.deepEqual(lines, []);
});

test("highestId() is 0 for an empty store, then the highest id saved, also once retention deleted the older ones", async ({ storage }) => {
  const { store } = storeOver(storage, { retain: 1 });
  assert.equal(await store.highestId(), 0);
  for (const id of [1, 2, 7]) await store.save(checkpoint(id));
  assert.deepEqual((await store.list()).map((info) => info.id), [7]);
  assert.equal(await store.highestId(), 7);
  assert.equal(await storeOver(storage).store.highestId(), 7);
});

test("highestId() counts a save that crashed before its manifest and a checkpoint whose manifest is garbage", async ({ storage, setRaw }) => {
  const faulty = new FaultyStorage(storage);
  const { store } = storeOver(faulty);
  await store.save(checkpoint(1));
  await store.save(checkpoint(2));
  await setRaw(["cp", 2, "m"], "garbage");
  assert.equal(await storeOver(storage).store.highestId(), 2);
  faulty.fail = (op, arg) =>
    commitsManifest(op, arg) ? new Error("crash") : undefined;
  await assert.rejects(store.save(checkpoint(3)), /crash/);
  assert.deepEqual((await store.list()).map((info) => info.id), [1]);
  assert.equal(await storeOver(storage).store.highestId(), 3);
});

test("highestId() keeps its value when every key of the newest checkpoint is deleted by hand", async ({ storage }) => {
  const { store } = storeOver(storage, { retain: 1 });
  await store.save(checkpoint(1));
  await store.save(checkpoint(2));
  for (const [key] of await storage.list([])) {
    if (key[0] !== "highest") await storage.delete(key);
  }
  assert.equal(await store.highestId(), 2);
});

test("highestId() reads the index and the pointer of a store saved before the highest id was recorded", async ({ storage }) => {
  const { store } = storeOver(storage);
  await store.save(checkpoint(4));
  await storage.delete(["highest"]);
  assert.equal(await store.highestId(), 4);
  await storage.delete(["index", 4]);
  assert.equal(await store.highestId(), 4);
});

test("a job restored from an older checkpoint saves above highestId(), and that save deletes a checkpoint whose manifest is garbage", async ({ storage, setRaw }) => {
  const { store, lines } = storeOver(storage);
  for (const id of [1, 2, 3]) await store.save(checkpoint(id));
  await setRaw(["cp", 3, "m"], "garbage");
  assert.equal((await store.latest(CLICKS))?.id, 2);
  assert.equal(lines.length, 1);
  assert.match(
    lines[0],
    /Skipping checkpoint 3 of job 'clicks' as its manifest/,
  );
  const next = (await store.highestId()) + 1;
  assert.equal(next, 4);
  await store.save(checkpoint(next));
  assert.deepEqual((await store.list()).map((info) => info.id), [1, 2, 4]);
  assert.deepEqual((await keysOf(storage)).filter((key) => isOf(3, key)), []);
  assert.equal((await store.latest(CLICKS))?.id, 4);
});

test("a job started over when every manifest is garbage saves above highestId(), and its saves delete the corrupt checkpoints", async ({ storage, setRaw }) => {
  const { store } = storeOver(storage);
  for (const id of [1, 2, 3]) await store.save(checkpoint(id));
  for (const id of [1, 2, 3]) await setRaw(["cp", id, "m"], "garbage");
  await assert.rejects(store.latest(CLICKS), UnreadableCheckpointsError);
  await store.save(checkpoint((await store.highestId()) + 1));
  for (const id of [1, 2, 3]) {
    assert.deepEqual(
      (await keysOf(storage)).filter((key) => isOf(id, key)),
      [],
      `checkpoint ${id}`,
    );
  }
  assert.deepEqual((await store.list()).map((info) => info.id), [4]);
  assert.equal((await store.latest(CLICKS))?.id, 4);
});

test("latest() rethrows a storage outage instead of treating it as corruption", async ({ storage }) => {
  const faulty = new FaultyStorage(storage);
  const { store, lines } = storeOver(faulty);
  await store.save(checkpoint(1));
  await store.save(checkpoint(2));
  // KV goes down after the pointer and the manifest are read: the
  // snapshots cannot be read, and neither can anything else.
  let gets = 0;
  faulty.fail = (op) =>
    (op === "get" && ++gets > 2) || op === "getMany"
      ? new Error("KV is down")
      : undefined;
  await assert.rejects(store.latest(CLICKS), /KV is down/);
  assert.deepEqual(lines, []);
});

test("latest() throws CheckpointMismatchError for another job's checkpoint instead of skipping it", async ({ storage }) => {
  const { store, lines } = storeOver(storage);
  await store.save(checkpoint(1));
  const orders = { ...CLICKS, jobName: "orders" };
  await store.save(checkpoint(2, orders));
  await assert.rejects(store.latest(CLICKS), (error: unknown) => {
    assert.ok(error instanceof CheckpointMismatchError);
    assert.equal(error.code, "CHECKPOINT_MISMATCH");
    assert.equal(error.checkpointId, 2);
    assert.equal(
      error.message,
      "Cannot restore checkpoint 2 of job 'clicks' as its fingerprint differs: jobName is 'orders' in the checkpoint, 'clicks' in this job; to start over without its state, run with --restore none or execute({ restore: \"none\" })",
    );
    return true;
  });
  assert.deepEqual(lines, []);
});

for (
  const [difference, found, message] of [
    [
      "a missing operator",
      { operatorIds: ["src-1", "window-3", "dedup-4"] },
      /operator 'dedup-4' is missing in this job; to start over/,
    ],
    [
      "an extra operator",
      { operatorIds: ["src-1"] },
      /operator 'window-3' is missing in the checkpoint; to start over/,
    ],
    [
      "maxParallelism",
      { maxParallelism: 256 },
      /maxParallelism is 256 in the checkpoint, 128 in this job; to start over/,
    ],
    [
      "the state format version",
      { stateFormatVersion: STATE_FORMAT_VERSION + 1 },
      /stateFormatVersion is 2 in the checkpoint, 1 in this job; to start over/,
    ],
  ] as const
) {
  test(`latest() and load() refuse a checkpoint that differs in ${difference}`, async ({ storage }) => {
    const { store } = storeOver(storage);
    await store.save(checkpoint(3, { ...CLICKS, ...found }));
    const expected = {
      name: "CheckpointMismatchError",
      code: "CHECKPOINT_MISMATCH",
      message: message,
    };
    await assert.rejects(store.latest(CLICKS), expected);
    await assert.rejects(store.load(3, CLICKS), expected);
  });
}

test("the fingerprint check ignores parallelism and operator order", async ({ storage }) => {
  const { store } = storeOver(storage);
  await store.save(checkpoint(1));
  const reordered = { ...CLICKS, operatorIds: ["window-3", "src-1"] };
  assert.equal((await store.latest(reordered))?.id, 1);
});

test("load() returns the checkpoint with that id", async ({ storage }) => {
  const { store } = storeOver(storage);
  for (const id of [1, 2, 3]) await store.save(checkpoint(id));
  assert.deepEqual(await store.load(2, CLICKS), checkpoint(2));
});

test("load() rejects an absent id with a RangeError naming 'id' and the complete ids", async ({ storage }) => {
  const { store } = storeOver(storage);
  for (const id of [1, 2, 3]) await store.save(checkpoint(id));
  await assert.rejects(store.load(9, CLICKS), {
    name: "RangeError",
    message:
      "Cannot load a checkpoint as 'id' must name a complete checkpoint: current value is 9, but it has no manifest (it was never completed, or was deleted); the complete ones are 1, 2, 3",
  });
});

test("load() rejects a corrupt checkpoint with a RangeError naming 'id' and the problem", async ({ storage }) => {
  const { store } = storeOver(storage);
  await store.save(checkpoint(1));
  await storage.delete(["cp", 1, "s", "clicks/src-1/0"]);
  await assert.rejects(store.load(1, CLICKS), {
    name: "RangeError",
    message:
      /'id' .*current value is 1, but the snapshot of subtask 'clicks\/src-1\/0' is missing/,
  });
});

test("load() rejects an id that is not a positive safe integer, naming 'id'", async ({ storage }) => {
  const { store } = storeOver(storage);
  await assert.rejects(store.load(0, CLICKS), {
    name: "RangeError",
    message: /'id'.*current value is 0/,
  });
  await assert.rejects(store.load(1.5, CLICKS), {
    name: "RangeError",
    message: /'id'/,
  });
  await assert.rejects(
    store.load("1" as unknown as number, CLICKS),
    { name: "TypeError", message: /'id'/ },
  );
});

test("save() rejects an id not above the newest complete checkpoint, naming 'checkpoint.id'", async ({ storage }) => {
  const { store } = storeOver(storage);
  await store.save(checkpoint(5));
  for (const id of [5, 4]) {
    await assert.rejects(store.save(checkpoint(id)), {
      name: "RangeError",
      message:
        `Cannot save checkpoint as 'checkpoint.id' must be greater than the newest complete checkpoint 5: current value is ${id}; use an id above 5`,
    });
  }
  assert.deepEqual(await store.latest(CLICKS), checkpoint(5));
});

test("save() names the malformed field of the checkpoint and writes nothing", async ({ storage }) => {
  const { store } = storeOver(storage);
  const good = checkpoint(1);
  const cases: Array<[unknown, string, RegExp]> = [
    [null, "TypeError", /'checkpoint' must be an object/],
    [{ ...good, id: 0 }, "RangeError", /'checkpoint.id'.*current value is 0/],
    [{ ...good, createdAt: 1.5 }, "RangeError", /'checkpoint.createdAt'/],
    [{ ...good, createdAt: "now" }, "TypeError", /'checkpoint.createdAt'/],
    [{ ...good, subtasks: null }, "TypeError", /'checkpoint.subtasks'/],
    [{ ...good, subtasks: new Map() }, "TypeError", /'checkpoint.subtasks'/],
    [
      { ...good, subtasks: { "clicks/src-1/0": undefined } },
      "TypeError",
      /'checkpoint.subtasks\["clicks\/src-1\/0"\]'.*undefined/,
    ],
    [
      { ...good, fingerprint: undefined },
      "TypeError",
      /'checkpoint.fingerprint'/,
    ],
    [
      { ...good, fingerprint: { ...CLICKS, jobName: 7 } },
      "TypeError",
      /'checkpoint.fingerprint.jobName'/,
    ],
    [
      { ...good, fingerprint: { ...CLICKS, operatorIds: [1] } },
      "TypeError",
      /'checkpoint.fingerprint.operatorIds'/,
    ],
    [
      { ...good, fingerprint: { ...CLICKS, maxParallelism: 0 } },
      "RangeError",
      /'checkpoint.fingerprint.maxParallelism'/,
    ],
    [
      { ...good, fingerprint: { ...CLICKS, stateFormatVersion: -1 } },
      "RangeError",
      /'checkpoint.fingerprint.stateFormatVersion'/,
    ],
  ];
  for (const [value, name, message] of cases) {
    await assert.rejects(
      store.save(value as CompletedCheckpoint),
      { name, message },
    );
  }
  assert.deepEqual(await keysOf(storage), []);
});

test("latest() and load() name a malformed 'fingerprint'", async ({ storage }) => {
  const { store } = storeOver(storage);
  const bad = {
    ...CLICKS,
    operatorIds: "src-1",
  } as unknown as JobFingerprint;
  await assert.rejects(store.latest(bad), {
    name: "TypeError",
    message: /'fingerprint.operatorIds'/,
  });
  await assert.rejects(store.load(1, null as unknown as JobFingerprint), {
    name: "TypeError",
    message: /'fingerprint'/,
  });
});

test("the constructor names 'storage', 'options.retain' and 'options.log'", async ({ storage }) => {
  assert.throws(
    () => new CheckpointStore(null as unknown as ActorStorage),
    { name: "TypeError", message: /'storage'/ },
  );
  assert.throws(() => new CheckpointStore(storage, { retain: 0 }), {
    name: "RangeError",
    message: /'options.retain'.*current value is 0/,
  });
  assert.throws(
    () =>
      new CheckpointStore(storage, {
        log: "warn" as unknown as () => void,
      }),
    { name: "TypeError", message: /'options.log'/ },
  );
  await Promise.resolve();
});

test("save() resolves and logs one line when deleting old checkpoints fails", async ({ storage }) => {
  const faulty = new FaultyStorage(storage);
  const { store, lines } = storeOver(faulty, { retain: 1 });
  await store.save(checkpoint(1));
  faulty.fail = (op, arg) =>
    op === "atomic" && (arg as StorageOp[]).some((o) => o.type === "delete")
      ? new Error("disk full")
      : undefined;
  await store.save(checkpoint(2));
  assert.equal(lines.length, 1);
  assert.match(
    lines[0],
    /Checkpoint 2 of job 'clicks' is saved, but deleting older checkpoints failed.*disk full/,
  );
  faulty.fail = () => undefined;
  assert.equal((await store.latest(CLICKS))?.id, 2);
  await store.save(checkpoint(3));
  assert.deepEqual((await store.list()).map((info) => info.id), [3]);
  assert.deepEqual((await keysOf(storage)).filter((key) => isOf(1, key)), []);
});

test("concurrent calls on one store run one at a time", async ({ storage }) => {
  const { store } = storeOver(storage, { retain: 2 });
  const saves = [1, 2, 3, 4].map((id) => store.save(checkpoint(id)));
  const latest = store.latest(CLICKS);
  await Promise.all(saves);
  assert.equal((await latest)?.id, 4);
  assert.deepEqual((await store.list()).map((info) => info.id), [3, 4]);
});

test("save() deletes nothing it cannot read during an outage after the manifest commit", async ({ storage }) => {
  const faulty = new FaultyStorage(storage);
  const { store, lines } = storeOver(faulty, { retain: 2 });
  await store.save(checkpoint(1));
  await store.save(checkpoint(2));
  let committed = false;
  faulty.fail = (op, arg) => {
    if (committed && op === "get") return new Error("KV is down");
    committed ||= commitsManifest(op, arg);
    return undefined;
  };
  await store.save(checkpoint(3));
  assert.equal(lines.length, 1);
  assert.match(
    lines[0],
    /Checkpoint 3 .*deleting older checkpoints failed.*KV is down/,
  );
  faulty.fail = () => undefined;
  assert.deepEqual((await store.list()).map((info) => info.id), [1, 2, 3]);
  await store.save(checkpoint(4));
  assert.deepEqual((await store.list()).map((info) => info.id), [3, 4]);
});

test("latest() reads a checkpoint whose snapshots an earlier weir wrote as superjson", async ({ storage }) => {
  // The keys as CheckpointStore lays them out; every value through the
  // storage's put, which writes superjson text.
  const old = checkpoint(7);
  const subtaskIds = Object.keys(old.subtasks);
  await storage.put(["index", 7], { createdAt: old.createdAt, subtaskIds });
  for (const id of subtaskIds) {
    await storage.put(["cp", 7, "s", id], old.subtasks[id]);
  }
  await storage.put(["cp", 7, "m"], {
    id: 7,
    fingerprint: CLICKS,
    createdAt: old.createdAt,
    subtaskIds,
  });
  await storage.put(["latest"], 7);
  const { store, lines } = storeOver(storage);
  assert.deepEqual(await store.latest(CLICKS), old);
  // The next save writes V8's format beside it; both stay readable.
  await store.save(checkpoint(8));
  assert.deepEqual(await store.load(7, CLICKS), old);
  assert.deepEqual(await store.load(8, CLICKS), checkpoint(8));
  assert.deepEqual(lines, []);
});

test("save() writes the snapshots of an encoded checkpoint as they are, without decoding them", async ({ storage }) => {
  const written: unknown[] = [];
  const recording = new FaultyStorage(storage);
  recording.fail = (op, arg) => {
    if (op === "atomic") {
      for (const o of arg as StorageOp[]) {
        if (o.type === "put" && o.key[2] === "s") written.push(o.value);
      }
    }
    return undefined;
  };
  const plain = checkpoint(1);
  const snapshots = Object.fromEntries(
    Object.entries(plain.subtasks).map((
      [id, snapshot],
    ) => [id, encodeStructured(snapshot)]),
  );
  const encoded = encodedCheckpoint(
    { id: 1, fingerprint: CLICKS, createdAt: plain.createdAt },
    snapshots,
  );
  const { store, lines } = storeOver(recording);
  await store.save(encoded);
  assert.deepEqual(written, Object.values(snapshots));
  assert.ok(written.every((value) => value instanceof Encoded));
  assert.deepEqual(await store.latest(CLICKS), plain);
  // Not decoded on the way: bytes that cannot be read are saved, and only
  // reading finds them corrupt.
  const garbage = new Encoded(new Uint8Array([0xff, 0x0f, 0x99]));
  await store.save(
    encodedCheckpoint({ id: 2, fingerprint: CLICKS, createdAt: 2 }, {
      "clicks/src-1/0": garbage,
    }),
  );
  assert.equal(written.at(-1), garbage);
  assert.deepEqual(await store.latest(CLICKS), plain);
  assert.match(lines[0], /Skipping checkpoint 2 .*cannot be read/);
});

test("save() names a snapshot that cannot be structured-cloned and writes nothing", async ({ storage }) => {
  const { store } = storeOver(storage);
  await assert.rejects(
    store.save(
      checkpoint(1, CLICKS, { "clicks/src-1/0": { offset: 1, f: () => 1 } }),
    ),
    {
      name: "TypeError",
      message:
        /'checkpoint.subtasks\["clicks\/src-1\/0"\]' must be structured-cloneable/,
    },
  );
  assert.deepEqual(await keysOf(storage), []);
});

test("save() copies the snapshots when called: later changes are not saved", async ({ storage }) => {
  const { store } = storeOver(storage);
  const state = { offset: 1 };
  const saving = store.save(
    checkpoint(1, CLICKS, { "clicks/src-1/0": state }),
  );
  state.offset = 2;
  await saving;
  assert.deepEqual((await store.latest(CLICKS))?.subtasks, {
    "clicks/src-1/0": { offset: 1 },
  });
});

// Incremental checkpoints: a window subtask's snapshot holds a placeholder
// for its slots, which are stored as separate parts.

const WINDOW = "clicks/window-3/0";

/** A part: an array of `n` window slots tagged `tag` (plain data, a Set). */
function slots(tag: string, n = 3): unknown[] {
  return Array.from({ length: n }, (_, i) => ({
    id: i,
    key: `${tag}-${i}`,
    contents: new Set([tag]),
  }));
}

/** Parts as the runtime hands them out: each array encoded once. */
function part(tag: string, n = 3): Encoded {
  return encodeStructured(slots(tag, n));
}

/**
 * Checkpoint `id` whose window snapshot is `{ slots: <parts>, other: id }`
 * with `parts`, as LocalRuntime builds one.
 */
function withParts(id: number, parts: readonly Encoded[]): CompletedCheckpoint {
  const main = encodeStructured({
    slots: partsPlaceholder(parts.map((_, i) => i)),
    other: id,
  });
  return encodedCheckpoint(
    { id, fingerprint: CLICKS, createdAt: 1_700_000_000_000 + id },
    {
      "clicks/src-1/0": encodeStructured({ offset: id * 10 }),
      [WINDOW]: new Encoded(main.bytes, undefined, parts),
    },
  );
}

/** The subtasks `withParts(id, parts)` stands for, parts filled in. */
function filled(id: number, parts: readonly Encoded[]) {
  return {
    "clicks/src-1/0": { offset: id * 10 },
    [WINDOW]: { slots: parts.flatMap((p) => p.decode<unknown[]>()), other: id },
  };
}

/** The storage keys of parts (`["cpp", id, actorId, n]`), in key order. */
async function partKeys(storage: ActorStorage): Promise<StorageKey[]> {
  return (await storage.list(["cpp"], { keysOnly: true })).map(([key]) => key);
}

test("a part unchanged since the previous checkpoint is stored once and read by both", async ({ storage }) => {
  const { store, lines } = storeOver(storage);
  const a = part("a", 20);
  const b1 = part("b1");
  const b2 = part("b2");
  await store.save(withParts(1, [a, b1]));
  await store.save(withParts(2, [a, b2]));
  assert.deepEqual(await partKeys(storage), [
    ["cpp", 1, WINDOW, 0],
    ["cpp", 1, WINDOW, 1],
    ["cpp", 2, WINDOW, 1],
  ]);
  const manifest = await storage.get<{ parts: unknown }>(["cp", 2, "m"]);
  assert.deepEqual(manifest?.parts, { [WINDOW]: [1, 0, 2, 1] });
  // The snapshot itself holds the placeholder, not the slots.
  const main = await storage.get<Record<string, unknown>>([
    "cp",
    2,
    "s",
    WINDOW,
  ]);
  assert.deepEqual(Object.keys(main!), ["slots", "other"]);

  const latest = await store.latest(CLICKS);
  assert.equal(latest?.id, 2);
  assert.deepStrictEqual(latest?.subtasks, filled(2, [a, b2]));
  const window = latest!.subtasks[WINDOW] as { slots: unknown[] };
  assert.deepStrictEqual(window.slots, [...slots("a", 20), ...slots("b2")]);
  const first = await store.load(1, CLICKS);
  assert.deepStrictEqual(first.subtasks, filled(1, [a, b1]));
  assert.deepEqual(lines, []);
});

test("retention deletes the parts no kept checkpoint refers to and keeps the others where they were written", async ({ storage }) => {
  const { store, lines } = storeOver(storage, { retain: 1 });
  const a = part("a");
  const b = [part("b1"), part("b2"), part("b3")];
  for (let id = 1; id <= 3; id++) {
    await store.save(withParts(id, [a, b[id - 1]]));
  }
  assert.deepEqual((await store.list()).map((info) => info.id), [3]);
  assert.deepEqual(await partKeys(storage), [
    ["cpp", 1, WINDOW, 0],
    ["cpp", 3, WINDOW, 1],
  ]);
  // Nothing else of checkpoints 1 and 2 remains.
  assert.deepEqual(
    (await keysOf(storage)).filter((key) =>
      (isOf(1, key) || isOf(2, key)) && key[2] !== "p"
    ),
    [],
  );
  assert.deepStrictEqual(
    (await store.latest(CLICKS))?.subtasks,
    filled(3, [a, b[2]]),
  );

  // Once `a` changes, its old part goes too.
  const a2 = part("a2");
  await store.save(withParts(4, [a2, b[2]]));
  assert.deepEqual(await partKeys(storage), [
    ["cpp", 3, WINDOW, 1],
    ["cpp", 4, WINDOW, 0],
  ]);
  assert.deepStrictEqual(
    (await store.latest(CLICKS))?.subtasks,
    filled(4, [a2, b[2]]),
  );
  assert.deepEqual(lines, []);
});

test("retention deletes an unreferenced part even while an older part is still referenced", async ({ storage }) => {
  const { store, lines } = storeOver(storage, { retain: 1 });
  // `a` never changes: its part stays the oldest key. `b` is written by
  // checkpoint 2, still used by 3, and replaced in 4.
  const a = part("a");
  const b = part("b");
  await store.save(withParts(1, [a, part("b0")]));
  await store.save(withParts(2, [a, b]));
  await store.save(withParts(3, [a, b]));
  assert.deepEqual(await partKeys(storage), [
    ["cpp", 1, WINDOW, 0],
    ["cpp", 2, WINDOW, 1],
  ]);
  const b4 = part("b4");
  await store.save(withParts(4, [a, b4]));
  assert.deepEqual(await partKeys(storage), [
    ["cpp", 1, WINDOW, 0],
    ["cpp", 4, WINDOW, 1],
  ]);
  assert.deepEqual(
    (await keysOf(storage)).filter((key) => key[0] !== "cp" || key[2] !== "p")
      .filter((key) => [1, 2, 3].some((id) => isOf(id, key))),
    [],
  );
  assert.deepStrictEqual(
    (await store.latest(CLICKS))?.subtasks,
    filled(4, [a, b4]),
  );
  assert.deepEqual(lines, []);
});

test("a part whose clean-up failed is deleted by the next save", async ({ storage }) => {
  const faulty = new FaultyStorage(storage);
  const { store, lines } = storeOver(faulty, { retain: 1 });
  const a = part("a");
  const b = part("b");
  await store.save(withParts(1, [a, part("b0")]));
  await store.save(withParts(2, [a, b]));
  await store.save(withParts(3, [a, b]));
  faulty.fail = (op, arg) =>
    op === "atomic" && (arg as StorageOp[]).some((o) => o.type === "delete")
      ? new Error("disk full")
      : undefined;
  const b4 = part("b4");
  await store.save(withParts(4, [a, b4]));
  assert.equal(lines.length, 1);
  assert.match(lines[0], /Checkpoint 4 .*deleting older checkpoints failed/);
  faulty.fail = () => undefined;
  const b5 = part("b5");
  await store.save(withParts(5, [a, b5]));
  assert.deepEqual(await partKeys(storage), [
    ["cpp", 1, WINDOW, 0],
    ["cpp", 5, WINDOW, 1],
  ]);
  assert.deepStrictEqual(
    (await store.latest(CLICKS))?.subtasks,
    filled(5, [a, b5]),
  );
  assert.equal(lines.length, 1);
});

test("latest() skips a checkpoint whose part is missing, with one log line naming it, and returns the previous one", async ({ storage }) => {
  const { store, lines } = storeOver(storage, { retain: 2 });
  const a = part("a");
  const b1 = part("b1");
  await store.save(withParts(1, [a, b1]));
  await store.save(withParts(2, [a, part("b2")]));
  await storage.delete(["cpp", 2, WINDOW, 1]);
  const latest = await store.latest(CLICKS);
  assert.equal(latest?.id, 1);
  assert.deepStrictEqual(latest?.subtasks, filled(1, [a, b1]));
  assert.equal(lines.length, 1);
  assert.match(
    lines[0],
    /checkpoint 2 of job 'clicks'.*part 1 of checkpoint 2 of subtask 'clicks\/window-3\/0' is missing/,
  );
  await assert.rejects(store.load(2, CLICKS), {
    name: "RangeError",
    message: /current value is 2, but part 1 of checkpoint 2 .* is missing/,
  });

  // A shared part that is gone breaks both checkpoints.
  await storage.delete(["cpp", 1, WINDOW, 0]);
  await assert.rejects(store.latest(CLICKS), (error: unknown) => {
    assert.ok(error instanceof UnreadableCheckpointsError);
    assert.deepEqual(error.checkpoints.map((c) => c.id), [2, 1]);
    assert.match(
      error.checkpoints[1].problem,
      /part 0 of checkpoint 1 .* is missing/,
    );
    return true;
  });
});

test("a new store over the same storage writes every part again, and reads both generations", async ({ storage }) => {
  const { store } = storeOver(storage, { retain: 4 });
  const a = part("a");
  const b = part("b");
  await store.save(withParts(1, [a, b]));
  await store.save(withParts(2, [a, b]));
  assert.equal((await partKeys(storage)).length, 2);

  // A restart: the same Encoded objects, but this store did not write them.
  const { store: restarted, lines } = storeOver(storage, { retain: 4 });
  assert.deepStrictEqual(
    (await restarted.latest(CLICKS))?.subtasks,
    filled(2, [a, b]),
  );
  await restarted.save(withParts(3, [a, b]));
  assert.deepEqual(await partKeys(storage), [
    ["cpp", 1, WINDOW, 0],
    ["cpp", 1, WINDOW, 1],
    ["cpp", 3, WINDOW, 0],
    ["cpp", 3, WINDOW, 1],
  ]);
  const manifest = await storage.get<{ parts: unknown }>(["cp", 3, "m"]);
  assert.deepEqual(manifest?.parts, { [WINDOW]: [3, 0, 3, 1] });
  // From then on, it refers to what it wrote.
  const c = part("c");
  await restarted.save(withParts(4, [a, c]));
  assert.deepEqual(
    (await storage.get<{ parts: unknown }>(["cp", 4, "m"]))?.parts,
    { [WINDOW]: [3, 0, 4, 1] },
  );
  for (
    const [id, parts] of [[1, [a, b]], [2, [a, b]], [3, [a, b]], [4, [
      a,
      c,
    ]]] as const
  ) {
    assert.deepStrictEqual(
      (await restarted.load(id, CLICKS)).subtasks,
      filled(id, parts),
    );
  }
  assert.deepEqual(lines, []);
});

test("a part of a save that crashed before its manifest is written again, not referred to", async ({ storage }) => {
  const faulty = new FaultyStorage(storage);
  const { store, lines } = storeOver(faulty);
  const a = part("a");
  faulty.fail = (op, arg) =>
    commitsManifest(op, arg) ? new Error("crash") : undefined;
  await assert.rejects(store.save(withParts(1, [a])), /crash/);
  faulty.fail = () => undefined;
  await store.save(withParts(2, [a]));
  assert.deepEqual(
    (await storage.get<{ parts: unknown }>(["cp", 2, "m"]))?.parts,
    { [WINDOW]: [2, 0] },
  );
  assert.deepEqual(await partKeys(storage), [["cpp", 2, WINDOW, 0]]);
  assert.deepStrictEqual(
    (await store.latest(CLICKS))?.subtasks,
    filled(2, [a]),
  );
  assert.deepEqual(lines, []);
});

test("a save lists no part that a kept checkpoint still uses, however old", async ({ storage }) => {
  const listed: StorageKey[] = [];
  const watched: ActorStorage = {
    get: (key) => storage.get(key),
    getMany: (keys) => storage.getMany(keys),
    put: (key, value) => storage.put(key, value),
    delete: (key) => storage.delete(key),
    atomic: (ops) => storage.atomic(ops),
    list: (prefix, options) => {
      listed.push(prefix);
      return storage.list(prefix, options);
    },
  };
  const { store } = storeOver(watched, { retain: 2 });
  const a = part("a", 20);
  for (let id = 1; id <= 4; id++) {
    await store.save(withParts(id, [a, part(`b${id}`)]));
  }
  listed.length = 0;
  await store.save(withParts(5, [a, part("b5")]));
  assert.deepEqual(
    listed.filter((prefix) => prefix[0] === "cpp" && prefix[1] === 1),
    [],
    "checkpoint 1's kept part is not listed again",
  );
  assert.deepEqual((await partKeys(storage)).map((key) => key[1]), [1, 4, 5]);
  const latest = await store.latest(CLICKS);
  assert.equal(latest?.id, 5);
});
