/**
 * {@linkcode KvStorage}: an actor's storage in Deno KV, under one key prefix
 * per actor, shared by every process that opens the same database.
 *
 * @module
 */

import type {
  ActorStorage,
  ListOptions,
  StorageKey,
  StorageKeyPart,
  StorageOp,
} from "../storage.ts";
import { checkKey, describeKey, type KeyCheck } from "../_storage_keys.ts";
import { decodeStored } from "../_codec.ts";
import { type ResolvedOp, resolveOps } from "../_resolve_ops.ts";
import {
  AtomicConflictError,
  KV_LIMITS,
  kvKeySize,
  type Manifest,
  MAX_KEY_BYTES,
  orderedKey,
  planCommit,
  readChunks,
  readStored,
  VALUES,
} from "../../kv/mod.ts";
import { type CommitTarget, runPlan, sweepMarkers } from "./_commit_runner.ts";
import { KnownValues, readReplaced } from "./_known_values.ts";
import * as check from "./_storage_options.ts";
import { requirePositiveInteger } from "../../time/validate.ts";

export { AtomicConflictError };

// Retries of a chunked read whose parts a concurrent write removed.
const READ_ATTEMPTS = 3;

/** Options of a {@linkcode KvStorage}. */
export interface KvStorageOptions {
  /**
   * Nothing else writes under the prefix while this instance lives (an
   * actor's storage under its lease): what its own commits wrote is not
   * read again before a commit replaces it, and keys named `absent` are
   * not read at all.
   * @default {false}
   */
  readonly soleWriter?: boolean;
}

/** Options of {@linkcode KvStorage.atomic}. */
export interface KvAtomicOptions {
  /**
   * Checks added to the commit that makes the batch visible, e.g. the
   * runtime's lease entry; if one fails, nothing of the batch is visible
   * and {@linkcode AtomicConflictError} is thrown. At most 10 in all.
   * @default {[]}
   */
  readonly checks?: readonly Deno.AtomicCheck[];
  /**
   * Keys the caller knows hold nothing now (never written, or deleted
   * since), e.g. the next entries of a log only it writes: a storage
   * created with `soleWriter` does not read them before the commit. A key
   * named here that holds a chunked value keeps its parts for ever. After
   * a call that threw, these keys may hold its values (the commit may
   * have landed): a caller that retries must not name them again.
   * @default {[]}
   */
  readonly absent?: readonly StorageKey[];
}

/**
 * An {@linkcode ActorStorage} in Deno KV, under one key prefix (the actor's,
 * e.g. `["weir", jobName, "actor", actorId]`). Values are superjson text in
 * UTF-8 (a checkpoint's snapshots: V8's structured-clone format, deflated
 * when large); the storage owns the sub-keys `"v"` (values), `"p"` (parts
 * of large values) and `"g"` (markers of parts to delete) under its prefix,
 * so other data of the actor (a lease) must use other sub-keys.
 *
 * Large values: a value over 64 KiB is split into parts of at most 60 KiB,
 * named by a random version id and never rewritten; the value key holds a
 * manifest. A reader reads the manifest, then the parts of that version;
 * if a concurrent write removed them, it reads the manifest again, so it
 * returns the whole old value or the whole new one.
 *
 * Atomic batches, and how this backend splits them safely: a batch that
 * fits one Deno KV commit is one commit. One that does not (several MB of
 * values) writes the new parts first, in as many commits as needed, under a
 * marker; they stay invisible. Then ONE commit switches every value key of
 * the batch (with the caller's checks and a check of the marker); replaced
 * parts are deleted afterwards. Only the switch commit must fit the limits
 * (1000 mutations, 800 KiB, 80 KiB of written keys, 10 checks), so a batch
 * is rejected with a RangeError only for too many operations or too many
 * long keys. A crash before the switch leaves only unreferenced parts
 * behind a marker; the first write of the next instance over the prefix,
 * or {@linkcode KvStorage.sweep}, deletes them.
 *
 * A value under the prefix that this class did not write (set with
 * `kv.set` by hand, or by another tool) cannot be read, as its format is
 * unknown (`get` throws), but a put or a delete replaces it like an inline
 * value: a job can always overwrite or clean up a corrupt entry.
 *
 * One writer per prefix: the runtime's lease guarantees it, and this class
 * serialises its own writes. A write first reads the entries it replaces
 * (to find their parts; one consistent `getMany` per 10 keys), except, with
 * `soleWriter`, those it wrote itself or was told are `absent`.
 *
 * @example Round trip through an in-memory Deno KV
 * ```ts
 * import { KvStorage } from "./kv_storage.ts";
 * import assert from "node:assert/strict";
 *
 * const kv = await Deno.openKv(":memory:");
 * const storage = new KvStorage(kv, ["weir", "job", "actor", "job/map/0"]);
 * await storage.atomic([
 *   { type: "put", key: ["offset", "in-0"], value: 41 },
 *   { type: "put", key: ["window", 1_000], value: new Set(["a"]) },
 * ]);
 * assert.equal(await storage.get(["offset", "in-0"]), 41);
 * kv.close();
 * ```
 */
