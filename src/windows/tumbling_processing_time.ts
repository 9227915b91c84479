/**
 * Fixed-size, non-overlapping windows of processing time.
 *
 * @module
 */

import { requireSafeInteger } from "../time/validate.ts";
import { ProcessingTimeTrigger } from "./processing_time_trigger.ts";
import { TimeWindow } from "./time_window.ts";
import type { Trigger } from "./trigger.ts";
import { clipEnd, clipStart, gridDistance } from "./_window_bounds.ts";
import type {
  WindowAssigner,
  WindowAssignerContext,
} from "./window_assigner.ts";
import { requireOffsetWithinPeriod } from "./_validate.ts";

/**
 * Puts each record in the window of `sizeMs` that contains the processing
 * time at which it arrives (Flink's `TumblingProcessingTimeWindows`).
 *
 * The record's own timestamp is ignored, so records without one
 * (`-Infinity`) are fine. Windows are `[start, start + sizeMs)` with
 * `start = getWindowStartWithOffset(context.clock.now(), offsetMs, sizeMs)`.
 * Results depend on arrival time and are not reproducible on replay; use
 * event-time windows when they must be.
 *
 * Watermarks and allowed lateness do not apply. The default trigger is
 * {@linkcode ProcessingTimeTrigger}: a window fires once the clock reaches
 * `end - 1`. Cost: one clock read and one window per record.
 *
 * @typeParam T The record type (unused).
 *
 * @example One-minute windows of arrival time
 * ```ts
 * import { ManualClock } from "@weir/weir";
 * import { TumblingProcessingTimeWindows } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const assigner = TumblingProcessingTimeWindows.of(60_000);
 * const context = { clock: new ManualClock(90_000) };
 * const [window] = assigner.assignWindows("click", -Infinity, context);
 * assert.deepEqual([window.start, window.end], [60_000, 120_000]);
 * ```
 */
export class TumblingProcessingTimeWindows<T = unknown>
  implements WindowAssigner<T> {
  /** Always `false`: windows follow the clock, not watermarks. */
  readonly isEventTime: boolean = false;
  /** Always `false`: windows never merge. */
  readonly isMerging: boolean = false;

  readonly #size: number;
  readonly #offset: number;
  #memoStart = NaN;
  #memoEnd = NaN;
  #memo: TimeWindow[] = [];

  /**
   * Creates the assigner; prefer {@linkcode TumblingProcessingTimeWindows.of}.
   *
   * @param sizeMs The window size in milliseconds.
   * @param offsetMs The shift of the window grid in milliseconds; `abs(offsetMs) < sizeMs`.
   * @throws {RangeError} If `abs(offsetMs) >= sizeMs` (so also if `sizeMs <= 0`)
   * or either is not a safe integer.
   * @throws {TypeError} If an argument is not a number.
   */
  constructor(sizeMs: number, offsetMs = 0) {
    const action = `create ${new.target.name}`;
    this.#size = requireSafeInteger(sizeMs, { action, param: "sizeMs" });
    this.#offset = requireSafeInteger(offsetMs, { action, param: "offsetMs" });
    requireOffsetWithinPeriod(
      action,
      "sizeMs",
      sizeMs,
      offsetMs,
      "abs(offsetMs) < sizeMs",
    );
  }

  /**
   * Creates an assigner of processing-time windows of `sizeMs`, shifted by
   * `offsetMs`.
   *
   * @typeParam T The record type.
   * @param sizeMs The window size in milliseconds.
   * @param offsetMs The shift of the window grid in milliseconds; `abs(offsetMs) < sizeMs`.
   * @returns The assigner.
   * @throws {RangeError} If `abs(offsetMs) >= sizeMs` (so also if `sizeMs <= 0`)
   * or either is not a safe integer.
   * @throws {TypeError} If an argument is not a number.
   */
  static of<T = unknown>(
    sizeMs: number,
    offsetMs = 0,
  ): TumblingProcessingTimeWindows<T> {
    return new TumblingProcessingTimeWindows<T>(sizeMs, offsetMs);
  }

  /** The window size in milliseconds. */
  get sizeMs(): number {
    return this.#size;
  }

  /** The shift of the window grid in milliseconds. */
  get offsetMs(): number {
    return this.#offset;
  }

  /**
   * Returns the one window containing the current processing time.
   *
   * @param _element The record (unused).
   * @param _timestamp The record's event time (unused; may be `-Infinity`).
   * @param context The clock giving the current processing time.
   * @returns `[new TimeWindow(start, start + sizeMs)]`, memoised while the
   * clock stays in that window: shared, do not modify it.
   */
  assignWindows(
    _element: T,
    _timestamp: number,
    context: WindowAssignerContext,
  ): TimeWindow[] {
    const now = context.clock.now();
    // The window of the latest time is memoised (returned arrays are shared
    // and immutable): processing time stays in one window for its length.
    if (now >= this.#memoStart && now < this.#memoEnd) return this.#memo;
    // Clipped to the safe range like event-time windows (see TimeWindow):
    // a clock may be set anywhere in it.
    const distance = gridDistance(now, this.#offset, this.#size);
    const start = clipStart(now - distance);
    const end = clipEnd(now + (this.#size - distance));
    this.#memoStart = start;
    this.#memoEnd = end;
    this.#memo = [new TimeWindow(start, end)];
    return this.#memo;
  }

  /** Returns {@linkcode ProcessingTimeTrigger}. */
  defaultTrigger(): Trigger<T> {
    return ProcessingTimeTrigger.create<T>();
  }

  /** Renders the assigner for plans and logs. */
  toString(): string {
    return `TumblingProcessingTimeWindows(${this.#size}, ${this.#offset})`;
  }
}
