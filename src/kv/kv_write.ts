/**
 * {@linkcode KvWrite}: one mutation of a Deno KV commit as the connectors
 * plan it, with what it costs against the commit limits.
 *
 * @module
 */

import { encodedKeySize, type PlainKey } from "./key_encoding.ts";

/** One mutation of a commit: a set (with bytes or a number) or a delete. */
export interface KvWrite {
  /** The full Deno KV key: strings and numbers only. */
  readonly key: PlainKey;
  /** The value to set, or `null` to delete. */
  readonly value: Uint8Array | number | null;
}

/**
 * The bytes a key counts for in Deno KV's commit limits: one byte more
 * than its encoding, to stay on the safe side of the server's accounting.
 *
 * @param key A full key.
 * @returns Its cost in bytes.
 */
export function keyCost(key: PlainKey): number {
  return encodedKeySize(key) + 1;
}

/**
 * The bytes a write's value counts for, or `null` for a delete. A number
 * is V8-serialised by Deno KV: a few bytes, of which 16 is a bound.
 *
 * @param write A write.
 * @returns Its value's cost in bytes, or `null`.
 */
export function valueCost(write: KvWrite): number | null {
  const value = write.value;
  if (value === null) return null;
  return typeof value === "number" ? 16 : value.length;
}

/**
 * Applies writes to an atomic operation, in order.
 *
 * @param op The operation, e.g. `kv.atomic()` with its checks.
 * @param writes The writes.
 * @returns `op`, to chain `commit()`.
 */
export function applyWrites(
  op: Deno.AtomicOperation,
  writes: readonly KvWrite[],
): Deno.AtomicOperation {
  for (const write of writes) {
    if (write.value === null) op.delete(write.key as Deno.KvKey);
    else op.set(write.key as Deno.KvKey, write.value);
  }
  return op;
}
