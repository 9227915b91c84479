/**
 * The event-time and processing-time timers of the window operator.
 *
 * @module
 */

import {
  describeValue,
  requireFunction,
  requireNonNegativeInteger,
  requireWatermark,
  type Subject,
} from "../time/_validate.ts";

/**
 * The plain-data form of a {@linkcode TimerService}, as stored in a checkpoint.
 *
 * Each timer list is flattened as `[id0, ts0, id1, ts1, ...]` in firing
 * order: ascending timestamp, then ascending id.
 */
export interface TimerServiceSnapshot {
  /** The watermark the service had seen; `-Infinity` before the first. */
  currentWatermark: number;
  /** The pending event-time timers as flattened `(id, timestamp)` pairs. */
  eventTime: number[];
  /** The pending processing-time timers as flattened `(id, timestamp)` pairs. */
  processingTime: number[];
}

// The timers of one timestamp. `ids` holds an entry per registration since
// the bucket was last compacted: deleting a timer leaves its entry behind as
// a tombstone, and an entry counts only while the index still lists its
// (id, timestamp) pair. So making a tombstone needs no search, and a pair
// deleted and registered again has a stale entry and a fresh one; the first
// to come up fires, and removing the pair from the index turns the other
// into a tombstone. Entries before `cursor` have been fired or skipped;
// every pending pair has an entry at or after it.
interface Bucket {
  readonly timestamp: number;
  ids: number[];
  /** The pending pairs at this timestamp; 0 marks a dead bucket. */
  live: number;
  cursor: number;
  /** Whether the entries from `cursor` on are in non-descending order. */
  sorted: boolean;
}

// What a dead bucket holds, so dying allocates nothing; reviving a bucket
// gives it a fresh array, so this one is never written.
const NO_IDS: number[] = [];

function ascending(a: number, b: number): number {
  return a - b;
}

