/**
 * A wrapper that purges a window's contents whenever it fires.
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

function purging(result: TriggerResult): TriggerResult {
  return result === "fire" ? "fire_and_purge" : result;
}

/**
 * Turns every `"fire"` of the wrapped trigger into `"fire_and_purge"` (Flink's
 * `PurgingTrigger`), so each firing emits only what arrived since the last
 * one. Everything else is forwarded unchanged.
 */
export class PurgingTrigger<T> implements Trigger<T> {
  readonly #inner: Trigger<T>;

  /**
   * Wraps a trigger; prefer {@linkcode PurgingTrigger.of}.
   *
   * @param inner The trigger that decides when to fire.
   */
  constructor(inner: Trigger<T>) {
    this.#inner = inner;
  }

  /**
   * Returns a purging version of `inner`.
   *
   * @param inner The trigger that decides when to fire.
   * @returns The wrapper.
   */
  static of<T>(inner: Trigger<T>): PurgingTrigger<T> {
    return new PurgingTrigger(inner);
  }

  /** Whether the wrapped trigger supports merging. */
  get canMerge(): boolean {
    return this.#inner.canMerge;
  }

  /** Forwards, turning fire into fire-and-purge. */
  onElement(
    element: T,
    timestamp: number,
    window: TimeWindow,
    context: TriggerContext,
  ): TriggerResult {
    return purging(this.#inner.onElement(element, timestamp, window, context));
  }

  /** Forwards, turning fire into fire-and-purge. */
  onEventTime(
    time: number,
    window: TimeWindow,
    context: TriggerContext,
  ): TriggerResult {
    return purging(this.#inner.onEventTime(time, window, context));
  }

  /** Forwards, turning fire into fire-and-purge. */
  onProcessingTime(
    time: number,
    window: TimeWindow,
    context: TriggerContext,
  ): TriggerResult {
    return purging(this.#inner.onProcessingTime(time, window, context));
  }

  /** Forwards. */
  onMerge(window: TimeWindow, context: OnMergeContext): void {
    this.#inner.onMerge(window, context);
  }

  /** Forwards. */
  clear(window: TimeWindow, context: TriggerContext): void {
    this.#inner.clear(window, context);
  }
}