export class KvStorage implements ActorStorage {
  readonly #kv: Deno.Kv;
  readonly #prefix: readonly StorageKeyPart[];
  readonly #target: CommitTarget;
  readonly #keys: Omit<KeyCheck, "action" | "param">;
  #writes: Promise<unknown> = Promise.resolve();
  #swept = false;
  readonly #known: KnownValues | null;

  /**
   * Creates a storage over `kv` under `prefix`; it does not touch KV yet.
   *
   * @param kv An open Deno KV database; the caller closes it.
   * @param prefix The actor's key prefix: strings and numbers, at most 1024
   * bytes encoded, leaving the rest of Deno KV's 2048 bytes to the keys.
   * @param options See {@linkcode KvStorageOptions}.
   * @throws {TypeError} If `kv` is not a Deno.Kv, `prefix` is not an array
   * of strings and numbers, or an option is of the wrong type.
   * @throws {RangeError} If `prefix` is too long or contains `NaN`.
   */
  constructor(
    kv: Deno.Kv,
    prefix: StorageKey,
    options?: KvStorageOptions,
  ) {
    if (typeof (kv as { atomic?: unknown } | null)?.atomic !== "function") {
      throw new TypeError(
        `Cannot create KvStorage as 'kv' must be a Deno.Kv: current value is ${kv}`,
      );
    }
    const checked = checkKey(prefix, {
      action: "create KvStorage",
      param: "prefix",
      budget: MAX_KEY_BYTES / 2,
      budgetReason: "half of Deno KV's 2048-byte key limit",
      allowEmpty: true,
    });
    const action = "create KvStorage";
    const { soleWriter } = check.options(options, action);
    this.#kv = kv;
    this.#known = check.soleWriter(soleWriter, action)
      ? new KnownValues()
      : null;
    this.#prefix = [...checked.key];
    this.#target = { kv, prefix: this.#prefix, prefixBytes: checked.bytes };
    this.#keys = {
      budget: MAX_KEY_BYTES - checked.bytes - 3,
      budgetReason: `Deno KV's 2048-byte key limit less ${
        checked.bytes + 3
      } bytes of prefix`,
    };
  }

  /** The key prefix, as given. */
  get prefix(): StorageKey {
    return [...this.#prefix];
  }

  /** Reads one value; see {@linkcode ActorStorage.get}. */
  async get<V = unknown>(key: StorageKey): Promise<V | undefined> {
    const checked = this.#check(key, "get from", "key");
    const entry = await this.#kv.get(this.#full([VALUES, ...checked]));
    return this.#resolve<V>(checked, entry.value);
  }

  /**
   * Reads several values in order; see {@linkcode ActorStorage.getMany}.
   * One snapshot read per 10 keys, in parallel.
   */
  async getMany<V = unknown>(
    keys: readonly StorageKey[],
  ): Promise<Array<V | undefined>> {
    if (!Array.isArray(keys)) {
      throw new TypeError(
        `Cannot getMany from KvStorage as 'keys' must be an array of keys: current value is ${keys}`,
      );
    }
    const checked = keys.map((key) => this.#check(key, "getMany from", "key"));
    const groups: Promise<Array<V | undefined>>[] = [];
    for (let i = 0; i < checked.length; i += KV_LIMITS.getMany) {
      const group = checked.slice(i, i + KV_LIMITS.getMany);
      groups.push(
        this.#kv.getMany(group.map((key) => this.#full([VALUES, ...key])))
          .then((entries) =>
            Promise.all(
              entries.map((entry, j) =>
                this.#resolve<V>(group[j], entry.value)
              ),
            )
          ),
      );
    }
    return (await Promise.all(groups)).flat();
  }

  /** Writes one value; see {@linkcode ActorStorage.put}. */
  put(key: StorageKey, value: unknown): Promise<void> {
    return this.#enqueue([{ type: "put", key, value }], "put to", true);
  }

  /** Removes one key and any parts; see {@linkcode ActorStorage.delete}. */
  delete(key: StorageKey): Promise<void> {
    return this.#enqueue([{ type: "delete", key }], "delete from", true);
  }

  /** Lists entries under a prefix in key order; see {@linkcode ActorStorage.list}. */
  async list<V = unknown>(
    prefix: StorageKey,
    options: ListOptions = {},
  ): Promise<Array<[StorageKey, V]>> {
    const action = "list KvStorage";
    const checked = checkKey(prefix, {
      ...this.#keys,
      action,
      param: "prefix",
      allowEmpty: true,
    }).key;
    const limit = options.limit === undefined
      ? undefined
      : requirePositiveInteger(
        options.limit,
        { action, param: "options.limit" },
      );
    const out: Array<[StorageKey, V]> = [];
    const skip = this.#prefix.length + 1;
    const entries = this.#kv.list(
      { prefix: this.#full([VALUES, ...checked]) },
      {
        limit,
      },
    );
    for await (const entry of entries) {
      const key = entry.key.slice(skip) as StorageKeyPart[];
      if (options.keysOnly) {
        out.push([key, undefined as V]);
        continue;
      }
      const value = await this.#resolve<V>(key, entry.value);
      // Deleted since listed (stored values are never undefined): skip it.
      if (value !== undefined) out.push([key, value]);
    }
    return out;
  }

  /**
   * Applies a batch all-or-nothing; see {@linkcode ActorStorage.atomic} and
   * the class documentation for how a batch larger than one commit is split.
   *
   * @param ops The operations, applied in order; the last per key wins.
   * @param options Extra checks for the commit that makes the batch
   * visible, and keys known to hold nothing.
   * @throws {AtomicConflictError} If a check failed (`ok: false`).
   */
  atomic(
    ops: readonly StorageOp[],
    options?: KvAtomicOptions,
  ): Promise<void> {
    return this.#enqueue(ops, "commit to", false, options);
  }

  /**
   * Deletes the parts that a crashed write left behind (staged and never
   * switched to, or replaced and not yet deleted). The first write of each
   * instance runs it; a runtime may also call it on activation. A writer
   * still staging under this prefix is fenced: its switch fails with
   * {@linkcode AtomicConflictError}.
   *
   * @returns How many markers were swept.
   */
  sweep(): Promise<number> {
    return this.#exclusive(() => sweepMarkers(this.#target));
  }

  #check(key: unknown, verb: string, param: string): StorageKey {
    return checkKey(key, { ...this.#keys, action: `${verb} KvStorage`, param })
      .key;
  }

  #full(relative: readonly StorageKeyPart[]): Deno.KvKey {
    return [...this.#prefix, ...relative];
  }

  #exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#writes.then(fn);
    this.#writes = run.catch(() => {});
    return run;
  }

  #enqueue(
    ops: readonly StorageOp[],
    verb: string,
    single: boolean,
    options?: KvAtomicOptions,
  ): Promise<void> {
    try {
      // Checked and serialised now, so a bad batch fails before any I/O.
      const action = `${verb} KvStorage`;
      const { checks = [], absent } = check.options(options, action);
      const resolved = resolveOps(ops, action, this.#keys, single);
      const ids = new Set(
        check.absent(
          absent,
          action,
          (key, param) => orderedKey(this.#check(key, verb, param)),
        ),
      );
      return this.#exclusive(() => this.#commit(resolved, checks, ids));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  async #commit(
    ops: readonly ResolvedOp[],
    checks: readonly Deno.AtomicCheck[],
    absent: ReadonlySet<string>,
  ): Promise<void> {
    if (!this.#swept) {
      this.#swept = true;
      await sweepMarkers(this.#target);
    }
    // Only what this storage did not write itself is read first.
    const { unknown, old } = this.#known?.split(ops, absent) ??
      { unknown: ops, old: new Map<string, Manifest>() };
    for (const [id, manifest] of await readReplaced(this.#target, unknown)) {
      old.set(id, manifest);
    }
    const plan = planCommit({
      ops,
      old,
      prefixBytes: this.#target.prefixBytes,
      checks: {
        count: checks.length,
        bytes: checks.reduce((sum, c) => sum + kvKeySize(c.key), 0),
      },
    });
    try {
      await runPlan(this.#target, plan, checks);
    } catch (error) {
      this.#known?.forget();
      throw error;
    }
    this.#known?.committed(ops, plan);
  }

  async #resolve<V>(key: StorageKey, raw: unknown): Promise<V | undefined> {
    for (let attempt = 1; raw !== null; attempt++) {
      const stored = readStored(raw, `key ${describeKey(key)} of KvStorage`);
      if ("inline" in stored) return decodeStored<V>(stored.inline);
      const bytes = await readChunks(
        this.#kv,
        this.#prefix,
        stored.manifest,
      );
      if (bytes !== null) return decodeStored<V>(bytes);
      if (attempt === READ_ATTEMPTS) {
        throw new Error(
          `Cannot read key ${
            describeKey(key)
          } of KvStorage as parts of its value are missing: version ${stored.manifest.version} should have ${stored.manifest.parts} parts; read ${attempt} times`,
        );
      }
      // A write replaced the value since the manifest was read: read again.
      raw = (await this.#kv.get(this.#full([VALUES, ...key]))).value;
    }
    return undefined;
  }
}
