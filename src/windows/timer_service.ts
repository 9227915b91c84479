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

// One heap entry. Deleting a timer only clears `live` and drops the entry
// from the index; the heap skips it at pop time (lazy deletion). A later
// re-registration of the same pair pushes a fresh entry, so the dead one can
// never fire again and no pair ever has two live entries.
interface Timer {
  readonly timestamp: number;
  readonly id: number;
  live: boolean;
}

function precedes(a: Timer, b: Timer): boolean {
  return a.timestamp < b.timestamp ||
    (a.timestamp === b.timestamp && a.id < b.id);
}

// The timers of one domain: a binary min-heap ordered by (timestamp, id)
// plus an index from id to its live entries. Most ids hold one or two
// timers, so the index keeps a bare entry until an id has a second one.
class TimerQueue {
  #heap: Timer[] = [];
  #index = new Map<number, Timer | Timer[]>();
  #live = 0;

  get size(): number {
    return this.#live;
  }

  has(id: number, timestamp: number): boolean {
    return this.#find(id, timestamp) !== undefined;
  }

  add(id: number, timestamp: number): void {
    const slot = this.#index.get(id);
    // The duplicate case returns before allocating: an event-time trigger
    // re-registers the same timer for every record of its window.
    if (slot === undefined) {
      this.#index.set(id, this.#push(id, timestamp));
    } else if (Array.isArray(slot)) {
      for (let i = 0; i < slot.length; i++) {
        if (slot[i].timestamp === timestamp) return;
      }
      slot.push(this.#push(id, timestamp));
    } else if (slot.timestamp !== timestamp) {
      this.#index.set(id, [slot, this.#push(id, timestamp)]);
    }
  }

  delete(id: number, timestamp: number): void {
    const timer = this.#unindex(id, timestamp);
    if (timer === undefined) return;
    timer.live = false;
    this.#live--;
    this.#compactIfStale();
  }

  deleteAll(id: number): void {
    const slot = this.#index.get(id);
    if (slot === undefined) return;
    this.#index.delete(id);
    if (Array.isArray(slot)) {
      for (const timer of slot) timer.live = false;
      this.#live -= slot.length;
    } else {
      slot.live = false;
      this.#live--;
    }
    this.#compactIfStale();
  }

  /** The live timer that fires next, after dropping dead ones from the top. */
  peek(): Timer | undefined {
    const heap = this.#heap;
    while (heap.length > 0 && !heap[0].live) this.#pop();
    return heap[0];
  }

  /** Removes the timer `peek()` returned from the heap and the index. */
  take(timer: Timer): void {
    this.#pop();
    this.#unindex(timer.id, timer.timestamp);
    timer.live = false;
    this.#live--;
  }

  advance(
    limit: number,
    onTimer: (id: number, timestamp: number) => void,
  ): void {
    // Peek on every turn rather than collecting first: a callback may add a
    // timer at or below `limit` (it fires in this call) or delete one that
    // is due (it must not fire), as in Flink's `advanceWatermark` loop.
    for (let next = this.peek(); next !== undefined; next = this.peek()) {
      if (next.timestamp > limit) return;
      // Removed before the callback, so the callback sees it gone and may
      // register the same (id, timestamp) afresh.
      this.take(next);
      onTimer(next.id, next.timestamp);
    }
  }

  /** The live timers in firing order, flattened as `[id, ts, ...]`. */
  toFlat(): number[] {
    const live = this.#heap.filter((timer) => timer.live).sort((a, b) =>
      precedes(a, b) ? -1 : precedes(b, a) ? 1 : 0
    );
    const flat: number[] = [];
    for (const timer of live) flat.push(timer.id, timer.timestamp);
    return flat;
  }

  clear(): void {
    this.#heap = [];
    this.#index.clear();
    this.#live = 0;
  }

  #find(id: number, timestamp: number): Timer | undefined {
    const slot = this.#index.get(id);
    if (slot === undefined) return undefined;
    if (!Array.isArray(slot)) {
      return slot.timestamp === timestamp ? slot : undefined;
    }
    for (let i = 0; i < slot.length; i++) {
      if (slot[i].timestamp === timestamp) return slot[i];
    }
    return undefined;
  }

  #unindex(id: number, timestamp: number): Timer | undefined {
    const slot = this.#index.get(id);
    if (slot === undefined) return undefined;
    if (!Array.isArray(slot)) {
      if (slot.timestamp !== timestamp) return undefined;
      // Dropping the key releases the id once its last timer is gone.
      this.#index.delete(id);
      return slot;
    }
    const i = slot.findIndex((timer) => timer.timestamp === timestamp);
    if (i < 0) return undefined;
    const timer = slot[i];
    slot.splice(i, 1);
    if (slot.length === 1) this.#index.set(id, slot[0]);
    return timer;
  }

  // Dead entries cost memory until popped; rebuilding once they outnumber
  // the live ones keeps the heap within twice the live count, and costs
  // O(1) amortised per deletion (each rebuild removes at least half).
  #compactIfStale(): void {
    const heap = this.#heap;
    if (heap.length - this.#live <= this.#live) return;
    this.#heap = heap.filter((timer) => timer.live);
    for (let i = (this.#heap.length >>> 1) - 1; i >= 0; i--) this.#down(i);
  }

  #push(id: number, timestamp: number): Timer {
    const timer: Timer = { timestamp, id, live: true };
    const heap = this.#heap;
    let i = heap.length;
    heap.push(timer);
    while (i > 0) {
      const parent = (i - 1) >>> 1;
      if (!precedes(timer, heap[parent])) break;
      heap[i] = heap[parent];
      i = parent;
    }
    heap[i] = timer;
    this.#live++;
    return timer;
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
    const timer = heap[start];
    let i = start;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && precedes(heap[child + 1], heap[child])) child++;
      if (!precedes(heap[child], timer)) break;
      heap[i] = heap[child];
      i = child;
    }
    heap[i] = timer;
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
 * Cost: registering, deleting and looking up a timer cost O(k) in the `k`
 * timers of that id (usually one or two) plus O(log n) for a new timer in
 * the heap; a duplicate registration allocates nothing. Firing costs
 * O(log n) per timer. Deleted timers leave dead heap entries that are
 * skipped when they surface, and the heap is rebuilt once they outnumber
 * the live ones, so memory stays within twice the live timers. Callbacks
 * run synchronously, inside the advance call.
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