// Inserts `id` into a bucket that has started firing, keeping the entries
// from the cursor on sorted: sorting again for each timer a callback adds
// there would cost O(b log b) per timer. The consumed entries before the
// cursor are free space, so the shorter side moves: a timer that fires next
// (a callback re-arming at the current time) costs O(1).
function insertSorted(bucket: Bucket, id: number): void {
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

// The timers of one domain. Timers that share a timestamp (the window
// operator registers one per key for every window end) share a bucket, and
// a binary min-heap orders the distinct timestamps. A new timer at a known
// timestamp costs a Map lookup and a push, not a heap insertion. The index
// maps each id to the timestamp of its one timer, or to an array once it has
// several; it decides which bucket entries are live.
class TimerQueue {
  #heap: Bucket[] = [];
  #buckets = new Map<number, Bucket>();
  #index = new Map<number, number | number[]>();
  #size = 0;
  // Buckets with live timers. A bucket whose last timer is deleted stays in
  // the heap and the map, dead, until it reaches the top of the heap or the
  // heap is rebuilt; registering at its timestamp before then revives it.
  #liveBuckets = 0;

  get size(): number {
    return this.#size;
  }

  has(id: number, timestamp: number): boolean {
    const slot = this.#index.get(id);
    if (slot === undefined) return false;
    if (typeof slot === "number") return slot === timestamp;
    return slot.includes(timestamp);
  }

  add(id: number, timestamp: number): void {
    const index = this.#index;
    const slot = index.get(id);
    // The duplicate case returns before allocating: an event-time trigger
    // re-registers the same timer for every record of its window.
    if (slot === undefined) {
      index.set(id, timestamp);
    } else if (typeof slot === "number") {
      if (slot === timestamp) return;
      index.set(id, [slot, timestamp]);
    } else {
      for (let i = 0; i < slot.length; i++) {
        if (slot[i] === timestamp) return;
      }
      slot.push(timestamp);
    }
    this.#size++;
    const bucket = this.#buckets.get(timestamp);
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

  delete(id: number, timestamp: number): void {
    if (this.#unindex(id, timestamp)) this.#release(timestamp);
  }

  deleteAll(id: number): void {
    const slot = this.#index.get(id);
    if (slot === undefined) return;
    // Dropping the key releases the id; doing it first lets the compactions
    // below see every timer of the id as gone.
    this.#index.delete(id);
    if (typeof slot === "number") {
      this.#release(slot);
    } else {
      for (let i = 0; i < slot.length; i++) this.#release(slot[i]);
    }
  }

  /** The live bucket that fires next, after dropping dead ones from the top. */
  peek(): Bucket | undefined {
    const heap = this.#heap;
    while (heap.length > 0 && heap[0].live === 0) {
      this.#buckets.delete(heap[0].timestamp);
      this.#pop();
    }
    return heap[0];
  }

  advance(
    limit: number,
    onTimer: (id: number, timestamp: number) => void,
  ): void {
    // Peek on every turn rather than collecting first: a callback may add a
    // timer at or below `limit` (it fires in this call, even into the bucket
    // being fired or one below it) or delete one that is due (it must not
    // fire), as in Flink's `advanceWatermark` loop.
    for (let next = this.peek(); next !== undefined; next = this.peek()) {
      if (next.timestamp > limit) return;
      // Removed before the callback, so the callback sees it gone and may
      // register the same (id, timestamp) afresh.
      onTimer(this.#take(next), next.timestamp);
    }
  }

  /** The live timers in firing order, flattened as `[id, ts, ...]`. */
  toFlat(): number[] {
    const buckets = this.#heap.filter((bucket) => bucket.live > 0);
    // The heap holds each timestamp once, so no two compare equal.
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

  clear(): void {
    this.#heap = [];
    this.#buckets.clear();
    this.#index.clear();
    this.#size = 0;
    this.#liveBuckets = 0;
  }

  /** Fires the first live timer of `bucket`, the top of the heap. */
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
      this.#buckets.delete(timestamp);
      this.#liveBuckets--;
      this.#pop();
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
      // Dropping the key releases the id once its last timer is gone.
      index.delete(id);
      return true;
    }
    const i = slot.indexOf(timestamp);
    if (i < 0) return false;
    slot.splice(i, 1);
    if (slot.length === 1) index.set(id, slot[0]);
    return true;
  }

  /** Accounts for a pending timer at `timestamp` the index no longer lists. */
  #release(timestamp: number): void {
    const bucket = this.#buckets.get(timestamp)!;
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
    // Likewise dead buckets: rebuilding once they outnumber the live ones
    // keeps the heap within twice the live buckets.
    const heap = this.#heap;
    if (heap.length - this.#liveBuckets <= this.#liveBuckets) return;
    const buckets = this.#buckets;
    const live: Bucket[] = [];
    for (let i = 0; i < heap.length; i++) {
      if (heap[i].live > 0) live.push(heap[i]);
      else buckets.delete(heap[i].timestamp);
    }
    this.#heap = live;
    for (let i = (live.length >>> 1) - 1; i >= 0; i--) this.#down(i);
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
    this.#buckets.set(bucket.timestamp, bucket);
    this.#liveBuckets++;
    const heap = this.#heap;
    const timestamp = bucket.timestamp;
    let i = heap.length;
    heap.push(bucket);
    while (i > 0) {
      const parent = (i - 1) >>> 1;
      if (!(timestamp < heap[parent].timestamp)) break;
      heap[i] = heap[parent];
      i = parent;
    }
    heap[i] = bucket;
  }

  #pop(): void {
    const heap = this.#heap;
    const last = heap.pop()!;
    if (heap.length === 0) return;
    heap[0] = last;
    this.#down(0);
  }

  #down(start: number): void {
    const heap = this.#heap;
    const n = heap.length;
    const bucket = heap[start];
    const timestamp = bucket.timestamp;
    let i = start;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      if (
        child + 1 < n && heap[child + 1].timestamp < heap[child].timestamp
      ) child++;
      if (!(heap[child].timestamp < timestamp)) break;
      heap[i] = heap[child];
      i = child;
    }
    heap[i] = bucket;
  }
}

// Action names and subjects are built once: these checks run per record.
const REGISTER_EVENT = "register event-time timer";
const DELETE_EVENT = "delete event-time timer";
const HAS_EVENT = "look up event-time timer";
const REGISTER_PROCESSING = "register processing-time timer";
const DELETE_PROCESSING = "delete processing-time timer";
const HAS_PROCESSING = "look up processing-time timer";
const RESTORE = "restore TimerService";
const DELETE_ALL_ID: Subject = { action: "delete all timers", param: "id" };
const WATERMARK: Subject = { action: "advance watermark", param: "watermark" };
const WATERMARK_CALLBACK: Subject = {
  action: "advance watermark",
  param: "onTimer",
};
const NOW: Subject = { action: "advance processing time", param: "now" };
const NOW_CALLBACK: Subject = {
  action: "advance processing time",
  param: "onTimer",
};

