/**
 * A clock that stops counting while it is paused: the input-activity clock of
 * a subtask (FLINK-35886).
 *
 * @module
 */

import type { Clock } from "./clock.ts";

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
 * import { ManualClock, PausableClock } from "@weir/weir";
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
}
