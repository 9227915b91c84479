/**
 * Idleness detection around any generator.
 *
 * @module
 */

import type { Clock } from "./clock.ts";
import { IdlenessTimer, type IdlenessTimerSnapshot } from "./idleness_timer.ts";
import {
  type CheckpointedWatermarkGenerator,
  isCheckpointedGenerator,
  type WatermarkGenerator,
} from "./watermark_generator.ts";
import type { WatermarkOutput } from "./watermark_output.ts";
import { requirePositiveInteger } from "./validate.ts";

/** The state of a {@linkcode WatermarksWithIdleness} as plain data. */
export interface WatermarksWithIdlenessSnapshot {
  /** The wrapped generator's snapshot, or `null` if it has none. */
  inner: unknown;
  /**
   * The idleness countdown; absent in snapshots of older versions, whose
   * restored generator starts active with no countdown.
   */
  timer?: IdlenessTimerSnapshot;
  /** Whether the output was marked idle; absent with `timer`. */
  idle?: boolean;
}

/**
 * Wraps a generator and marks the output idle when no record arrives for
 * longer than `idleTimeoutMs`, so one silent partition no longer holds back the
 * watermark of everything downstream (the most common cause of a
 * stuck watermark).
 *
 * - Idleness is checked only in `onPeriodicEmit`, with the countdown rules of
 *   {@linkcode IdlenessTimer}. While idle, the wrapped generator's
 *   `onPeriodicEmit` is not called.
 * - `markIdle()` is called once per idle period (FLINK-28975), not on every
 *   quiet probe.
 * - The first record after an idle period calls `markActive()` at once
 *   (FLINK-40504): becoming active is explicit, so a stream whose watermark
 *   did not move is not left idle downstream.
 * - The clock should be the subtask's input-activity clock, a
 *   {@linkcode PausableClock} paused while the subtask is back-pressured, so
 *   time spent unable to read does not count as silence (FLINK-35886).
 *
 * A snapshot holds the wrapped generator's state, the countdown and the idle
 * flag, so a restored generator declares idleness at the same probe as the
 * one that never stopped (persist mode snapshots everything that
 * decides event time). The countdown is a reading of the clock: restore the
 * input-activity clock with it (`PausableClock.restoreState`).
 *
 * @typeParam T The record type.
 *
 * @example A quiet input goes idle after the timeout
 * ```ts
 * import { ManualClock, NoWatermarksGenerator, WatermarksWithIdleness } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const clock = new ManualClock(0);
 * const generator = new WatermarksWithIdleness(new NoWatermarksGenerator(), 10, clock);
 * const calls: string[] = [];
 * const output = { emitWatermark() {}, markIdle: () => calls.push("idle"), markActive: () => calls.push("active") };
 * generator.onPeriodicEmit(output); // first quiet probe starts the countdown
 * clock.advance(11);
 * generator.onPeriodicEmit(output);
 * generator.onEvent("x", 1, output);
 * assert.deepEqual(calls, ["idle", "active"]);
 * ```
 */
export class WatermarksWithIdleness<T>
  implements CheckpointedWatermarkGenerator<T, WatermarksWithIdlenessSnapshot> {
  readonly #inner: WatermarkGenerator<T>;
  readonly #timer: IdlenessTimer;
  #idle = false;

  /**
   * Wraps a generator; the output starts active.
   *
   * @param inner The generator that produces the watermarks.
   * @param idleTimeoutMs Quiet time after which the output is idle, in milliseconds.
   * @param clock The input-activity clock.
   * @throws {RangeError} If `idleTimeoutMs` is zero, negative or not a safe integer.
   */
  constructor(
    inner: WatermarkGenerator<T>,
    idleTimeoutMs: number,
    clock: Clock,
  ) {
    requirePositiveInteger(idleTimeoutMs, {
      action: "create WatermarksWithIdleness",
      param: "idleTimeoutMs",
    });
    this.#inner = inner;
    this.#timer = new IdlenessTimer(clock, idleTimeoutMs);
  }

  /** Whether the output is currently marked idle. */
  get idle(): boolean {
    return this.#idle;
  }

  /** Passes the record on, notes activity, and ends an idle period. */
  onEvent(event: T, timestamp: number, output: WatermarkOutput): void {
    this.#inner.onEvent(event, timestamp, output);
    this.#timer.activity();
    if (this.#idle) {
      this.#idle = false;
      output.markActive();
    }
  }

  /** Marks idle on the first idle probe; otherwise lets the wrapped generator emit. */
  onPeriodicEmit(output: WatermarkOutput): void {
    if (this.#timer.checkIfIdle()) {
      if (!this.#idle) {
        this.#idle = true;
        output.markIdle();
      }
      return;
    }
    this.#inner.onPeriodicEmit(output);
  }

  /** Returns the wrapped generator's state, the countdown and the idle flag. */
  snapshotState(): WatermarksWithIdlenessSnapshot {
    return {
      inner: isCheckpointedGenerator(this.#inner)
        ? this.#inner.snapshotState()
        : null,
      timer: this.#timer.snapshotState(),
      idle: this.#idle,
    };
  }

  /**
   * Restores the wrapped generator's state, the countdown and the idle flag
   * (a snapshot without them leaves the generator active); emits nothing.
   *
   * @throws {TypeError} If the countdown in `state` is malformed.
   */
  restoreState(state: WatermarksWithIdlenessSnapshot): void {
    if (isCheckpointedGenerator(this.#inner)) {
      this.#inner.restoreState(state.inner);
    }
    if (state.timer !== undefined) {
      this.#timer.restoreState(state.timer);
      this.#idle = state.idle === true;
    }
  }
}
