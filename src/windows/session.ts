/**
 * Session windows of event time: activity separated by a gap of inactivity.
 *
 * @module
 */

import { requireFunction, requirePositiveInteger } from "../time/validate.ts";
import { EventTimeTrigger } from "./event_time_trigger.ts";
import { type MergeCallback, mergeWindows, TimeWindow } from "./time_window.ts";
import type { Trigger } from "./trigger.ts";
import { clipEnd } from "./_window_bounds.ts";
import type {
  WindowAssigner,
  WindowAssignerContext,
} from "./window_assigner.ts";
import { relationError, requireRecordTimestamp } from "./_validate.ts";

const DYNAMIC_GAP = {
  action: "assign windows with EventTimeSessionWindows",
  param: "gap",
};

/**
 * Groups the records of a key into sessions that end after a gap without
 * records (Flink's `EventTimeSessionWindows` and, through
 * {@linkcode EventTimeSessionWindows.withDynamicGap},
 * `DynamicEventTimeSessionWindows`).
 *
 * Each record gets its own window `[timestamp, timestamp + gap)`; the window
 * operator then merges the windows of a key that overlap or touch, with
 * {@linkcode EventTimeSessionWindows.mergeWindows}. So, in timestamp order,
 * the records of a key share a session while each comes at most `gap` after
 * the one before it: with a gap of 5000, records at 0 and 5000 share one,
 * because `[0, 5000)` and `[5000, 10000)` touch.
 *
 * Records must carry a timestamp: `-Infinity` (no timestamp) throws. Flink
 * does not check here and builds a window at `Long.MIN_VALUE`; weir rejects
 * it like the other event-time assigners. The default trigger is
 * {@linkcode EventTimeTrigger}, which supports merging. Cost: one window
 * allocated per call, plus one call of the gap extractor if dynamic. With a
 * fixed gap and the default trigger, the window operator does not call it
 * for a record in or after its key's newest session: it only moves that
 * session's end, and the session's timer catches up when it comes due.
 *
 * @typeParam T The record type; read only by a dynamic gap's extractor.
 *
 * @example Sessions with a 30-minute gap
 * ```ts
 * import { ManualClock } from "@weir/weir";
 * import { EventTimeSessionWindows, mergeWindows } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const assigner = EventTimeSessionWindows.withGap(30 * 60_000);
 * const context = { clock: new ManualClock() };
 * const windows = [0, 20 * 60_000].flatMap((ts) => assigner.assignWindows("view", ts, context));
 * const sessions: number[][] = [];
 * mergeWindows(windows, (_merged, result) => sessions.push([result.start, result.end]));
 * assert.deepEqual(sessions, [[0, 50 * 60_000]]);
 * ```
 */
export class EventTimeSessionWindows<T = unknown> implements WindowAssigner<T> {
  /** Always `true`: lateness and watermarks apply. */
  readonly isEventTime: boolean = true;
  /** Always `true`: the windows of a key merge when they overlap or touch. */
  readonly isMerging: boolean = true;

  // The fixed gap, or 0 when the gap comes from #extractor per record.
  readonly #gap: number;
  readonly #extractor: ((element: T) => number) | null;

  /**
   * Creates the assigner; prefer {@linkcode EventTimeSessionWindows.withGap}
   * or {@linkcode EventTimeSessionWindows.withDynamicGap}.
   *
   * @param gapMs The fixed gap in milliseconds, or a function returning the
   * gap of each record.
   * @throws {RangeError} If a fixed `gapMs` is not a positive safe integer.
   * @throws {TypeError} If `gapMs` is neither a number nor a function.
   */
  constructor(gapMs: number | ((element: T) => number)) {
    if (typeof gapMs === "function") {
      this.#gap = 0;
      this.#extractor = gapMs;
      return;
    }
    const subject = { action: `create ${new.target.name}`, param: "gapMs" };
    if (!Number.isSafeInteger(gapMs) || gapMs <= 0) {
      const error = relationError(
        subject,
        "be a safe integer with 0 < gapMs",
        gapMs,
      );
      throw typeof gapMs === "number" ? error : new TypeError(error.message);
    }
    this.#gap = gapMs;
    this.#extractor = null;
  }

