/**
 * The timers of one domain (event time or processing time) behind the
 * window operator's `TimerService`: pending `(id, timestamp)`
 * pairs, bucketed by timestamp and fired in ascending (timestamp, id) order.
 *
 * @module
 */

import { BucketQueue } from "./_bucket_queue.ts";
import {
  ascending,
  type Bucket,
  insertSorted,
  NO_IDS,
} from "./_timer_bucket.ts";

/**
 * The index value of an id without pending timers (never equal to a
 * timestamp, so `has` needs no extra test).
 */
const EMPTY = NaN;
/** Marked entries the index keeps before sweeping them, at the least. */
const SWEEP_FLOOR = 1024;

/**
 * The timers of one domain. Timers that share a timestamp (the window
 * operator registers one per key for every window end) share a bucket, and
 * a {@linkcode BucketQueue} orders the distinct timestamps and finds them.
 * A new timer at a known timestamp costs a lookup and a push. The index
 * maps each id to the timestamp of its one timer, or to an array once it has
 * several; it decides which bucket entries are live.
 *
 * An id whose last timer goes keeps its index entry, as {@linkcode EMPTY},
 * until `deleteAll` (the window operator calls it as the window goes): a
 * window that moves its timer (a session growing, a trigger that deletes and
 * re-registers) would otherwise delete and re-insert its key every time, and
 * V8's Map leaves each deleted entry in the key's hash chain until the
 * table is rebuilt, so every later miss of that key walks all its dead
 * copies (microseconds per record in a large index). Ids that never get
 * `deleteAll` (a TimerService used directly) cannot pile up: once the marked
 * entries outnumber the others (and a floor), one sweep drops them all,
 * O(1) amortised per marking, so the index stays within about twice its
 * ids with timers.
 *
 * It checks nothing: `TimerService` validates ids and timestamps.
 */
export class TimerQueue {
  #queue = new BucketQueue();
  #index = new Map<number, number | number[]>();
  // Index entries that are EMPTY.
  #marked = 0;
  #size = 0;
  // Buckets with live timers. A bucket whose last timer is deleted stays in
  // the queue, dead, until it reaches the top of the queue or dead buckets
  // are dropped; registering at its timestamp before then revives it.
  #liveBuckets = 0;

  /** The number of pending timers. */
  get size(): number {
    return this.#size;
  }

  /**
   * The ids the index holds: those with pending timers, and those whose
   * last timer went since their `deleteAll` (bounded, see the class).
   */
  get indexedIds(): number {
    return this.#index.size;
  }

  /** Whether the `(id, timestamp)` timer is pending. */
  has(id: number, timestamp: number): boolean {
    const slot = this.#index.get(id);
    if (slot === undefined) return false;
    if (typeof slot === "number") return slot === timestamp;
    return slot.includes(timestamp);
  }

  /** Adds a timer; a no-op if the pair is pending. */
  add(id: number, timestamp: number): void {
    const index = this.#index;
    const slot = index.get(id);
    // The duplicate case returns before allocating: an event-time trigger
    // re-registers the same timer for every record of its window.
    if (slot === undefined) {
      index.set(id, timestamp);
    } else if (typeof slot === "number") {
      if (slot === timestamp) return;
      if (slot !== slot) {
        // EMPTY: the entry is reused in place.
        index.set(id, timestamp);
        this.#marked--;
      } else {
        index.set(id, [slot, timestamp]);
      }
    } else {
      for (let i = 0; i < slot.length; i++) {
        if (slot[i] === timestamp) return;
      }
      slot.push(timestamp);
    }
    this.#size++;
    const bucket = this.#queue.find(timestamp);
    if (bucket === undefined) {
      this.#push({ timestamp, ids: [id], live: 1, cursor: 0, sorted: true });
    } else if (bucket.live++ === 0) {
      bucket.ids = [id];
      this.#liveBuckets++;
    } else {
      const ids = bucket.ids;
      // Ids are interned in ascending order, so they usually arrive sorted
      // and firing never has to sort.
      if (id >= ids[ids.length - 1]) {
        ids.push(id);
      } else if (bucket.cursor === 0) {
        ids.push(id);
        bucket.sorted = false;
      } else {
        insertSorted(bucket, id);
      }
    }
  }

