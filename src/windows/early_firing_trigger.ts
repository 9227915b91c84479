/**
 * Speculative results before a window closes.
 *
 * @module
 */

import { requirePositiveInteger } from "../time/validate.ts";
import type { TimeWindow } from "./time_window.ts";
import type {
  OnMergeContext,
  Trigger,
  TriggerContext,
  TriggerResult,
} from "./trigger.ts";
import { gridDistance } from "./_window_bounds.ts";

/**
 * Fires a window early every `intervalMs` of event time, then on time when the
 * watermark passes its end, then once per late record within the allowed
 * lateness: Flink's `ContinuousEventTimeTrigger` combined with
 * `EventTimeTrigger`, the usual answer to "my window is long and the
 * dashboard should move before it closes".
 *
 * Early firings happen at multiples of `intervalMs` (aligned like tumbling
 * windows) strictly before `window.maxTimestamp()`. When the watermark jumps
 * over several intervals, the window fires once for the jump, not once per
 * skipped interval. The next early-firing time is the window's trigger state.
 *
 * It does not purge: each firing emits everything so far. Wrap it in
 * {@linkcode PurgingTrigger} to emit deltas instead.
 *
 * @example Early firings every 10 s in a one-minute window
 * ```ts
 * import { EarlyFiringTrigger } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const trigger = EarlyFiringTrigger.every<string>(10_000);
 * assert.equal(trigger.intervalMs, 10_000);
 * ```
 */
export class EarlyFiringTrigger<T> implements Trigger<T> {
  /** Merging is supported: the earliest pending early firing wins. */
  readonly canMerge = true;
  readonly #interval: number;

  /**
   * Creates the trigger; prefer {@linkcode EarlyFiringTrigger.every}.
   *
   * @param intervalMs Event time between early firings, in milliseconds.
   * @throws {RangeError} If `intervalMs` is not a positive safe integer.
   */
  constructor(intervalMs: number) {
    this.#interval = requirePositiveInteger(intervalMs, {
      action: "create EarlyFiringTrigger",
      param: "intervalMs",
    });
  }

  /**
   * Returns a trigger that fires every `intervalMs` of event time before the
   * window ends, on time, and on each late record.
   *
   * @param intervalMs Event time between early firings, in milliseconds.
   * @returns The trigger.
   * @throws {RangeError} If `intervalMs` is not a positive safe integer.
   */
  static every<T>(intervalMs: number): EarlyFiringTrigger<T> {
    return new EarlyFiringTrigger<T>(intervalMs);
  }

  /** Event time between early firings, in milliseconds. */
  get intervalMs(): number {
    return this.#interval;
  }

  /** Fires for a late record; otherwise makes sure both timers are set. */
  onElement(
    _element: T,
    timestamp: number,
    window: TimeWindow,
    context: TriggerContext,
  ): TriggerResult {
    if (window.maxTimestamp() <= context.currentWatermark) return "fire";
    context.registerEventTimeTimer(window.maxTimestamp());
    if (context.getState() === undefined) {
      const from = Math.max(timestamp, context.currentWatermark);
      this.#scheduleEarly(this.#nextAfter(from), window, context);
    }
    return "continue";
  }

  /** Fires on time, or early and schedules the next early firing. */
  onEventTime(
    time: number,
    window: TimeWindow,
    context: TriggerContext,
  ): TriggerResult {
    if (time === window.maxTimestamp()) return "fire";
    if (time !== context.getState()) return "continue";
    // Skip intervals the watermark has already passed: one firing per jump.
    this.#scheduleEarly(
      this.#nextAfter(Math.max(context.currentWatermark, time)),
      window,
      context,
    );
    return "fire";
  }

  /** Ignores processing time. */
  onProcessingTime(
    _time: number,
    _window: TimeWindow,
    _context: TriggerContext,
  ): TriggerResult {
    return "continue";
  }

  /** Re-registers the on-time timer and the earliest pending early firing. */
  onMerge(window: TimeWindow, context: OnMergeContext): void {
    if (window.maxTimestamp() > context.currentWatermark) {
      context.registerEventTimeTimer(window.maxTimestamp());
    }
    let earliest = Infinity;
    for (const next of context.mergedStates) {
      if (next < earliest) earliest = next;
    }
    context.setState(undefined);
    if (earliest < Infinity) this.#scheduleEarly(earliest, window, context);
  }

  /** Deletes both timers and the state. */
  clear(window: TimeWindow, context: TriggerContext): void {
    context.deleteEventTimeTimer(window.maxTimestamp());
    const next = context.getState();
    if (next !== undefined) context.deleteEventTimeTimer(next);
    context.setState(undefined);
  }

  /**
   * The first interval boundary strictly after `time`; `Infinity` after the
   * final watermark, so nothing is scheduled then.
   */
  #nextAfter(time: number): number {
    // `time` may be the watermark, Infinity at the end of input, where the
    // grid has no boundary (the distance would be NaN, and a timer at NaN
    // throws). Taken relative to `time`, the sum is exact while safe, and
    // past the safe range it is at or past the window's end, where
    // #scheduleEarly schedules nothing.
    if (time === Infinity) return Infinity;
    return time + (this.#interval - gridDistance(time, 0, this.#interval));
  }

  #scheduleEarly(
    next: number,
    window: TimeWindow,
    context: TriggerContext,
  ): void {
    // At or past the end, the on-time timer covers it.
    if (next >= window.maxTimestamp()) {
      context.setState(undefined);
      return;
    }
    context.setState(next);
    context.registerEventTimeTimer(next);
  }
}
