/**
 * The contract of a window assigner.
 *
 * @module
 */

import type { Clock } from "../time/mod.ts";
import type { TimeWindow } from "./time_window.ts";
import type { Trigger } from "./trigger.ts";

/** What an assigner may consult besides the record. */
export interface WindowAssignerContext {
  /** Processing time, for processing-time windows and the natural stagger. */
  readonly clock: Clock;
}

/**
 * Decides which windows a record belongs to (Flink's `WindowAssigner`).
 *
 * `assignWindows` runs once per record, so it should allocate little: the
 * returned array and its windows may be shared between calls (the built-in
 * assigners reuse them while records fall into the same windows), and
 * callers must not modify them. Event-time assigners reject a record without
 * a timestamp (`-Infinity`).
 *
 * @typeParam T The record type.
 */
export interface WindowAssigner<T> {
  /**
   * Returns the windows of one record.
   *
   * @param element The record.
   * @param timestamp Its event timestamp in milliseconds.
   * @param context Processing time, for processing-time assigners.
   * @returns The windows (possibly none); shared, do not modify.
   */
  assignWindows(
    element: T,
    timestamp: number,
    context: WindowAssignerContext,
  ): TimeWindow[];
  /** The trigger used when the user sets none. */
  defaultTrigger(): Trigger<T>;
  /** Whether windows are in event time (lateness applies) or processing time. */
  readonly isEventTime: boolean;
  /** Whether windows of one key merge when they touch (sessions). */
  readonly isMerging: boolean;
}
