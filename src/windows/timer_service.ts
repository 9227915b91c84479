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
} from "../time/validate.ts";
import {
  checkPairs,
  checkTimer,
  DELETE_ALL_ID,
  DELETE_EVENT,
  DELETE_PROCESSING,
  HAS_EVENT,
  HAS_PROCESSING,
  NOW,
  NOW_CALLBACK,
  REGISTER_EVENT,
  REGISTER_PROCESSING,
  RESTORE,
  WATERMARK,
  WATERMARK_CALLBACK,
} from "./_timer_checks.ts";
import { TimerQueue } from "./timer_queue.ts";

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

/**
 * Holds the event-time and processing-time timers of one window operator
 * (Flink's `InternalTimerService`).
 *
 * A timer is a pair `(timestamp, id)`, where `id` names an interned
 * (key, window) pair; the window operator never reuses an id. Each domain
 * stores a pair at most once: registering it again is a no-op, so a
 * trigger may re-register its timer for every record.
 * Deleting an absent timer is a no-op. The two domains are independent:
 * the same pair may be pending in both.
 *
 * {@linkcode TimerService.advanceWatermark} first raises `currentWatermark`,
 * then fires every due timer in ascending timestamp order, ties broken by
 * ascending id (a pair is unique, so this order is total). Registering a
 * timer never fires it, even when its timestamp is already at or below the
 * watermark: it fires on the next advance. Timestamps are
 * safe integers or `±Infinity`; a timer at `Infinity` fires only on
 * watermark `Infinity`, one at `-Infinity` on any advance.
 *
 * Cost: timers that share a timestamp share a bucket; a timestamp later than
 * every other (the usual case) joins a sorted run, the others a min-heap,
 * and the two give the distinct timestamps in order. With `k` the timers of
 * an id (usually one or two), `b` those of a timestamp and `t` the distinct
 * timestamps: looking up a timer costs O(k); registering costs O(k) plus
 * O(1) amortised, or O(log t) for the first timer at a timestamp, and a
 * duplicate registration allocates nothing; deleting costs O(k) plus
 * O(log t) and O(log b) amortised. Firing costs O(1) amortised per timer plus O(log t)
 * per timestamp; a timestamp whose ids were not registered in ascending
 * order is sorted once when it starts firing, and a timer a callback adds to
 * the timestamp being fired costs up to O(b). Deleted timers leave
 * tombstones, compacted away once they outnumber the live timers of their
 * timestamp; emptied timestamps stay until they come first or once they
 * outnumber the live ones. An id whose last timer went keeps a marker until
 * `deleteAllTimers` (so an id that moves its timer does not re-insert itself
 * into a hash table, which V8 makes slow); markers are dropped once they
 * outnumber the ids with timers (and a floor of 1024). So memory stays
 * within about twice the live timers. Callbacks run synchronously, inside
 * the advance call.
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
   * Deletes every timer of `id` in both domains, as
   * {@linkcode TimerService.deleteAllTimers} does, but keeps its index
   * entry: for a window that lives on and registers timers again (a session
   * growing in place), so its next registration does not insert the id
   * afresh. Entries kept for ids without timers stay bounded.
   *
   * @param id The interned (key, window) whose timers go.
   * @throws {RangeError} If `id` is not a non-negative safe integer.
   * @throws {TypeError} If `id` is not a number.
   */
  clearTimers(id: number): void {
    if (!(Number.isSafeInteger(id) && id >= 0)) {
      requireNonNegativeInteger(id, DELETE_ALL_ID);
    }
    this.#eventTime.clearId(id);
    this.#processingTime.clearId(id);
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
   * `watermark` (those registered since the last advance). If a
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
    return this.#eventTime.nextTimestamp();
  }

  /**
   * Returns the smallest pending processing-time timestamp, or `Infinity`
   * if there is none; the runtime schedules its next wake-up for it.
   */
  nextProcessingTimeTimer(): number {
    return this.#processingTime.nextTimestamp();
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
