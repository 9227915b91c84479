/**
 * Fixed-size, non-overlapping windows of event time.
 *
 * @module
 */

import { requireFunction, requireSafeInteger } from "../time/validate.ts";
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
  requireOneOf,
  requireRecordTimestamp,
} from "./_validate.ts";

/**
 * How an assigner instance shifts its window grid, on top of the offset
 * (Flink's `WindowStagger`). Staggering spreads the firing of many windows
 * over time instead of firing all of them on the same watermark.
 *
 * - `"aligned"`: no shift; all instances fire at the same times.
 * - `"natural"`: the processing time of the instance's first record, modulo
 *   the size; windows line up with when that instance started receiving.
 * - `"random"`: a shift drawn uniformly from `[0, sizeMs)` at the first record.
 */
export type WindowStagger = "aligned" | "natural" | "random";

/** Options of {@linkcode TumblingEventTimeWindows.of}. */
export interface TumblingEventTimeWindowsOptions {
  /**
   * How this instance shifts its windows; the shift is chosen once, at the
   * first record, and kept for the life of the instance.
   *
   * @default {"aligned"}
   */
  stagger?: WindowStagger;
  /**
   * The source of randomness for `"random"`: returns a number in `[0, 1)`.
   * Inject one to make the shift reproducible.
   *
   * @default {Math.random}
   */
  random?: () => number;
}

const STAGGERS: readonly WindowStagger[] = ["aligned", "natural", "random"];

/**
 * Puts each record in the one window of `sizeMs` that contains its
 * timestamp (Flink's `TumblingEventTimeWindows`).
 *
 * Windows are `[start, start + sizeMs)` with `start` on a grid of `sizeMs`
 * starting at epoch 0, shifted by `offsetMs` and by the stagger:
 * `start = getWindowStartWithOffset(timestamp, (offsetMs + stagger) % sizeMs, sizeMs)`.
 * A negative offset shifts the grid back: with size 5000 and offset -100,
 * timestamp 0 falls in `[-100, 4900)`. Offsets let daily windows follow a
 * time zone (offset `-28_800_000` gives midnight-to-midnight in GMT+8).
 *
 * A `"natural"` or `"random"` stagger is chosen at the first record this
 * instance sees and cached in it; a restarted job chooses again, so windows
 * restored from a snapshot may not line up with newly assigned ones (as in
 * Flink, where the stagger is not checkpointed either).
 *
 * Records must carry a timestamp: `-Infinity` (no timestamp) throws. The
 * default trigger is {@linkcode EventTimeTrigger}: a window fires once the
 * watermark reaches `end - 1`. Cost: one window allocated per record.
 *
 * @typeParam T The record type (unused: only the timestamp matters).
 *
 * @example Five-second windows
 * ```ts
 * import { ManualClock, TumblingEventTimeWindows } from "@weir/weir";
 * import assert from "node:assert/strict";
 *
 * const assigner = TumblingEventTimeWindows.of(5_000);
 * const context = { clock: new ManualClock() };
 * const [window] = assigner.assignWindows("click", 7_250, context);
 * assert.deepEqual([window.start, window.end], [5_000, 10_000]);
 * ```
 */
