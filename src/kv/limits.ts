/**
 * {@linkcode MAX_KEY_BYTES} and {@linkcode KV_LIMITS}: Deno KV's documented
 * limits on one key, one value and one atomic commit, which every writer
 * in weir plans against.
 *
 * @module
 */

/**
 * Deno KV's limit on one encoded key, in bytes (see
 * {@linkcode encodedKeySize}).
 */
export const MAX_KEY_BYTES = 2048;

/**
 * Deno KV's limits (ext/kv/lib.rs), and KV Connect's on checks and reads.
 *
 * - `valueBytes`: one value; a larger one is split into parts
 *   (see {@linkcode chunkValue}).
 * - `mutations`: mutations per atomic commit.
 * - `mutationBytes`: keys and values per commit (checks' keys included;
 *   a set's key counts twice).
 * - `keyTotalBytes`: the keys written by one commit.
 * - `checks`: checks per atomic commit (KV Connect's limit).
 * - `getMany`: keys per `getMany` call.
 *
 * @example Fitting a value
 * ```ts
 * import { KV_LIMITS } from "./limits.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(KV_LIMITS.valueBytes, 64 * 1024);
 * ```
 */
export const KV_LIMITS = {
  valueBytes: 65_536,
  mutations: 1000,
  mutationBytes: 819_200,
  keyTotalBytes: 81_920,
  checks: 10,
  getMany: 10,
} as const;
