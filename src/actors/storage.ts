/**
 * The durable storage of one actor: the port that {@linkcode MemoryStorage}
 * (tests, local runs) and {@linkcode KvStorage} (Deno KV) implement, with
 * one contract checked by one conformance suite.
 *
 * @module
 */

/** One part of a {@linkcode StorageKey}: a string, or a number other than `NaN`. */
export type StorageKeyPart = string | number;

/**
 * A key: a non-empty array of parts, ordered like Deno KV keys.
 *
 * Keys compare part by part; strings sort before numbers, strings by their
 * UTF-8 bytes, numbers numerically (`-Infinity` first, `-0` just before `0`),
 * and a key sorts before every longer key it is a prefix of. Encoded as
 * Deno KV encodes keys (a string takes its UTF-8 length plus 2 bytes, a
 * number 9), a key with the storage's own prefix must fit Deno KV's
 * 2048-byte key limit.
 */
export type StorageKey = readonly StorageKeyPart[];

/** One operation of an atomic batch. */
export type StorageOp =
  | {
    /** Writes `value` under `key`, replacing any value there. */
    readonly type: "put";
    /** The key to write. */
    readonly key: StorageKey;
    /** Any superjson-serialisable value except `undefined`. */
    readonly value: unknown;
  }
  | {
    /** Removes `key`; removing a missing key is not an error. */
    readonly type: "delete";
    /** The key to remove. */
    readonly key: StorageKey;
  };

/** Options of {@linkcode ActorStorage.list}. */
export interface ListOptions {
  /**
   * The most entries to return: a positive safe integer.
   * @default {Infinity}
   */
  readonly limit?: number;
  /**
   * Whether to return the keys only, each with an `undefined` value, without
   * reading the values (cheap for large ones, e.g. before deleting them).
   * @default {false}
   */
  readonly keysOnly?: boolean;
}

/**
 * Durable key-value storage of ONE actor, like a Durable Object's
 * `ctx.storage`: keys are scoped to the actor, so two actors never see each
 * other's keys.
 *
 * Values are anything superjson serialises: numbers including `NaN`, `-0`
 * and `±Infinity`, strings, booleans, `null`, `undefined` inside objects,
 * bigints, `Map`, `Set`, `Date`, `RegExp`, plain objects and arrays, nested
 * freely. Class instances come back as plain objects and functions are
 * dropped. Every read returns a fresh copy, so changing a value read (or a
 * value after writing it) never changes what is stored.
 *
 * Size: a value may be several megabytes. One that does not fit a Deno KV
 * value (64 KiB) is split into parts of at most 60 KiB behind a small
 * manifest; reads see either the whole old value or the whole new one.
 *
 * Limits: an {@linkcode ActorStorage.atomic} batch must become visible in
 * ONE Deno KV commit, which allows at most 1000 mutations, 800 KiB of keys
 * and values and 80 KiB of written keys (and weir keeps checks to 10, the
 * limit of KV Connect). The parts of large values are written ahead of that
 * commit and do not count, so in practice the limits bound the number of
 * operations and the size of their keys. A batch over a limit is rejected
 * with a `RangeError` that names the limit and the value, before anything
 * is written. Both implementations apply the same rules; {@linkcode KvStorage}
 * also counts its key prefix, so very long keys can pass in memory and fail
 * in KV.
 *
 * One writer: an actor's storage has one writer at a time (the runtime's
 * lease fences the others); an implementation serialises its own writes.
 */
export interface ActorStorage {
  /**
   * Reads one value.
   *
   * @typeParam V The type the caller expects; not checked.
   * @param key The key to read.
   * @returns A copy of the value, or `undefined` if the key has none.
   * @throws {TypeError} If `key` is not an array of strings and numbers.
   * @throws {RangeError} If `key` is empty, contains `NaN` or is too long.
   */
  get<V = unknown>(key: StorageKey): Promise<V | undefined>;

  /**
   * Reads several values, in the order of `keys`.
   *
   * @typeParam V The type the caller expects; not checked.
   * @param keys The keys to read.
   * @returns One copy or `undefined` per key.
   * @throws {TypeError} If a key is not an array of strings and numbers.
   * @throws {RangeError} If a key is empty, contains `NaN` or is too long.
   */
  getMany<V = unknown>(
    keys: readonly StorageKey[],
  ): Promise<Array<V | undefined>>;

  /**
   * Writes one value: `atomic([{ type: "put", key, value }])`.
   *
   * @param key The key to write.
   * @param value Any superjson-serialisable value except `undefined`.
   * @throws {TypeError} If `key` is malformed or `value` cannot be stored.
   * @throws {RangeError} If `key` is empty, contains `NaN` or is too long.
   */
  put(key: StorageKey, value: unknown): Promise<void>;

  /**
   * Removes one key (and every part of a large value): `atomic([{ type:
   * "delete", key }])`. Removing a missing key does nothing.
   *
   * @param key The key to remove.
   * @throws {TypeError} If `key` is not an array of strings and numbers.
   * @throws {RangeError} If `key` is empty, contains `NaN` or is too long.
   */
  delete(key: StorageKey): Promise<void>;

  /**
   * Lists the entries whose keys start with `prefix` and are longer than it,
   * in key order (as Deno KV's `list({ prefix })`): `list([])` lists all.
   *
   * @typeParam V The type the caller expects; not checked.
   * @param prefix The key parts every listed key starts with; may be empty.
   * @param options The most entries to return.
   * @returns `[key, value]` pairs; keys are relative to the actor.
   * @throws {TypeError} If `prefix` is not an array of strings and numbers.
   * @throws {RangeError} If `options.limit` is not a positive integer.
   */
  list<V = unknown>(
    prefix: StorageKey,
    options?: ListOptions,
  ): Promise<Array<[StorageKey, V]>>;

  /**
   * Applies a batch of puts and deletes all-or-nothing: readers see all of
   * it or none of it, and a batch that fails validation writes nothing.
   * When a key appears twice, the last operation wins.
   *
   * @param ops The operations, applied in order.
   * @throws {TypeError} If an operation, key or value is malformed.
   * @throws {RangeError} If a key is too long or the batch exceeds one Deno
   * KV commit (1000 mutations, 800 KiB, 80 KiB of keys, 10 checks).
   */
  atomic(ops: readonly StorageOp[]): Promise<void>;
}