  /** Deletes a timer; a no-op if it is not pending. */
  delete(id: number, timestamp: number): void {
    if (this.#unindex(id, timestamp)) this.#release(timestamp);
  }

  /** Deletes every timer of `id` and releases its index entry. */
  deleteAll(id: number): void {
    const index = this.#index;
    const slot = index.get(id);
    if (slot === undefined) return;
    // Dropping the key releases the id; doing it first lets the compactions
    // below see every timer of the id as gone.
    index.delete(id);
    if (slot !== slot) this.#marked--;
    else this.#releaseAll(slot);
  }

  /**
   * Deletes every timer of `id` but keeps its index entry, for an id that
   * registers timers again (a window growing in place).
   */
  clearId(id: number): void {
    const index = this.#index;
    const slot = index.get(id);
    if (slot === undefined || slot !== slot) return;
    this.#mark(id);
    this.#releaseAll(slot);
  }

  /** The timestamp that fires next, or `Infinity` if none is pending. */
  nextTimestamp(): number {
    return this.#peek()?.timestamp ?? Infinity;
  }

  /**
   * Fires every timer at or below `limit`, in (timestamp, id) order, each
   * removed before `onTimer` runs.
   */
  advance(
    limit: number,
    onTimer: (id: number, timestamp: number) => void,
  ): void {
    // Peek on every turn rather than collecting first: a callback may add a
    // timer at or below `limit` (it fires in this call, even into the bucket
    // being fired or one below it) or delete one that is due (it must not
    // fire), as in Flink's `advanceWatermark` loop.
    for (let next = this.#peek(); next !== undefined; next = this.#peek()) {
      if (next.timestamp > limit) return;
      // Removed before the callback, so the callback sees it gone and may
      // register the same (id, timestamp) afresh.
      onTimer(this.#take(next), next.timestamp);
    }
  }

  /** Returns the live timers in firing order, flattened as `[id, ts, ...]`. */
  toFlat(): number[] {
    const buckets = this.#queue.all().filter((bucket) => bucket.live > 0);
    // The queue holds each timestamp once, so no two compare equal.
    buckets.sort((a, b) => a.timestamp < b.timestamp ? -1 : 1);
    const flat: number[] = [];
    for (const bucket of buckets) {
      const ids = bucket.ids.slice(bucket.cursor);
      if (!bucket.sorted) ids.sort(ascending);
      const timestamp = bucket.timestamp;
      for (let i = 0; i < ids.length; i++) {
        const id = ids[i];
        if ((i === 0 || id !== ids[i - 1]) && this.has(id, timestamp)) {
          flat.push(id, timestamp);
        }
      }
    }
    return flat;
  }

  /** Drops every timer. */
  clear(): void {
    this.#queue = new BucketQueue();
    this.#index.clear();
    this.#marked = 0;
    this.#size = 0;
    this.#liveBuckets = 0;
  }

  /** The live bucket that fires next, after dropping dead ones from the top. */
  #peek(): Bucket | undefined {
    const queue = this.#queue;
    let top = queue.top();
    while (top !== undefined && top.live === 0) {
      queue.pop();
      top = queue.top();
    }
    return top;
  }

  /** Fires the first live timer of `bucket`, the top of the queue. */
  #take(bucket: Bucket): number {
    // An unsorted bucket has not started firing, so there is no consumed
    // prefix to keep out of the sort.
    if (!bucket.sorted) {
      bucket.ids.sort(ascending);
      bucket.sorted = true;
    }
    const ids = bucket.ids;
    const timestamp = bucket.timestamp;
    let cursor = bucket.cursor;
    // A live bucket has a pending pair, so an entry at or after the cursor
    // that the index still lists: the scan stops within the array.
    let id = ids[cursor++];
    while (!this.#unindex(id, timestamp)) id = ids[cursor++];
    bucket.cursor = cursor;
    this.#size--;
    if (--bucket.live === 0) {
      this.#liveBuckets--;
      this.#queue.pop();
    }
    return id;
  }

  /** Drops the `(id, timestamp)` pair from the index; `false` if absent. */
  #unindex(id: number, timestamp: number): boolean {
    const index = this.#index;
    const slot = index.get(id);
    if (slot === undefined) return false;
    if (typeof slot === "number") {
      if (slot !== timestamp) return false;
      this.#mark(id);
      return true;
    }
    const i = slot.indexOf(timestamp);
    if (i < 0) return false;
    slot.splice(i, 1);
    if (slot.length === 1) index.set(id, slot[0]);
    return true;
  }

  /** Marks `id` as without timers; it had some. */
  #mark(id: number): void {
    const index = this.#index;
    index.set(id, EMPTY);
    if (++this.#marked > SWEEP_FLOOR && this.#marked > index.size >>> 1) {
      this.#sweep();
    }
  }

  /** Releases the timers an index entry listed. */
  #releaseAll(slot: number | number[]): void {
    if (typeof slot === "number") {
      this.#release(slot);
    } else {
      for (let i = 0; i < slot.length; i++) this.#release(slot[i]);
    }
  }

  /** Drops the EMPTY entries of the index. */
  #sweep(): void {
    const index = this.#index;
    // Deleting the entry being visited is safe while a Map iterates.
    index.forEach((slot, id) => {
      if (slot !== slot) index.delete(id);
    });
    this.#marked = 0;
  }

  /** Accounts for a pending timer at `timestamp` the index no longer lists. */
  #release(timestamp: number): void {
    const bucket = this.#queue.find(timestamp)!;
    this.#size--;
    if (--bucket.live > 0) {
      // Tombstones cost memory until fired past; compacting once they
      // outnumber the live entries keeps a bucket within twice its live
      // count, at O(log b) amortised per deletion (each compaction removes
      // at least half of its b entries, and sorts them at most once).
      if (bucket.ids.length > 2 * bucket.live) this.#compact(bucket);
      return;
    }
    bucket.ids = NO_IDS;
    bucket.cursor = 0;
    bucket.sorted = true;
    this.#liveBuckets--;
    // Likewise dead buckets: dropping them once they outnumber the live
    // ones keeps the queue within twice the live buckets.
    const queue = this.#queue;
    if (queue.size - this.#liveBuckets > this.#liveBuckets) queue.dropDead();
  }

  /** Keeps only the live entries from the cursor on, sorted and unique. */
  #compact(bucket: Bucket): void {
    const ids = bucket.ids;
    const cursor = bucket.cursor;
    if (cursor > 0) {
      ids.copyWithin(0, cursor);
      ids.length -= cursor;
    }
    if (!bucket.sorted) ids.sort(ascending);
    const timestamp = bucket.timestamp;
    let kept = 0;
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i];
      // Sorted, a stale entry sits next to the fresh one of its pair.
      if (kept > 0 && ids[kept - 1] === id) continue;
      if (this.has(id, timestamp)) ids[kept++] = id;
    }
    ids.length = kept;
    bucket.cursor = 0;
    bucket.sorted = true;
  }

  #push(bucket: Bucket): void {
    this.#liveBuckets++;
    this.#queue.push(bucket);
  }
}
