/**
 * The contract of a window trigger: when a window's contents are emitted.
 *
 * @module
 */

import type { TimeWindow } from "./time_window.ts";

/**
 * What a trigger tells the window operator to do with a window.
 *
 * - `"continue"`: nothing.
 * - `"fire"`: emit the window's result and keep its contents.
 * - `"purge"`: drop the contents without emitting.
 * - `"fire_and_purge"`: emit, then drop the contents.
 */
export type TriggerResult = "continue" | "fire" | "purge" | "fire_and_purge";

/**
 * What a trigger may do and see for the one (key, window) it is called for.
 *
 * Each (key, window) has one number of trigger state (a count, the next
 * early-firing time), kept with the window's contents and snapshotted with
 * them. Timers registered here are deduplicated per (timestamp, key, window).
 */
export interface TriggerContext {
  /** The operator's current watermark; `-Infinity` before the first. */
  readonly currentWatermark: number;
  /**
   * The operator clock's processing time in milliseconds. In a job the
   * clock is read once per call into the operator (a batch, a watermark,
   * a processing-time tick), so the records of one batch see one time.
   */
  readonly currentProcessingTime: number;
  /** Registers an event-time timer that fires once the watermark reaches `timestamp`. */
  registerEventTimeTimer(timestamp: number): void;
  /** Deletes an event-time timer of this key and window, if present. */
  deleteEventTimeTimer(timestamp: number): void;
  /** Registers a processing-time timer that fires once the clock reaches `timestamp`. */
  registerProcessingTimeTimer(timestamp: number): void;
  /** Deletes a processing-time timer of this key and window, if present. */
  deleteProcessingTimeTimer(timestamp: number): void;
  /** Returns this window's trigger state, `undefined` until set. */
  getState(): number | undefined;
  /** Replaces this window's trigger state; `undefined` clears it. */
  setState(value: number | undefined): void;
}

/**
 * The context of {@linkcode Trigger.onMerge}: the merged window's context,
 * plus the trigger states of the windows that were merged into it.
 */
export interface OnMergeContext extends TriggerContext {
  /** The trigger states of the merged windows that had one. */
  readonly mergedStates: readonly number[];
}

/**
 * Decides when a window emits (Flink's `Trigger`).
 *
 * Called by the window operator for one (key, window) at a time: on each
 * record added to the window, on each timer of that window, when windows
 * merge, and when the window is cleaned up. Implementations keep their state
 * only through the context, so it is snapshotted and merged with the window.
 *
 * @typeParam T The record type.
 */
export interface Trigger<T> {
  /** Called for each record added to `window`. */
  onElement(
    element: T,
    timestamp: number,
    window: TimeWindow,
    context: TriggerContext,
  ): TriggerResult;
  /** Called when an event-time timer of `window` fires at `time`. */
  onEventTime(
    time: number,
    window: TimeWindow,
    context: TriggerContext,
  ): TriggerResult;
  /** Called when a processing-time timer of `window` fires at `time`. */
  onProcessingTime(
    time: number,
    window: TimeWindow,
    context: TriggerContext,
  ): TriggerResult;
  /** Whether the trigger supports merging windows (sessions). */
  readonly canMerge: boolean;
  /** Called on the merged window after windows merged; re-registers timers. */
  onMerge(window: TimeWindow, context: OnMergeContext): void;
  /** Called when `window` is cleaned up: delete timers and state. */
  clear(window: TimeWindow, context: TriggerContext): void;
}
