/**
 * One window per key over all time, for custom triggers.
 *
 * @module
 */

import { NeverTrigger } from "./never_trigger.ts";
import { TimeWindow } from "./time_window.ts";
import type { Trigger } from "./trigger.ts";
import type {
  WindowAssigner,
  WindowAssignerContext,
} from "./window_assigner.ts";

/**
 * Puts every record of a key in the same window,
 * {@linkcode TimeWindow.GLOBAL} (Flink's `GlobalWindows`).
 *
 * The window never ends, so its default trigger,
 * {@linkcode NeverTrigger}, never fires: set a trigger (a count, a
 * processing-time interval) to get results. The record's timestamp is not
 * read, so records without one (`-Infinity`) are fine. `isEventTime` is
 * `false`, as in Flink: allowed lateness does not apply and no record is
 * ever late. Cost: one one-element array per record, no window allocated.
 *
 * @typeParam T The record type (unused).
 *
 * @example Every record lands in the global window
 * ```ts
 * import { ManualClock, TimeWindow } from "@weir/weir";
 * import { GlobalWindows } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const assigner = GlobalWindows.create();
 * const [window] = assigner.assignWindows("click", -Infinity, { clock: new ManualClock() });
 * assert.equal(window, TimeWindow.GLOBAL);
 * assert.equal(window.maxTimestamp(), Infinity);
 * ```
 */
export class GlobalWindows<T = unknown> implements WindowAssigner<T> {
  /** Always `false`: watermarks never close the global window. */
  readonly isEventTime: boolean = false;
  /** Always `false`: there is only one window per key. */
  readonly isMerging: boolean = false;

  /**
   * Creates the assigner.
   *
   * @typeParam T The record type.
   * @returns The assigner.
   */
  static create<T = unknown>(): GlobalWindows<T> {
    return new GlobalWindows<T>();
  }

  /**
   * Returns the global window, whatever the record.
   *
   * @param _element The record (unused).
   * @param _timestamp The record's event time (unused; may be `-Infinity`).
   * @param _context Unused.
   * @returns `[TimeWindow.GLOBAL]`, a new array each call.
   */
  assignWindows(
    _element: T,
    _timestamp: number,
    _context: WindowAssignerContext,
  ): TimeWindow[] {
    // A fresh array: callers own the returned array and may change it.
    return [TimeWindow.GLOBAL];
  }

  /** Returns {@linkcode NeverTrigger}. */
  defaultTrigger(): Trigger<T> {
    return NeverTrigger.create<T>();
  }

  /** Renders the assigner for plans and logs. */
  toString(): string {
    return "GlobalWindows()";
  }
}