export class TumblingEventTimeWindows<T = unknown>
  implements WindowAssigner<T> {
  /** Always `true`: lateness and watermarks apply. */
  readonly isEventTime: boolean = true;
  /** Always `false`: windows never merge. */
  readonly isMerging: boolean = false;

  readonly #size: number;
  readonly #offset: number;
  readonly #stagger: WindowStagger;
  readonly #random: () => number;
  // The offset of the grid, (offset + stagger) % size; null until the first
  // record for the staggers that are chosen then.
  #gridOffset: number | null;
  #memoStart = NaN;
  #memoEnd = NaN;
  #memo: TimeWindow[] = [];
  // The window memoised before: out-of-order records around a window
  // boundary alternate between two windows.
  #prevStart = NaN;
  #prevEnd = NaN;
  #prev: TimeWindow[] = [];

  /**
   * Creates the assigner; prefer {@linkcode TumblingEventTimeWindows.of}.
   *
   * @param sizeMs The window size in milliseconds.
   * @param offsetMs The shift of the window grid in milliseconds; `abs(offsetMs) < sizeMs`.
   * @param options The stagger.
   * @throws {RangeError} If `abs(offsetMs) >= sizeMs` (so also if `sizeMs <= 0`),
   * either is not a safe integer, or `options.stagger` is an unknown string.
   * @throws {TypeError} If an argument is not a number, `options.stagger` not a
   * string or `options.random` not a function.
   */
  constructor(
    sizeMs: number,
    offsetMs = 0,
    options: TumblingEventTimeWindowsOptions = {},
  ) {
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
    this.#stagger = requireOneOf(options.stagger ?? "aligned", STAGGERS, {
      action,
      param: "options.stagger",
    });
    this.#random = requireFunction(options.random ?? Math.random, {
      action,
      param: "options.random",
    });
    this.#gridOffset = this.#stagger === "aligned" ? offsetMs : null;
  }

  /**
   * Creates an assigner of windows of `sizeMs`, shifted by `offsetMs`.
   *
   * @typeParam T The record type.
   * @param sizeMs The window size in milliseconds.
   * @param offsetMs The shift of the window grid in milliseconds; `abs(offsetMs) < sizeMs`.
   * @param options The stagger.
   * @returns The assigner.
   * @throws {RangeError} If `abs(offsetMs) >= sizeMs` (so also if `sizeMs <= 0`),
   * either is not a safe integer, or `options.stagger` is an unknown string.
   * @throws {TypeError} If an argument is not a number, `options.stagger` not a
   * string or `options.random` not a function.
   */
  static of<T = unknown>(
    sizeMs: number,
    offsetMs = 0,
    options: TumblingEventTimeWindowsOptions = {},
  ): TumblingEventTimeWindows<T> {
    return new TumblingEventTimeWindows<T>(sizeMs, offsetMs, options);
  }

  /** The window size in milliseconds. */
  get sizeMs(): number {
    return this.#size;
  }

  /** The shift of the window grid in milliseconds, without the stagger. */
  get offsetMs(): number {
    return this.#offset;
  }

  /**
   * Returns the one window containing `timestamp`.
   *
   * @param _element The record (unused).
   * @param timestamp The record's event time in milliseconds.
   * @param context The processing-time clock, read once for a `"natural"` stagger.
   * @returns `[new TimeWindow(start, start + sizeMs)]`, clipped to the safe
   * range at its ends (see {@linkcode TimeWindow}).
   * @throws {RangeError} If `timestamp` is not finite (`-Infinity`: the record
   * has no timestamp), or a `"random"` stagger's `random()` returned a value
   * outside `[0, 1)`.
   */
  assignWindows(
    _element: T,
    timestamp: number,
    context: WindowAssignerContext,
  ): TimeWindow[] {
    // In the memoised window: the common case, decided by two comparisons
    // (which also fail for NaN and ±Infinity).
    if (timestamp >= this.#memoStart && timestamp < this.#memoEnd) {
      return this.#memo;
    }
    return this.#assign(timestamp, context);
  }

  // assignWindows() outside the memoised window: kept apart so that the
  // memo test, run per record, is small enough to inline.
  #assign(timestamp: number, context: WindowAssignerContext): TimeWindow[] {
    if (timestamp >= this.#prevStart && timestamp < this.#prevEnd) {
      return this.#prev;
    }
    requireRecordTimestamp(timestamp, "TumblingEventTimeWindows");
    const offset = this.#gridOffset ?? this.#chooseGridOffset(context);
    // Bounds are taken relative to the timestamp and clipped to the safe
    // range (see TimeWindow), so they stay exact at its ends.
    const distance = gridDistance(timestamp, offset, this.#size);
    const start = clipStart(timestamp - distance);
    // The window of the latest start is memoised: records arrive clustered
    // in time, and reusing the immutable window saves allocations per record.
    // Compared by both bounds: starts clipped to the safe range are equal
    // for windows with different ends.
    const end = clipEnd(timestamp + (this.#size - distance));
    if (start !== this.#memoStart || end !== this.#memoEnd) {
      this.#prevStart = this.#memoStart;
      this.#prevEnd = this.#memoEnd;
      this.#prev = this.#memo;
      this.#memoStart = start;
      this.#memoEnd = end;
      this.#memo = [new TimeWindow(start, end)];
    }
    return this.#memo;
  }

  /** Returns {@linkcode EventTimeTrigger}. */
  defaultTrigger(): Trigger<T> {
    return EventTimeTrigger.create<T>();
  }

  /** Renders the assigner for plans and logs. */
  toString(): string {
    return `TumblingEventTimeWindows(${this.#size}, ${this.#offset})`;
  }

  // Runs once, at the first record, for the staggers chosen then (WindowStagger).
  #chooseGridOffset(context: WindowAssignerContext): number {
    const size = this.#size;
    let stagger: number;
    if (this.#stagger === "natural") {
      // Flink's NATURAL: the distance of "now" from the start of its aligned
      // window, which stays in [0, size) even for a negative clock reading.
      stagger = gridDistance(context.clock.now(), 0, size);
    } else {
      const draw = this.#random();
      if (!(draw >= 0 && draw < 1)) {
        throw relationError(
          {
            action: "assign windows with TumblingEventTimeWindows",
            param: "options.random",
          },
          "return a number in [0, 1)",
          draw,
        );
      }
      stagger = Math.floor(draw * size);
    }
    this.#gridOffset = (this.#offset + stagger) % size;
    return this.#gridOffset;
  }
}
