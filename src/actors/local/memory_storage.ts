/**
 * {@linkcode MemoryStorage}: an actor's storage in process memory, for
 * tests and for state that need not outlive the process.
 *
 * @module
 */

import type {
  ActorStorage,
  ListOptions,
  StorageKey,
  StorageOp,
} from "../storage.ts";
import { checkKey, type KeyCheck } from "../_storage_keys.ts";
import { Encoded } from "../_codec.ts";
import { resolveOps } from "../_resolve_ops.ts";
import {
  fitsInline,
  type Manifest,
  MAX_KEY_BYTES,
  orderedKey,
  planCommit,
  sizingManifest,
} from "../../kv/mod.ts";
import { requirePositiveInteger } from "../../time/validate.ts";

interface Entry {
  readonly key: StorageKey;
  readonly value: Encoded;
  readonly bytes: number;
}

// The value subspace tag that KvStorage adds to every key: 3 bytes.
const KEY_BUDGET = MAX_KEY_BYTES - 3;
const KEYS: Omit<KeyCheck, "action" | "param"> = {
  budget: KEY_BUDGET,
  budgetReason: "Deno KV's 2048-byte key limit less 3 bytes of layout",
};

/**
 * An {@linkcode ActorStorage} in a sorted in-memory map, with the same
 * contract as {@linkcode KvStorage}: values go through superjson (a
 * checkpoint's snapshots: V8's structured-clone format) on every write and
 * read (so callers never share objects with the store, and what cannot be
 * stored in KV fails here too), keys sort in Deno KV's order, and
 * an atomic batch is checked against the limits of one Deno KV commit as if
 * it were stored under an empty prefix.
 *
 * Cost: a read or write serialises the value; `list` is a binary search plus
 * one step per entry returned; a write is a binary search plus an array
 * insertion (O(n) in the number of keys). Not shared between processes.
 *
 * @example Round trip of a value with a Map and -Infinity
 * ```ts
 * import { MemoryStorage } from "./memory_storage.ts";
 * import assert from "node:assert/strict";
 *
 * const storage = new MemoryStorage();
 * await storage.put(["state", 1], { low: -Infinity, seen: new Map([["a", 2]]) });
 * const state = await storage.get<{ low: number; seen: Map<string, number> }>(["state", 1]);
 * assert.equal(state?.low, -Infinity);
 * assert.equal(state?.seen.get("a"), 2);
 * ```
 */
export class MemoryStorage implements ActorStorage {
  #entries = new Map<string, Entry>();
  // Ordered keys (see orderedKey): string comparison is Deno KV's order.
  #order: string[] = [];

  /** Reads one value; see {@linkcode ActorStorage.get}. */
  get<V = unknown>(key: StorageKey): Promise<V | undefined> {
    try {
      return Promise.resolve(this.#read<V>(key, "get from MemoryStorage"));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** Reads several values in order; see {@linkcode ActorStorage.getMany}. */
  getMany<V = unknown>(
    keys: readonly StorageKey[],
  ): Promise<Array<V | undefined>> {
    try {
      if (!Array.isArray(keys)) {
        throw new TypeError(
          `Cannot getMany from MemoryStorage as 'keys' must be an array of keys: current value is ${keys}`,
        );
      }
      return Promise.resolve(
        keys.map((key) => this.#read<V>(key, "getMany from MemoryStorage")),
      );
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** Writes one value; see {@linkcode ActorStorage.put}. */
  put(key: StorageKey, value: unknown): Promise<void> {
    return this.#commit([{ type: "put", key, value }], "put to", true);
  }

  /** Removes one key; see {@linkcode ActorStorage.delete}. */
  delete(key: StorageKey): Promise<void> {
    return this.#commit([{ type: "delete", key }], "delete from", true);
  }

  /** Lists entries under a prefix in key order; see {@linkcode ActorStorage.list}. */
  list<V = unknown>(
    prefix: StorageKey,
    options: ListOptions = {},
  ): Promise<Array<[StorageKey, V]>> {
    try {
      const action = "list MemoryStorage";
      const checked = checkKey(prefix, {
        ...KEYS,
        action,
        param: "prefix",
        allowEmpty: true,
      });
      const limit = options.limit === undefined
        ? Infinity
        : requirePositiveInteger(
          options.limit,
          { action, param: "options.limit" },
        );
      // Deno KV's range for a prefix: from prefix + 0x00 up to prefix + 0xff,
      // which leaves out the prefix itself and ["a\0"] under ["a"].
      const start = orderedKey(checked.key);
      const end = start + "\xff";
      const out: Array<[StorageKey, V]> = [];
      for (
        let i = this.#lowerBound(start + "\x00");
        i < this.#order.length && out.length < limit && this.#order[i] < end;
        i++
      ) {
        const entry = this.#entries.get(this.#order[i])!;
        out.push([
          [...entry.key],
          options.keysOnly ? undefined as V : entry.value.decode<V>(),
        ]);
      }
      return Promise.resolve(out);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Applies a batch all-or-nothing; see {@linkcode ActorStorage.atomic}.
   * Everything is checked before anything changes, so a rejected batch
   * leaves the storage as it was.
   */
  atomic(ops: readonly StorageOp[]): Promise<void> {
    return this.#commit(ops, "commit to", false);
  }

  #commit(
    ops: readonly StorageOp[],
    verb: string,
    single: boolean,
  ): Promise<void> {
    try {
      const resolved = resolveOps(ops, `${verb} MemoryStorage`, KEYS, single);
      // The same plan as KvStorage's, for its limits only.
      const old = new Map<string, Manifest>();
      for (const op of resolved) {
        const entry = this.#entries.get(op.id);
        if (entry && !fitsInline(entry.bytes)) {
          old.set(op.id, sizingManifest(entry.bytes));
        }
      }
      planCommit({ ops: resolved, old, prefixBytes: 0 });
      for (const op of resolved) {
        if (op.encoded === undefined) this.#remove(op.id);
        else {
          // What a KV store keeps: the payload, not the parts an Encoded
          // carries beside it (those are stored under their own keys).
          const value = op.encoded.parts.length === 0
            ? op.encoded
            : new Encoded(op.encoded.bytes, op.encoded.text);
          this.#insert(op.id, { key: op.key, value, bytes: op.bytes!.length });
        }
      }
      return Promise.resolve();
    } catch (error) {
      return Promise.reject(error);
    }
  }

  #read<V>(key: StorageKey, action: string): V | undefined {
    const checked = checkKey(key, { ...KEYS, action, param: "key" });
    const entry = this.#entries.get(orderedKey(checked.key));
    return entry === undefined ? undefined : entry.value.decode<V>();
  }

  #lowerBound(id: string): number {
    let low = 0;
    let high = this.#order.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.#order[mid] < id) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  #insert(id: string, entry: Entry): void {
    if (!this.#entries.has(id)) this.#order.splice(this.#lowerBound(id), 0, id);
    this.#entries.set(id, entry);
  }

  #remove(id: string): void {
    if (this.#entries.delete(id)) this.#order.splice(this.#lowerBound(id), 1);
  }
}
