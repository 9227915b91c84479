/**
 * The countdown behind {@linkcode WatermarksWithIdleness}.
 *
 * @module
 */

import type { Clock } from "./clock.ts";
import { describeValue, requirePositiveInteger } from "./validate.ts";

/** An {@linkcode IdlenessTimer}'s state as plain data, for persist-mode checkpoints. */
export interface IdlenessTimerSnapshot {
  /** Whether a record arrived since the last probe. */
  activity: boolean;
  /**
   * When the countdown started, on the timer's clock (the input-activity
   * clock), or `null` if no countdown runs.
   */
  countdownStart: number | null;
}

/**
 * Decides when a quiet input counts as idle (Flink's `IdlenessTimer`).
 *
 * `activity()` is called per record and only bumps a counter, so the record
 * path stays cheap. `checkIfIdle()` is called from each periodic probe: a
 * probe that saw activity since the previous one resets the countdown; the
 * first quiet probe starts it; a later probe reports idle once strictly more
 * than `idleTimeoutMs` has passed on the clock since then. So idleness is
 * declared between `timeout` and `timeout + 3` probe intervals after the last
 * record (FLINK-40503).
 *
 * Unlike Flink, a clock reading of 0 is a valid countdown start: the "not
 * started" state is its own flag, not a sentinel time.
 */
export class IdlenessTimer {
  readonly #clock: Clock;
  readonly #timeout: number;
  #counter = 0;
  #lastCounter = 0;
  #countdownStart = 0;
  #counting = false;

  /**
   * Creates a timer that has not started counting.
   *
   * @param clock The input-activity clock; pause it to stop the countdown.
   * @param idleTimeoutMs Quiet time after which the input is idle, in milliseconds.
   * @throws {RangeError} If `idleTimeoutMs` is not a positive safe integer.
   */
  constructor(clock: Clock, idleTimeoutMs: number) {
    this.#clock = clock;
    this.#timeout = requirePositiveInteger(idleTimeoutMs, {
      action: "create IdlenessTimer",
      param: "idleTimeoutMs",
    });
  }

  /** Notes that a record arrived. */
  activity(): void {
    this.#counter++;
  }

  /** Returns whether the input has been quiet for longer than the timeout. */
  checkIfIdle(): boolean {
    if (this.#counter !== this.#lastCounter) {
      this.#lastCounter = this.#counter;
      this.#counting = false;
      return false;
    }
    if (!this.#counting) {
      this.#counting = true;
      this.#countdownStart = this.#clock.now();
      return false;
    }
    return this.#clock.now() - this.#countdownStart > this.#timeout;
  }

  /**
   * Returns the countdown as plain data. Its start is a reading of the
   * timer's clock, so a restore needs that clock restored too (see
   * `PausableClock.snapshotState`).
   */
  snapshotState(): IdlenessTimerSnapshot {
    return {
      activity: this.#counter !== this.#lastCounter,
      countdownStart: this.#counting ? this.#countdownStart : null,
    };
  }

  /**
   * Puts back a countdown, so that the next probes decide as the
   * snapshot's timer would have.
   *
   * @param state What `snapshotState()` returned.
   * @throws {TypeError} If `state.activity` is not a boolean or
   *   `state.countdownStart` is neither a number nor `null`.
   */
  restoreState(state: IdlenessTimerSnapshot): void {
    const action = "restore IdlenessTimer";
    if (typeof state?.activity !== "boolean") {
      throw new TypeError(
        `Cannot ${action} as 'state.activity' must be a boolean: current value is ${
          describeValue(state?.activity)
        }`,
      );
    }
    const start = state.countdownStart;
    if (start !== null && typeof start !== "number") {
      throw new TypeError(
        `Cannot ${action} as 'state.countdownStart' must be a number or null: current value is ${
          describeValue(start)
        }`,
      );
    }
    this.#lastCounter = 0;
    this.#counter = state.activity ? 1 : 0;
    this.#counting = start !== null;
    this.#countdownStart = start ?? 0;
  }
}
