// The bucket of one timestamp in a TimerQueue, and the helpers that keep
// its ids in firing order.

/**
 * The timers of one timestamp. `ids` holds an entry per registration since
 * the bucket was last compacted: deleting a timer leaves its entry behind as
 * a tombstone, and an entry counts only while the index still lists its
 * (id, timestamp) pair. So making a tombstone needs no search, and a pair
 * deleted and registered again has a stale entry and a fresh one; the first
 * to come up fires, and removing the pair from the index turns the other
 * into a tombstone. Entries before `cursor` have been fired or skipped;
 * every pending pair has an entry at or after it.
 */
export interface Bucket {
  readonly timestamp: number;
  ids: number[];
  /** The pending pairs at this timestamp; 0 marks a dead bucket. */
  live: number;
  cursor: number;
  /** Whether the entries from `cursor` on are in non-descending order. */
  sorted: boolean;
}

/**
 * What a dead bucket holds, so dying allocates nothing; reviving a bucket
 * gives it a fresh array, so this one is never written.
 */
export const NO_IDS: number[] = [];

/** Orders ids ascending, for `Array.prototype.sort`. */
export function ascending(a: number, b: number): number {
  return a - b;
}

/**
 * Inserts `id` into a bucket that has started firing, keeping the entries
 * from the cursor on sorted: sorting again for each timer a callback adds
 * there would cost O(b log b) per timer. The consumed entries before the
 * cursor are free space, so the shorter side moves: a timer that fires next
 * (a callback re-arming at the current time) costs O(1).
 */
export function insertSorted(bucket: Bucket, id: number): void {
  const ids = bucket.ids;
  const cursor = bucket.cursor;
  let lo = cursor;
  let hi = ids.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ids[mid] <= id) lo = mid + 1;
    else hi = mid;
  }
  if (lo - cursor < ids.length - lo) {
    for (let i = cursor; i < lo; i++) ids[i - 1] = ids[i];
    ids[lo - 1] = id;
    bucket.cursor = cursor - 1;
  } else {
    for (let i = ids.length; i > lo; i--) ids[i] = ids[i - 1];
    ids[lo] = id;
  }
}