function checkTimer(id: number, timestamp: number, action: string): void {
  // The fast path is a few comparisons; the require* calls only build the
  // message (and pick TypeError or RangeError) once a check has failed.
  if (!(Number.isSafeInteger(id) && id >= 0)) {
    requireNonNegativeInteger(id, { action, param: "id" });
  }
  if (
    !Number.isSafeInteger(timestamp) && timestamp !== Infinity &&
    timestamp !== -Infinity
  ) {
    requireWatermark(timestamp, { action, param: "timestamp" });
  }
}

function checkPairs(value: unknown, field: string): number[] {
  const param = `snapshot.${field}`;
  if (!Array.isArray(value)) {
    throw new TypeError(
      `Cannot ${RESTORE} as '${param}' must be an array: current value is ${
        describeValue(value)
      }`,
    );
  }
  if (value.length % 2 !== 0) {
    throw new RangeError(
      `Cannot ${RESTORE} as '${param}' must hold (id, timestamp) pairs, an even number of entries: current length is ${value.length}`,
    );
  }
  for (let i = 0; i < value.length; i += 2) {
    requireNonNegativeInteger(value[i], {
      action: RESTORE,
      param: `${param}[${i}]`,
    });
    requireWatermark(value[i + 1], {
      action: RESTORE,
      param: `${param}[${i + 1}]`,
    });
  }
  return value;
}

/**
 * Holds the event-time and processing-time timers of one window operator
 * (Flink's `InternalTimerService`, §4.3).
 *
 * A timer is a pair `(timestamp, id)`, where `id` names an interned
 * (key, window) pair; the window operator never reuses an id. Each domain
 * stores a pair at most once: registering it again is a no-op, so a
 * trigger may re-register its timer for every record (§4.3 rule 1).
 * Deleting an absent timer is a no-op. The two domains are independent:
 * the same pair may be pending in both.
 *
 * {@linkcode TimerService.advanceWatermark} first raises `currentWatermark`,
 * then fires every due timer in ascending timestamp order, ties broken by
 * ascending id (a pair is unique, so this order is total). Registering a
 * timer never fires it, even when its timestamp is already at or below the
 * watermark: it fires on the next advance (§4.3 rule 2). Timestamps are
 * safe integers or `±Infinity`; a timer at `Infinity` fires only on
 * watermark `Infinity`, one at `-Infinity` on any advance.
 *
 * Cost: timers that share a timestamp share a bucket, and a min-heap
 * orders the distinct timestamps. With `k` the timers of an id (usually one
 * or two), `b` those of a timestamp and `t` the distinct timestamps:
 * looking up a timer costs O(k); registering costs O(k) plus O(1)
 * amortised, or O(log t) for the first timer at a timestamp, and a
 * duplicate registration allocates nothing; deleting costs O(k) plus
 * O(log b) amortised. Firing costs O(1) amortised per timer plus O(log t)
 * per timestamp; a timestamp whose ids were not registered in ascending
 * order is sorted once when it starts firing, and a timer a callback adds
 * to the timestamp being fired costs up to O(b). Deleted timers leave
 * tombstones, compacted away once they outnumber the live timers of their
 * timestamp; emptied timestamps leave the heap when they reach its top or
 * once they outnumber the live ones. So memory stays within twice the live
 * timers. Callbacks run synchronously, inside the advance call.
 *
 * @example A window timer fires once the watermark reaches it
 * ```ts
 * import { TimerService } from "./timer_service.ts";
 * import assert from "node:assert/strict";
 *
 * const timers = new TimerService();
 * timers.registerEventTimeTimer(7, 1_999);
 * timers.registerEventTimeTimer(7, 1_999); // stored once
 * const fired: Array<[number, number]> = [];
 * timers.advanceWatermark(1_998, (id, ts) => fired.push([id, ts]));
 * timers.advanceWatermark(1_999, (id, ts) => fired.push([id, ts]));
 * assert.deepEqual(fired, [[7, 1_999]]);
 * assert.equal(timers.numEventTimeTimers(), 0);
 * ```
 */
export class TimerService {
  #watermark = -Infinity;
  readonly #eventTime = new TimerQueue();
  readonly #processingTime = new TimerQueue();

  /** The highest watermark passed to `advanceWatermark`; `-Infinity` before the first. */
  get currentWatermark(): number {
    return this.#watermark;
  }

