/**
 * The default trigger of event-time windows.
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
 * Fires a window once the watermark passes its end (Flink's `EventTimeTrigger`).
 *
 * - On a record: if the watermark already reached `window.maxTimestamp()`
 *   (a late record within allowed lateness), fire at once; otherwise
 *   register a timer at `maxTimestamp()` and continue.
 * - On a timer: fire only for the timer at `maxTimestamp()`, so the cleanup
 *   timer at `maxTimestamp() + allowedLateness` does not fire again.
 * - On merge: register the merged window's timer only if it is still ahead
 *   of the watermark; otherwise the next record fires it (no double firing).
 *
 * It never purges: wrap it in {@linkcode PurgingTrigger} for that.
 */
export class EventTimeTrigger<T> implements Trigger<T> {
  /** Merging is supported (sessions). */
  readonly canMerge = true;

  /**
   * Returns an event-time trigger.
   *
   * @returns A new trigger; it holds no state of its own.
   */
  static create<T>(): EventTimeTrigger<T> {
    return new EventTimeTrigger<T>();
  }

  /** Fires a window the watermark has passed; otherwise sets its timer. */
  onElement(
    _element: T,
    _timestamp: number,
    window: TimeWindow,
    context: TriggerContext,
  ): TriggerResult {
    if (window.maxTimestamp() <= context.currentWatermark) return "fire";
    context.registerEventTimeTimer(window.maxTimestamp());
    return "continue";
  }

  /** Fires on the timer at the window's last timestamp only. */
  onEventTime(
    time: number,
    window: TimeWindow,
    _context: TriggerContext,
  ): TriggerResult {
    return time === window.maxTimestamp() ? "fire" : "continue";
  }

  /** Ignores processing time. */
  onProcessingTime(
    _time: number,
    _window: TimeWindow,
    _context: TriggerContext,
  ): TriggerResult {
    return "continue";
  }

  /** Re-registers the merged window's timer while it is ahead of the watermark. */
  onMerge(window: TimeWindow, context: OnMergeContext): void {
    if (window.maxTimestamp() > context.currentWatermark) {
      context.registerEventTimeTimer(window.maxTimestamp());
    }
  }

  /** Deletes the window's timer. */
  clear(window: TimeWindow, context: TriggerContext): void {
    context.deleteEventTimeTimer(window.maxTimestamp());
  }
}
