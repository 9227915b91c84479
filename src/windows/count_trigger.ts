/**
 * A trigger that fires every N records.
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

/**
 * Fires once a window has received `maxCount` records since it last fired
 * (Flink's `CountTrigger`), then counts again from zero. The count is the
 * window's trigger state: merged sessions add their counts.
 */
export class CountTrigger<T> implements Trigger<T> {
  /** Merging is supported: counts add up. */
  readonly canMerge = true;
  readonly #maxCount: number;

  /**
   * Creates a trigger; prefer {@linkcode CountTrigger.of}.
   *
   * @param maxCount Records per firing.
   * @throws {RangeError} If `maxCount` is not a positive safe integer.
   */
  constructor(maxCount: number) {
    this.#maxCount = requirePositiveInteger(maxCount, {
      action: "create CountTrigger",
      param: "maxCount",
    });
  }

  /**
   * Returns a trigger that fires every `maxCount` records.
   *
   * @param maxCount Records per firing.
   * @returns The trigger.
   * @throws {RangeError} If `maxCount` is not a positive safe integer.
   */
  static of<T>(maxCount: number): CountTrigger<T> {
    return new CountTrigger<T>(maxCount);
  }

  /** Counts the record; fires and resets at `maxCount`. */
  onElement(
    _element: T,
    _timestamp: number,
    _window: TimeWindow,
    context: TriggerContext,
  ): TriggerResult {
    const count = (context.getState() ?? 0) + 1;
    if (count >= this.#maxCount) {
      context.setState(undefined);
      return "fire";
    }
    context.setState(count);
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

  /** Adds up the counts of the merged windows. */
  onMerge(_window: TimeWindow, context: OnMergeContext): void {
    let sum = 0;
    for (const count of context.mergedStates) sum += count;
    context.setState(sum === 0 ? undefined : sum);
  }

  /** Drops the count. */
  clear(_window: TimeWindow, context: TriggerContext): void {
    context.setState(undefined);
  }
}