  /**
   * Registers an event-time timer; a no-op if the pair is already pending.
   *
   * @param id The interned (key, window) the timer belongs to.
   * @param timestamp When it fires, in milliseconds of event time.
   * @throws {RangeError} If `id` is not a non-negative safe integer, or
   * `timestamp` is not a safe integer or `±Infinity` (e.g. `NaN`).
   * @throws {TypeError} If either is not a number.
   */
  registerEventTimeTimer(id: number, timestamp: number): void {
    checkTimer(id, timestamp, REGISTER_EVENT);
    this.#eventTime.add(id, timestamp);
  }

  /**
   * Deletes an event-time timer; a no-op if it is not pending.
   *
   * @param id The interned (key, window) the timer belongs to.
   * @param timestamp The timer's time, in milliseconds of event time.
   * @throws {RangeError} If `id` or `timestamp` is out of range.
   * @throws {TypeError} If either is not a number.
   */
  deleteEventTimeTimer(id: number, timestamp: number): void {
    checkTimer(id, timestamp, DELETE_EVENT);
    this.#eventTime.delete(id, timestamp);
  }

  /**
   * Registers a processing-time timer; a no-op if the pair is already pending.
   *
   * @param id The interned (key, window) the timer belongs to.
   * @param timestamp When it fires, in milliseconds of processing time.
   * @throws {RangeError} If `id` or `timestamp` is out of range.
   * @throws {TypeError} If either is not a number.
   */
  registerProcessingTimeTimer(id: number, timestamp: number): void {
    checkTimer(id, timestamp, REGISTER_PROCESSING);
    this.#processingTime.add(id, timestamp);
  }

  /**
   * Deletes a processing-time timer; a no-op if it is not pending.
   *
   * @param id The interned (key, window) the timer belongs to.
   * @param timestamp The timer's time, in milliseconds of processing time.
   * @throws {RangeError} If `id` or `timestamp` is out of range.
   * @throws {TypeError} If either is not a number.
   */
  deleteProcessingTimeTimer(id: number, timestamp: number): void {
    checkTimer(id, timestamp, DELETE_PROCESSING);
    this.#processingTime.delete(id, timestamp);
  }

  /**
   * Returns whether an event-time timer is pending.
   *
   * @param id The interned (key, window) the timer belongs to.
   * @param timestamp The timer's time, in milliseconds of event time.
   * @returns `true` if registered and neither fired nor deleted since.
   * @throws {RangeError} If `id` or `timestamp` is out of range.
   * @throws {TypeError} If either is not a number.
   */
  hasEventTimeTimer(id: number, timestamp: number): boolean {
    checkTimer(id, timestamp, HAS_EVENT);
    return this.#eventTime.has(id, timestamp);
  }

  /**
   * Returns whether a processing-time timer is pending.
   *
   * @param id The interned (key, window) the timer belongs to.
   * @param timestamp The timer's time, in milliseconds of processing time.
   * @returns `true` if registered and neither fired nor deleted since.
   * @throws {RangeError} If `id` or `timestamp` is out of range.
   * @throws {TypeError} If either is not a number.
   */
  hasProcessingTimeTimer(id: number, timestamp: number): boolean {
    checkTimer(id, timestamp, HAS_PROCESSING);
    return this.#processingTime.has(id, timestamp);
  }

  /**
   * Deletes every timer of `id` in both domains and releases its index
   * entry; called when a window is cleaned up.
   *
   * @param id The interned (key, window) whose timers go.
   * @throws {RangeError} If `id` is not a non-negative safe integer.
   * @throws {TypeError} If `id` is not a number.
   */
  deleteAllTimers(id: number): void {
    if (!(Number.isSafeInteger(id) && id >= 0)) {
      requireNonNegativeInteger(id, DELETE_ALL_ID);
    }
    this.#eventTime.deleteAll(id);
    this.#processingTime.deleteAll(id);
  }

