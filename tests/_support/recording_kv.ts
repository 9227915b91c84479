// A Deno.Kv wrapper for the KV runtime's crash and limit tests: it forwards
// every call the runtime makes (reads, `set`, `delete`, `atomic`, `watch`,
// `close`) to a real database, and describes every write before it is sent
// (checks, mutations, bytes as Deno KV counts them), so a test can throw to
// simulate a crash at that point, pause there, or record the sizes.

import { serialize } from "node:v8";

/** One write to the database: an atomic commit, or a `set` or `delete`. */
export interface WriteRecord {
  /** Its number among the wrapper's writes, from 1. */
  readonly n: number;
  /** What made it. */
  readonly kind: "atomic" | "set" | "delete";
  /** The keys it checks. */
  readonly checkedKeys: readonly Deno.KvKey[];
  /** The keys it sets or deletes, in order. */
  readonly keys: readonly Deno.KvKey[];
  /** How many checks. */
  readonly checks: number;
  /** How many mutations (set, delete, sum, min, max). */
  readonly mutations: number;
  /** Encoded keys of every mutation plus the values it writes. */
  readonly mutationBytes: number;
  /**
   * The payload as Deno KV limits it (800 KiB): every checked and mutated
   * key, and each written key once more with its value.
   */
  readonly payloadBytes: number;
  /** Encoded keys of the mutations that write a value (Deno KV: 80 KiB). */
  readonly writtenKeyBytes: number;
  /** The largest value written (Deno KV: 64 KiB). */
  readonly maxValueBytes: number;
  /** The longest key checked or mutated (Deno KV: 2 KiB). */
  readonly maxKeyBytes: number;
  /** Each written value's key and size in bytes. */
  readonly values: ReadonlyArray<readonly [Deno.KvKey, number]>;
  /** Each written value's key and the value itself, as handed to Deno KV. */
  readonly written: ReadonlyArray<readonly [Deno.KvKey, unknown]>;
  /** Set once the database answered: whether the checks passed. */
  ok?: boolean;
}

/** Hooks of {@linkcode recordingKv}. */
export interface RecordingHooks {
  /**
   * Runs before each write is sent; it may throw (a crash: the write is
   * not sent) or await anything (a pause just before the write).
   */
  beforeWrite?(write: WriteRecord): Promise<void> | void;
}

/** A Deno.Kv that records its writes, with the list of them. */
export interface RecordingKv {
  /** The wrapper, to hand to the code under test. */
  readonly kv: Deno.Kv;
  /** Every write the wrapper was asked for, in order (crashed ones too). */
  readonly writes: WriteRecord[];
}

const encoder = new TextEncoder();

/** The size of a key in Deno KV's (FoundationDB tuple) encoding. */
export function keyBytes(key: Deno.KvKey): number {
  let size = 0;
  for (const part of key) {
    if (typeof part === "string") size += 2 + escaped(encoder.encode(part));
    else if (part instanceof Uint8Array) size += 2 + escaped(part);
    else if (typeof part === "number") size += 9;
    else if (typeof part === "bigint") {
      size += 2 + Math.ceil((part < 0n ? -part : part).toString(16).length / 2);
    } else size += 1; // boolean
  }
  return size;
}

/** Bytes with each 0x00 escaped as two bytes. */
function escaped(bytes: Uint8Array): number {
  let size = bytes.length;
  for (const byte of bytes) if (byte === 0) size++;
  return size;
}

/** The size of a value as Deno KV stores it: raw bytes, or V8's format. */
export function valueBytes(value: unknown): number {
  if (value instanceof Uint8Array) return value.length;
  if (value instanceof Deno.KvU64) return 8;
  return serialize(value).length;
}

type Mutation = { key: Deno.KvKey; value?: unknown };

