/**
 * The default trigger of processing-time windows.
 *
 * @module
 */

import type { TimeWindow } from "./time_window.ts";
import type {
  OnMergeContext,
  Trigger,
  TriggerContext,
  TriggerResult,
} from "./trigger.ts";

/**
 * Fires a window once the processing-time clock reaches its last millisecond
 * (Flink's `ProcessingTimeTrigger`). Watermarks play no part.
 */
export class ProcessingTimeTrigger<T> implements Trigger<T> {
  /** Merging is supported. */
  readonly canMerge = true;

  /**
   * Returns a processing-time trigger.
   *
   * @returns A new trigger; it holds no state of its own.
   */
  static create<T>(): ProcessingTimeTrigger<T> {
    return new ProcessingTimeTrigger<T>();
  }

  /** Registers a processing-time timer at the window's last millisecond. */
  onElement(
    _element: T,
    _timestamp: number,
    window: TimeWindow,
    context: TriggerContext,
  ): TriggerResult {
    context.registerProcessingTimeTimer(window.maxTimestamp());
    return "continue";
  }

  /** Ignores event time. */
  onEventTime(
    _time: number,
    _window: TimeWindow,
    _context: TriggerContext,
  ): TriggerResult {
    return "continue";
  }

  /** Fires. */
  onProcessingTime(
    _time: number,
    _window: TimeWindow,
    _context: TriggerContext,
  ): TriggerResult {
    return "fire";
  }

  /** Registers the merged window's timer unless its time has passed. */
  onMerge(window: TimeWindow, context: OnMergeContext): void {
    if (window.maxTimestamp() > context.currentProcessingTime) {
      context.registerProcessingTimeTimer(window.maxTimestamp());
    }
  }

  /** Deletes the window's timer. */
  clear(window: TimeWindow, context: TriggerContext): void {
    context.deleteProcessingTimeTimer(window.maxTimestamp());
  }
}
