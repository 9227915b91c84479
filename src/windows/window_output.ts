/**
 * Where a window operator sends its results, side outputs and watermarks,
 * and the records and windows whose user code threw.
 *
 * @module
 */

import type { OutputTag } from "./output_tag.ts";
import type { TimeWindow } from "./time_window.ts";

/** Where a window operator sends what it produces. */
export interface WindowOutput<OUT> {
  /** A window result, with the window's `maxTimestamp()` as its timestamp. */
  collect(value: OUT, timestamp: number): void;
  /** A late record (original timestamp) or a process function's side output. */
  sideOutput(tag: OutputTag<unknown>, value: unknown, timestamp: number): void;
  /** The watermark, after everything it caused was emitted. */
  emitWatermark(watermark: number): void;
  /**
   * A fired window's results were all collected (or set aside through
   * `rejectFire`): those collected so far are final, so the receiver may
   * send them on before the sweep ends. Called by the engines of tumbling
   * and sliding event-time windows and of event-time sessions of a fixed
   * gap, with the default trigger, after each window of a key (each
   * session) they fire; not by the general engine (other windows or
   * triggers, or after a handover). Absent: nothing.
   */
  windowDone?(): void;
  /**
   * A record of `processBatch` (its index in the batch) whose key selector,
   * window assignment, trigger (`onElement`; `onMerge` or `clear` while
   * its windows merge) or window function (`add`: an aggregate, a reduce;
   * `merge`) threw, and the batch goes on. The record has no effect on the
   * window it threw for: a window it created is gone, and an existing one
   * keeps its contents, trigger state and timers. Its earlier windows (a
   * sliding record's first ones) keep it, and windows it merged stay
   * merged. One limit: an `add` that changed the accumulator it was given
   * before it threw keeps that change, as the operator does not copy
   * accumulators per record; return a new accumulator, or throw before
   * changing it. Absent: the error propagates.
   */
  rejectRecord?(
    value: unknown,
    timestamp: number,
    error: unknown,
    index: number,
  ): void;
  /**
   * A window whose function threw when it fired: the window counts as
   * fired (a purge or cleanup still happens). `emitted` results were
   * collected before the throw; the receiver drops them. Also a window
   * whose trigger threw on one of its timers (`onEventTime`,
   * `onProcessingTime`) or at its cleanup (`clear`), with `emitted` 0: its
   * trigger state is then unknown, so the window is dropped as at its
   * cleanup (contents, trigger state and timers) and its trigger is not
   * called again; a trigger that throws on every timer costs one dead
   * letter per window, never a crash loop. Absent: the error propagates.
   */
  rejectFire?(
    key: unknown,
    window: TimeWindow,
    error: unknown,
    emitted: number,
  ): void;
}
