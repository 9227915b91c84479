/**
 * The per-key reference counts of one segment of a
 * {@linkcode SegmentedQueue} (Flink Agents' `KeySegment`).
 *
 * @module
 */

/**
 * Counts, per key, the input records that arrived between two watermarks and
 * have not finished yet (Flink Agents' `KeySegment`).
 *
 * A key is present exactly while its count is above zero: the first
 * {@linkcode KeySegment.incrementKeyReference} inserts it with 1, and the
 * {@linkcode KeySegment.decrementKeyReference} that takes it from 1 removes
 * it. Decrementing a key that is not present does nothing. Keys are compared
 * as `Map` keys (SameValueZero), so use primitives (strings, numbers) rather
 * than objects rebuilt per record.
 *
 * Cost: every method is one `Map` operation; the segment also keeps the
 * total of all counts so that it is read in constant time. Not thread safe.
 *
 * @typeParam K The key type, usually the stream's `keyBy` key.
 *
 * @example Counts go up and down per key
 * ```ts
 * import { KeySegment } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const segment = new KeySegment<string>();
 * segment.incrementKeyReference("userA");
 * segment.incrementKeyReference("userA");
 * segment.decrementKeyReference("userA");
 * assert.equal(segment.referenceCount("userA"), 1);
 * segment.decrementKeyReference("userA");
 * assert.equal(segment.isEmpty(), true);
 * ```
 */
export class KeySegment<K> {
  readonly #counts = new Map<K, number>();
  #total = 0;

  /** The number of distinct keys with a count above zero. */
  get keyCount(): number {
    return this.#counts.size;
  }

  /** The sum of all counts: unfinished input records in this segment. */
  get totalReferences(): number {
    return this.#total;
  }

  /**
   * Adds one unfinished record for `key`, or `count` of them.
   *
   * @param key The record's key.
   * @param count How many records; a positive safe integer, not checked
   * here (a restore checks it at the boundary).
   */
  incrementKeyReference(key: K, count = 1): void {
    this.#counts.set(key, (this.#counts.get(key) ?? 0) + count);
    this.#total += count;
  }

  /**
   * Takes one unfinished record of `key` away, removing the key when its
   * count was 1. A key that is not present is left alone.
   *
   * @param key The finished record's key.
   * @returns Whether the key was present (and so was decremented).
   */
  decrementKeyReference(key: K): boolean {
    const count = this.#counts.get(key);
    if (count === undefined) return false;
    if (count <= 1) this.#counts.delete(key);
    else this.#counts.set(key, count - 1);
    this.#total--;
    return true;
  }

  /**
   * Returns whether `key` has unfinished records in this segment.
   *
   * @param key The key to look up.
   * @returns `true` while the key's count is above zero.
   */
  hasActiveKey(key: K): boolean {
    return this.#counts.has(key);
  }

  /**
   * Returns how many unfinished records `key` has in this segment.
   *
   * @param key The key to look up.
   * @returns The count, 0 for a key that is not present.
   */
  referenceCount(key: K): number {
    return this.#counts.get(key) ?? 0;
  }

  /**
   * Returns whether no key has unfinished records.
   *
   * @returns `true` for a drained segment.
   */
  isEmpty(): boolean {
    return this.#counts.size === 0;
  }

  /**
   * Returns the counts as `[key, count]` pairs in first-insertion order,
   * detached from the segment.
   *
   * @returns One pair per present key; every count is at least 1.
   */
  entries(): [K, number][] {
    return Array.from(this.#counts);
  }
}
