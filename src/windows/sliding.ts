/**
 * Fixed-size windows of event time that start every `slideMs`, so they
 * overlap when the slide is smaller than the size.
 *
 * @module
 */

import { requireSafeInteger } from "../time/validate.ts";
import { EventTimeTrigger } from "./event_time_trigger.ts";
import { TimeWindow } from "./time_window.ts";
import type { Trigger } from "./trigger.ts";
import { clipEnd, clipStart, gridDistance } from "./_window_bounds.ts";
import type {
  WindowAssigner,
  WindowAssignerContext,
} from "./window_assigner.ts";
import {
  relationError,
  requireOffsetWithinPeriod,
  requireRecordTimestamp,
} from "./_validate.ts";

// Newer Flink caps the windows per record: each is state and a timer, and a
// size far above the slide is almost always a unit mistake (seconds vs ms).
const MAX_WINDOWS_PER_RECORD = 10_000_000;

/**
 * Puts each record in every window of `sizeMs` that contains its timestamp,
 * where windows start every `slideMs` (Flink's `SlidingEventTimeWindows`).
 *
 * Window starts lie on a grid of `slideMs` shifted by `offsetMs`. A record
 * with timestamp `t` belongs to every `[start, start + sizeMs)` with
 * `t - sizeMs < start <= t`: `ceil(sizeMs / slideMs)` windows when the slide
 * divides the size. They are returned in descending start order, as Flink's
 * loop produces them. If the slide exceeds the size, records between windows
 * get none.
 *
 * Windows are clipped to the safe range at its ends (see
 * {@linkcode TimeWindow}). Records must carry a timestamp: `-Infinity` (no
 * timestamp) throws. The default trigger is {@linkcode EventTimeTrigger}.
 * Cost: one window allocated per returned window; nothing else.
 *
 * @typeParam T The record type (unused: only the timestamp matters).
 *
 * @example Ten-second windows every five seconds
 * ```ts
 * import { ManualClock, SlidingEventTimeWindows } from "@weir/weir";
 * import assert from "node:assert/strict";
 *
 * const assigner = SlidingEventTimeWindows.of(10_000, 5_000);
 * const windows = assigner.assignWindows("click", 7_250, { clock: new ManualClock() });
 * assert.deepEqual(windows.map((w) => [w.start, w.end]), [[5_000, 15_000], [0, 10_000]]);
 * ```
 */
export class SlidingEventTimeWindows<T = unknown> implements WindowAssigner<T> {
  /** Always `true`: lateness and watermarks apply. */
  readonly isEventTime: boolean = true;
  /** Always `false`: windows overlap but never merge. */
  readonly isMerging: boolean = false;

  readonly #size: number;
  readonly #slide: number;
  readonly #offset: number;
  #memoStart = NaN;
  // The timestamps the memoised windows are exactly those of: one slide
  // from the latest start when the size is a multiple of the slide, else
  // empty (the count of windows then varies within a slide).
  #memoEnd = NaN;
  #memo: TimeWindow[] = [];
  // The windows memoised before: out-of-order records around a slide
  // boundary alternate between two sets of windows.
  #prevStart = NaN;
  #prevEnd = NaN;
  #prev: TimeWindow[] = [];

  /**
   * Creates the assigner; prefer {@linkcode SlidingEventTimeWindows.of}.
   *
   * @param sizeMs The window size in milliseconds; positive.
   * @param slideMs The distance between window starts in milliseconds; `abs(offsetMs) < slideMs`.
   * @param offsetMs The shift of the window starts in milliseconds.
   * @throws {RangeError} If `abs(offsetMs) >= slideMs` (so also if
   * `slideMs <= 0`), `sizeMs <= 0`, `sizeMs / slideMs > 10_000_000`, or an
   * argument is not a safe integer.
   * @throws {TypeError} If an argument is not a number.
   */
  constructor(sizeMs: number, slideMs: number, offsetMs = 0) {
    const action = `create ${new.target.name}`;
    const rule = "abs(offsetMs) < slideMs and sizeMs > 0";
    this.#size = requireSafeInteger(sizeMs, { action, param: "sizeMs" });
    this.#slide = requireSafeInteger(slideMs, { action, param: "slideMs" });
    this.#offset = requireSafeInteger(offsetMs, { action, param: "offsetMs" });
    requireOffsetWithinPeriod(action, "slideMs", slideMs, offsetMs, rule);
    if (sizeMs <= 0) {
      throw relationError(
        { action, param: "sizeMs" },
        `satisfy ${rule}`,
        sizeMs,
      );
    }
    // Java's long division truncates; both are positive here.
    if (Math.trunc(sizeMs / slideMs) > MAX_WINDOWS_PER_RECORD) {
      throw relationError(
        { action, param: "slideMs" },
        `satisfy sizeMs / slideMs <= ${MAX_WINDOWS_PER_RECORD}, with sizeMs ${sizeMs}`,
        slideMs,
      );
    }
  }

