/**
 * The trigger that never fires: the default of global windows.
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
 * Never fires (Flink's `GlobalWindows.NeverTrigger`): a global window emits
 * only through a trigger the user sets, such as `CountTrigger`.
 */
export class NeverTrigger<T> implements Trigger<T> {
  /** Merging is supported (trivially). */
  readonly canMerge = true;

  /**
   * Returns a trigger that never fires.
   *
   * @returns A new trigger.
   */
  static create<T>(): NeverTrigger<T> {
    return new NeverTrigger<T>();
  }

  /** Continues. */
  onElement(
    _element: T,
    _timestamp: number,
    _window: TimeWindow,
    _context: TriggerContext,
  ): TriggerResult {
    return "continue";
  }

  /** Continues. */
  onEventTime(
    _time: number,
    _window: TimeWindow,
    _context: TriggerContext,
  ): TriggerResult {
    return "continue";
  }

  /** Continues. */
  onProcessingTime(
    _time: number,
    _window: TimeWindow,
    _context: TriggerContext,
  ): TriggerResult {
    return "continue";
  }

  /** Does nothing. */
  onMerge(_window: TimeWindow, _context: OnMergeContext): void {}

  /** Does nothing. */
  clear(_window: TimeWindow, _context: TriggerContext): void {}
}
