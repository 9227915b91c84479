/**
 * A clock that stops counting while it is paused: the input-activity clock of
 * a subtask (FLINK-35886).
 *
 * @module
 */

import type { Clock } from "./clock.ts";
import { requireNonNegativeInteger } from "./validate.ts";

/** A {@linkcode PausableClock}'s state as plain data, for persist-mode checkpoints. */
export interface PausableClockSnapshot {
  /**
   * How far the clock is behind the underlying one, in milliseconds: all
   * paused time up to the snapshot, a pause in force included.
   */
  pausedMs: number;
}

/**
 * Processing time that does not advance while paused.
 *
 * A subtask pauses it while it is back-pressured or held by watermark
 * alignment, so {@linkcode WatermarksWithIdleness} does not declare an input
 * idle merely because the subtask could not read it (FLINK-35886). Pauses nest:
 * each {@linkcode PausableClock.pause} needs its own
 * {@linkcode PausableClock.resume}, so back-pressure and alignment can pause
 * independently.
 *
 * `now()` starts at the underlying clock's time and then lags it by the total
 * paused time, so it is a relative clock: compare its readings, do not treat
 * them as epoch time.
 *
 * @example Time stands still while paused
 * ```ts
 * import { ManualClock, PausableClock } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const wall = new ManualClock(0);
 * const activity = new PausableClock(wall);
 * activity.pause();
 * wall.advance(500);
 * activity.resume();
 * wall.advance(100);
 * assert.equal(activity.now(), 100);
 * ```
 */
export class PausableClock implements Clock {
  readonly #underlying: Clock;
  #pausedTotal = 0;
  #pauses = 0;
  #pausedAt = 0;

  /**
   * Creates a running clock.
   *
   * @param underlying The clock whose time passes while not paused.
   */
  constructor(underlying: Clock) {
    this.#underlying = underlying;
  }

  /** Underlying time minus all paused time; frozen while paused. */
  now(): number {
    const end = this.#pauses > 0 ? this.#pausedAt : this.#underlying.now();
    return end - this.#pausedTotal;
  }

  /** Whether at least one pause is in force. */
  get paused(): boolean {
    return this.#pauses > 0;
  }

  /** Stops the clock (or adds one more reason to keep it stopped). */
  pause(): void {
    if (this.#pauses++ === 0) this.#pausedAt = this.#underlying.now();
  }

  /**
   * Removes one reason to stay paused; the clock runs again when none is left.
   *
   * @throws {RangeError} If the clock is not paused.
   */
  resume(): void {
    if (this.#pauses === 0) {
      throw new RangeError(
        "Cannot resume PausableClock as it must be paused: current pause count is 0",
      );
    }
    if (--this.#pauses === 0) {
      this.#pausedTotal += Math.max(0, this.#underlying.now() - this.#pausedAt);
    }
  }

  /**
   * Returns how far the clock is behind the underlying one now. Readings
   * taken from this clock (an idleness countdown's start) stay comparable
   * with a restored clock's only if the restore puts this lag back.
   *
   * @returns Plain data.
   */
  snapshotState(): PausableClockSnapshot {
    // A wall clock that stepped back during a pause must not make it negative.
    return { pausedMs: Math.max(0, this.#underlying.now() - this.now()) };
  }

  /**
   * Puts back the lag of a snapshot, so that `now()` reads as the snapshot's
   * clock did at the same underlying time. Pauses in force are kept and
   * count from now; the runtime pauses a restored subtask again if it is
   * still held.
   *
   * @param state What `snapshotState()` returned.
   * @throws {RangeError} If `state.pausedMs` is not a non-negative safe integer.
   */
  restoreState(state: PausableClockSnapshot): void {
    this.#pausedTotal = requireNonNegativeInteger(state?.pausedMs, {
      action: "restore PausableClock",
      param: "state.pausedMs",
    });
    if (this.#pauses > 0) this.#pausedAt = this.#underlying.now();
  }
}