  /**
   * Creates an assigner of windows of `sizeMs` starting every `slideMs`,
   * shifted by `offsetMs`.
   *
   * @typeParam T The record type.
   * @param sizeMs The window size in milliseconds; positive.
   * @param slideMs The distance between window starts in milliseconds; `abs(offsetMs) < slideMs`.
   * @param offsetMs The shift of the window starts in milliseconds.
   * @returns The assigner.
   * @throws {RangeError} If `abs(offsetMs) >= slideMs` (so also if
   * `slideMs <= 0`), `sizeMs <= 0`, `sizeMs / slideMs > 10_000_000`, or an
   * argument is not a safe integer.
   * @throws {TypeError} If an argument is not a number.
   */
  static of<T = unknown>(
    sizeMs: number,
    slideMs: number,
    offsetMs = 0,
  ): SlidingEventTimeWindows<T> {
    return new SlidingEventTimeWindows<T>(sizeMs, slideMs, offsetMs);
  }

  /** The window size in milliseconds. */
  get sizeMs(): number {
    return this.#size;
  }

  /** The distance between window starts in milliseconds. */
  get slideMs(): number {
    return this.#slide;
  }

  /** The shift of the window starts in milliseconds. */
  get offsetMs(): number {
    return this.#offset;
  }

  /**
   * Returns every window containing `timestamp`, latest start first.
   *
   * @param _element The record (unused).
   * @param timestamp The record's event time in milliseconds.
   * @param _context Unused.
   * @returns The windows in descending start order; empty if `timestamp`
   * falls in a gap between windows (slide larger than size).
   * @throws {RangeError} If `timestamp` is not finite (`-Infinity`: the record
   * has no timestamp).
   */
  assignWindows(
    _element: T,
    timestamp: number,
    _context: WindowAssignerContext,
  ): TimeWindow[] {
    if (timestamp >= this.#memoStart && timestamp < this.#memoEnd) {
      return this.#memo;
    }
    return this.#assign(timestamp);
  }

  // assignWindows() outside the memoised windows: kept apart so that the
  // memo test, run per record, is small enough to inline.
  #assign(timestamp: number): TimeWindow[] {
    if (timestamp >= this.#prevStart && timestamp < this.#prevEnd) {
      return this.#prev;
    }
    requireRecordTimestamp(timestamp, "SlidingEventTimeWindows");
    const size = this.#size;
    const slide = this.#slide;
    // Each window is placed by its distance `back` from the timestamp to its
    // start, `distance + i * slide` while below the size: exact, where
    // stepping the start down by the slide would leave the safe range and
    // round. Bounds are clipped to the safe range (see TimeWindow); a
    // clipped start is unique among the cells of the slide grid that hold
    // a safe timestamp, so it still identifies the latest start's cell.
    const distance = gridDistance(timestamp, this.#offset, slide);
    const lastStart = clipStart(timestamp - distance);
    // Windows of the latest start are memoised: records arrive clustered in
    // time, and reusing the immutable windows saves allocations per record.
    const count = distance < size ? Math.ceil((size - distance) / slide) : 0;
    if (lastStart === this.#memoStart && count === this.#memo.length) {
      return this.#memo;
    }
    const windows: TimeWindow[] = [];
    for (let back = distance; back < size; back += slide) {
      windows.push(
        new TimeWindow(
          clipStart(timestamp - back),
          clipEnd(timestamp + (size - back)),
        ),
      );
    }
    this.#prevStart = this.#memoStart;
    this.#prevEnd = this.#memoEnd;
    this.#prev = this.#memo;
    this.#memoStart = lastStart;
    this.#memoEnd = size % slide === 0
      ? clipEnd(timestamp + (slide - distance))
      : lastStart;
    this.#memo = windows;
    return windows;
  }

  /** Returns {@linkcode EventTimeTrigger}. */
  defaultTrigger(): Trigger<T> {
    return EventTimeTrigger.create<T>();
  }

  /** Renders the assigner for plans and logs. */
  toString(): string {
    return `SlidingEventTimeWindows(${this.#size}, ${this.#slide}, ${this.#offset})`;
  }
}
