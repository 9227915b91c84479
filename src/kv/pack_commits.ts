/**
 * Packing mutations, in order, into as few Deno KV commits as
 * {@linkcode KV_LIMITS} allow: {@linkcode packBySize} for any mutation,
 * {@linkcode packCommits} and {@linkcode commitAll} for
 * {@linkcode KvWrite}s.
 *
 * @module
 */

import { CommitCost } from "./commit_cost.ts";
import { applyWrites, keyCost, type KvWrite, valueCost } from "./kv_write.ts";

/** How {@linkcode packBySize} sizes one mutation. */
export interface CommitSizer<T> {
  /** The bytes its key counts for. */
  keyBytes(item: T): number;
  /** The bytes its value counts for, or `null` for a delete. */
  valueBytes(item: T): number | null;
  /**
   * Bytes to leave in each commit for the keys of checks.
   * @default {0}
   */
  readonly checkBytes?: number;
}

/**
 * Splits mutations, in order, into as few commits as the limits allow. A
 * mutation too large for any commit gets one of its own (the commit then
 * fails; callers keep values under the value limit).
 *
 * Cost: one pass; no copy of the mutations.
 *
 * @param items The mutations, in order.
 * @param sizer How to size each.
 * @returns The commits, in order.
 * @example Two commits for 1,500 deletes
 * ```ts
 * import { packBySize } from "./pack_commits.ts";
 * import assert from "node:assert/strict";
 *
 * const deletes = Array.from({ length: 1_500 }, (_, i) => i);
 * const commits = packBySize(deletes, { keyBytes: () => 12, valueBytes: () => null });
 * assert.deepEqual(commits.map((c) => c.length), [1_000, 500]);
 * ```
 */
export function packBySize<T>(
  items: readonly T[],
  sizer: CommitSizer<T>,
): T[][] {
  const checkBytes = sizer.checkBytes ?? 0;
  const commits: T[][] = [];
  let current: T[] = [];
  let cost = new CommitCost(checkBytes);
  for (const item of items) {
    const keyBytes = sizer.keyBytes(item);
    const valueBytes = sizer.valueBytes(item);
    if (current.length > 0 && !cost.fitsWithSized(keyBytes, valueBytes)) {
      commits.push(current);
      current = [];
      cost = new CommitCost(checkBytes);
    }
    cost.addSized(keyBytes, valueBytes);
    current.push(item);
  }
  if (current.length > 0) commits.push(current);
  return commits;
}

const WRITES: CommitSizer<KvWrite> = {
  keyBytes: (write) => keyCost(write.key),
  valueBytes: valueCost,
};

/**
 * Splits writes, in order, into as few commits as the limits allow.
 *
 * @param writes The writes, in order.
 * @returns The commits, in order.
 */
export function packCommits(writes: readonly KvWrite[]): KvWrite[][] {
  return packBySize(writes, WRITES);
}

/**
 * Commits writes in as many commits as needed, one after the other: not
 * atomic as a whole, so only for writes that may land in steps.
 *
 * @param kv The database.
 * @param writes The writes, in order.
 */
export async function commitAll(
  kv: Deno.Kv,
  writes: readonly KvWrite[],
): Promise<void> {
  for (const commit of packCommits(writes)) {
    await applyWrites(kv.atomic(), commit).commit();
  }
}