  /**
   * Creates an assigner of sessions that end after `gapMs` without records.
   *
   * @typeParam T The record type.
   * @param gapMs The gap in milliseconds; positive.
   * @returns The assigner.
   * @throws {RangeError} If `gapMs` is not a positive safe integer.
   * @throws {TypeError} If `gapMs` is not a number.
   */
  static withGap<T = unknown>(gapMs: number): EventTimeSessionWindows<T> {
    return new EventTimeSessionWindows<T>(gapMs);
  }

  /**
   * Creates an assigner whose gap is chosen per record: each record's
   * window is `[timestamp, timestamp + extractor(record))`, so a session
   * ends after the gap of its latest-ending record.
   *
   * The extractor runs once per record, and its result is checked then.
   *
   * @typeParam T The record type.
   * @param extractor Returns a record's gap in milliseconds; a positive safe integer.
   * @returns The assigner.
   * @throws {TypeError} If `extractor` is not a function.
   */
  static withDynamicGap<T>(
    extractor: (element: T) => number,
  ): EventTimeSessionWindows<T> {
    requireFunction(extractor, {
      action: "create EventTimeSessionWindows",
      param: "extractor",
    });
    return new EventTimeSessionWindows<T>(extractor);
  }

  /**
   * The fixed gap in milliseconds, or `null` when each record's gap comes
   * from an extractor ({@linkcode EventTimeSessionWindows.withDynamicGap}).
   */
  get gapMs(): number | null {
    return this.#extractor === null ? this.#gap : null;
  }

  /**
   * Returns the record's own window, `[timestamp, timestamp + gap)`, its
   * end clipped to `Number.MAX_SAFE_INTEGER + 1`.
   *
   * @param element The record, passed to a dynamic gap's extractor.
   * @param timestamp The record's event time in milliseconds.
   * @param _context Unused.
   * @returns One window; the operator merges it with the key's other windows.
   * @throws {RangeError} If `timestamp` is not finite (`-Infinity`: the record
   * has no timestamp), or a dynamic gap is not a positive safe integer.
   * @throws {TypeError} If a dynamic gap is not a number.
   */
  assignWindows(
    element: T,
    timestamp: number,
    _context: WindowAssignerContext,
  ): TimeWindow[] {
    requireRecordTimestamp(timestamp, "EventTimeSessionWindows");
    let gap = this.#gap;
    if (this.#extractor !== null) {
      gap = this.#extractor(element);
      // Flink checks each dynamic gap ("0 < gap"); the inline test keeps the
      // common case free of the helper call.
      if (!(Number.isSafeInteger(gap) && gap > 0)) {
        requirePositiveInteger(gap, DYNAMIC_GAP);
      }
    }
    // Clipped at the end of the safe range (see TimeWindow): clipped
    // sessions still touch whenever their unclipped ones would.
    return [new TimeWindow(timestamp, clipEnd(timestamp + gap))];
  }

  /**
   * Merges the windows of one key that overlap or touch, calling `onMerge`
   * once per group of two or more (the shared {@linkcode mergeWindows}).
   *
   * @param windows The windows of one key; not modified.
   * @param onMerge Called with each group and the window covering it.
   */
  mergeWindows(windows: TimeWindow[], onMerge: MergeCallback): void {
    mergeWindows(windows, onMerge);
  }

  /** Returns {@linkcode EventTimeTrigger}. */
  defaultTrigger(): Trigger<T> {
    return EventTimeTrigger.create<T>();
  }

  /** Renders the assigner for plans and logs. */
  toString(): string {
    return this.#extractor === null
      ? `EventTimeSessionWindows(${this.#gap})`
      : "EventTimeSessionWindows(dynamic gap)";
  }
}
