/**
 * {@linkcode CommitCost}: what one Deno KV commit costs against
 * {@linkcode KV_LIMITS}, counted as Deno KV counts it (ext/kv/lib.rs).
 *
 * @module
 */

import { KV_LIMITS } from "./limits.ts";
import type { PlainKey } from "./key_encoding.ts";
import { keyCost, type KvWrite, valueCost } from "./kv_write.ts";

/**
 * The running cost of one commit: mutations, bytes of keys and values, and
 * bytes of written keys. A key counts once in the payload; a set's key
 * counts again with its value, and in the total of written keys.
 *
 * The `*Sized` methods take sizes their caller computed (a storage counts
 * its prefix and relative key apart); the others size full keys with
 * {@linkcode keyCost}.
 *
 * @example Does one more set fit?
 * ```ts
 * import { CommitCost } from "./commit_cost.ts";
 * import assert from "node:assert/strict";
 *
 * const cost = new CommitCost();
 * cost.addSet(["log", "seq"], 16);
 * assert.ok(cost.fitsWith({ key: ["log", 1], value: new Uint8Array(60_000) }));
 * assert.ok(cost.fits());
 * ```
 */
export class CommitCost {
  /** Mutations so far. */
  mutations = 0;
  /** Bytes of keys and values so far, checks included. */
  payload: number;
  /** Bytes of written keys so far. */
  keys = 0;

  /**
   * Starts an empty commit.
   *
   * @param checkBytes Bytes of the keys of checks already planned.
   */
  constructor(checkBytes = 0) {
    this.payload = checkBytes;
  }

  /**
   * Counts a check of `key`.
   *
   * @param key A full key.
   */
  addCheck(key: PlainKey): void {
    this.payload += keyCost(key);
  }

  /**
   * Counts a set of `key` to a value of `valueBytes` bytes.
   *
   * @param key A full key.
   * @param valueBytes The value's size.
   */
  addSet(key: PlainKey, valueBytes: number): void {
    this.addSized(keyCost(key), valueBytes);
  }

  /**
   * Counts a write.
   *
   * @param write A set or a delete.
   */
  add(write: KvWrite): void {
    this.addSized(keyCost(write.key), valueCost(write));
  }

  /**
   * Whether the commit fits with one more write.
   *
   * @param write A set or a delete.
   * @returns `true` if it fits.
   */
  fitsWith(write: KvWrite): boolean {
    return this.fitsWithSized(keyCost(write.key), valueCost(write));
  }

  /**
   * Counts a mutation of a key of `keyBytes` bytes.
   *
   * @param keyBytes The key's size.
   * @param valueBytes The value's size, or `null` for a delete.
   */
  addSized(keyBytes: number, valueBytes: number | null): void {
    this.mutations++;
    if (valueBytes === null) this.payload += keyBytes;
    else {
      this.payload += 2 * keyBytes + valueBytes;
      this.keys += keyBytes;
    }
  }

  /**
   * Whether the commit fits with one more mutation.
   *
   * @param keyBytes The key's size.
   * @param valueBytes The value's size, or `null` for a delete.
   * @returns `true` if it fits.
   */
  fitsWithSized(keyBytes: number, valueBytes: number | null): boolean {
    const payload = valueBytes === null ? keyBytes : 2 * keyBytes + valueBytes;
    const keys = valueBytes === null ? 0 : keyBytes;
    return this.mutations + 1 <= KV_LIMITS.mutations &&
      this.payload + payload <= KV_LIMITS.mutationBytes &&
      this.keys + keys <= KV_LIMITS.keyTotalBytes;
  }

  /**
   * Whether the commit fits the limits (checks apart: the caller counts them).
   *
   * @returns `true` if it fits.
   */
  fits(): boolean {
    return this.mutations <= KV_LIMITS.mutations &&
      this.payload <= KV_LIMITS.mutationBytes &&
      this.keys <= KV_LIMITS.keyTotalBytes;
  }
}