  /**
   * Raises the watermark, then fires every event-time timer at or below it.
   *
   * `currentWatermark` becomes `max(currentWatermark, watermark)` before the
   * first callback, so callbacks see the new value. Each due timer is
   * removed before its callback runs. The queue is re-read after every
   * callback: a timer a callback registers at or below `watermark` fires
   * in this same call, and a due timer a callback deletes does not fire. A
   * callback that always re-registers its own timer at or below `watermark`
   * therefore loops forever, as in Flink. A `watermark` at or below the
   * current one never lowers it, but still fires the timers at or below
   * `watermark` (those registered since the last advance, §4.3 rule 2). If a
   * callback throws, the timers fired so far stay removed and the rest stay
   * pending.
   *
   * @param watermark The new watermark, in milliseconds of event time.
   * @param onTimer Called with each due timer's id and timestamp, in firing order.
   * @throws {RangeError} If `watermark` is not a safe integer or `±Infinity`.
   * @throws {TypeError} If `watermark` is not a number or `onTimer` not a function.
   */
  advanceWatermark(
    watermark: number,
    onTimer: (id: number, timestamp: number) => void,
  ): void {
    requireWatermark(watermark, WATERMARK);
    requireFunction(onTimer, WATERMARK_CALLBACK);
    if (watermark > this.#watermark) this.#watermark = watermark;
    this.#eventTime.advance(watermark, onTimer);
  }

  /**
   * Fires every processing-time timer at or below `now`, in the same order
   * and with the same callback rules as
   * {@linkcode TimerService.advanceWatermark}.
   *
   * @param now The current processing time, in milliseconds.
   * @param onTimer Called with each due timer's id and timestamp, in firing order.
   * @throws {RangeError} If `now` is not a safe integer or `±Infinity`.
   * @throws {TypeError} If `now` is not a number or `onTimer` not a function.
   */
  advanceProcessingTime(
    now: number,
    onTimer: (id: number, timestamp: number) => void,
  ): void {
    requireWatermark(now, NOW);
    requireFunction(onTimer, NOW_CALLBACK);
    this.#processingTime.advance(now, onTimer);
  }

  /**
   * Returns the smallest pending event-time timestamp, or `Infinity` if
   * there is none (check {@linkcode TimerService.numEventTimeTimers} to
   * tell that apart from a timer at `Infinity`).
   */
  nextEventTimeTimer(): number {
    return this.#eventTime.peek()?.timestamp ?? Infinity;
  }

  /**
   * Returns the smallest pending processing-time timestamp, or `Infinity`
   * if there is none; the runtime schedules its next wake-up for it.
   */
  nextProcessingTimeTimer(): number {
    return this.#processingTime.peek()?.timestamp ?? Infinity;
  }

  /** Returns the number of pending event-time timers. */
  numEventTimeTimers(): number {
    return this.#eventTime.size;
  }

  /** Returns the number of pending processing-time timers. */
  numProcessingTimeTimers(): number {
    return this.#processingTime.size;
  }

  /**
   * Returns the watermark and the pending timers as plain data, each
   * domain in firing order. Costs O(n log n) in the pending timers.
   *
   * @returns A fresh snapshot that shares nothing with the service.
   */
  snapshot(): TimerServiceSnapshot {
    return {
      currentWatermark: this.#watermark,
      eventTime: this.#eventTime.toFlat(),
      processingTime: this.#processingTime.toFlat(),
    };
  }

  /**
   * Replaces all state with a snapshot's. The whole snapshot is checked
   * before anything changes; a pair listed twice is stored once.
   *
   * @param snapshot What {@linkcode TimerService.snapshot} returned.
   * @throws {RangeError} If `snapshot.currentWatermark` or a timestamp is not
   * a safe integer or `±Infinity`, a timer list has an odd length, or an id
   * is not a non-negative safe integer; the message names the field.
   * @throws {TypeError} If `snapshot` is not an object, a field has the
   * wrong type, or an entry is not a number.
   */
  restore(snapshot: TimerServiceSnapshot): void {
    if (typeof snapshot !== "object" || snapshot === null) {
      throw new TypeError(
        `Cannot ${RESTORE} as 'snapshot' must be an object: current value is ${
          describeValue(snapshot)
        }`,
      );
    }
    const watermark = requireWatermark(snapshot.currentWatermark, {
      action: RESTORE,
      param: "snapshot.currentWatermark",
    });
    const eventTime = checkPairs(snapshot.eventTime, "eventTime");
    const processingTime = checkPairs(
      snapshot.processingTime,
      "processingTime",
    );
    this.#watermark = watermark;
    this.#eventTime.clear();
    this.#processingTime.clear();
    for (let i = 0; i < eventTime.length; i += 2) {
      this.#eventTime.add(eventTime[i], eventTime[i + 1]);
    }
    for (let i = 0; i < processingTime.length; i += 2) {
      this.#processingTime.add(processingTime[i], processingTime[i + 1]);
    }
  }
}