function describe(
  n: number,
  kind: WriteRecord["kind"],
  checks: readonly Deno.AtomicCheck[],
  mutations: readonly Mutation[],
): WriteRecord {
  let mutationBytes = 0;
  let payloadBytes = 0;
  let writtenKeyBytes = 0;
  let maxValueBytes = 0;
  let maxKeyBytes = 0;
  const values: Array<[Deno.KvKey, number]> = [];
  for (const check of checks) {
    const size = keyBytes(check.key);
    payloadBytes += size;
    maxKeyBytes = Math.max(maxKeyBytes, size);
  }
  for (const m of mutations) {
    const size = keyBytes(m.key);
    maxKeyBytes = Math.max(maxKeyBytes, size);
    mutationBytes += size;
    payloadBytes += size;
    if (!("value" in m)) continue;
    const bytes = valueBytes(m.value);
    values.push([m.key, bytes]);
    mutationBytes += bytes;
    payloadBytes += size + bytes;
    writtenKeyBytes += size;
    maxValueBytes = Math.max(maxValueBytes, bytes);
  }
  return {
    n,
    kind,
    checkedKeys: checks.map((c) => c.key),
    keys: mutations.map((m) => m.key),
    checks: checks.length,
    mutations: mutations.length,
    mutationBytes,
    payloadBytes,
    writtenKeyBytes,
    maxValueBytes,
    maxKeyBytes,
    values,
    written: mutations.filter((m) => "value" in m).map((m) =>
      [m.key, (m as { value: unknown }).value] as const
    ),
  };
}

/**
 * Wraps `kv`: every write is described and passed to `hooks.beforeWrite`
 * before it is sent, and kept in `writes` with its outcome.
 */
export function recordingKv(
  kv: Deno.Kv,
  hooks: RecordingHooks = {},
): RecordingKv {
  const writes: WriteRecord[] = [];
  const before = async (write: WriteRecord) => {
    writes.push(write);
    await hooks.beforeWrite?.(write);
  };
  const wrapper = {
    get: (
      key: Deno.KvKey,
      options?: { consistency?: Deno.KvConsistencyLevel },
    ) => kv.get(key, options),
    getMany: (
      keys: Deno.KvKey[],
      options?: { consistency?: Deno.KvConsistencyLevel },
    ) => kv.getMany(keys, options),
    list: (selector: Deno.KvListSelector, options?: Deno.KvListOptions) =>
      kv.list(selector, options),
    watch: (keys: Deno.KvKey[], options?: { raw?: boolean }) =>
      kv.watch(keys, options),
    close: () => kv.close(),
    async set(
      key: Deno.KvKey,
      value: unknown,
      options?: { expireIn?: number },
    ) {
      const write = describe(writes.length + 1, "set", [], [{ key, value }]);
      await before(write);
      const result = await kv.set(key, value, options);
      write.ok = result.ok;
      return result;
    },
    async delete(key: Deno.KvKey) {
      const write = describe(writes.length + 1, "delete", [], [{ key }]);
      await before(write);
      await kv.delete(key);
      write.ok = true;
    },
    atomic() {
      const op = kv.atomic();
      const checks: Deno.AtomicCheck[] = [];
      const mutations: Mutation[] = [];
      const atomic = {
        check(...added: Deno.AtomicCheck[]) {
          checks.push(...added);
          op.check(...added);
          return atomic;
        },
        set(key: Deno.KvKey, value: unknown, options?: { expireIn?: number }) {
          mutations.push({ key, value });
          op.set(key, value, options);
          return atomic;
        },
        delete(key: Deno.KvKey) {
          mutations.push({ key });
          op.delete(key);
          return atomic;
        },
        sum(key: Deno.KvKey, n: bigint) {
          mutations.push({ key, value: new Deno.KvU64(n) });
          op.sum(key, n);
          return atomic;
        },
        min(key: Deno.KvKey, n: bigint) {
          mutations.push({ key, value: new Deno.KvU64(n) });
          op.min(key, n);
          return atomic;
        },
        max(key: Deno.KvKey, n: bigint) {
          mutations.push({ key, value: new Deno.KvU64(n) });
          op.max(key, n);
          return atomic;
        },
        mutate(...added: Deno.KvMutation[]) {
          for (const m of added) {
            mutations.push(
              m.type === "delete" ? { key: m.key } : {
                key: m.key,
                value: m.value,
              },
            );
          }
          op.mutate(...added);
          return atomic;
        },
        async commit() {
          const write = describe(
            writes.length + 1,
            "atomic",
            checks,
            mutations,
          );
          await before(write);
          const result = await op.commit();
          write.ok = result.ok;
          return result;
        },
      };
      return atomic;
    },
  };
  return { kv: wrapper as unknown as Deno.Kv, writes };
}

/** Whether `key` starts with `prefix`. */
export function hasPrefix(key: Deno.KvKey, prefix: Deno.KvKey): boolean {
  return prefix.length <= key.length &&
    prefix.every((part, i) => part === key[i]);
}
