/**
 * Processing time, injected. Nothing else in `src/` reads the system time:
 * tests drive a {@linkcode ManualClock}, runtimes pass a {@linkcode SystemClock}.
 *
 * @module
 */

import { requireNonNegativeInteger, requireSafeInteger } from "./validate.ts";

/** A source of processing time in milliseconds. */
export interface Clock {
  /** The current processing time in milliseconds. */
  now(): number;
}

/**
 * The machine's wall clock (`Date.now()`): epoch milliseconds.
 *
 * It can step backwards when the system time is corrected; consumers that
 * measure durations (the idleness timer) tolerate that by only ever waiting
 * longer, never firing early.
 */
export class SystemClock implements Clock {
  /** Returns `Date.now()`. */
  now(): number {
    return Date.now();
  }
}

/**
 * A clock that moves only when told to: the clock of every test.
 *
 * @example Advancing a manual clock
 * ```ts
 * import { ManualClock } from "@weir/weir";
 * import assert from "node:assert/strict";
 *
 * const clock = new ManualClock(1_000);
 * clock.advance(250);
 * assert.equal(clock.now(), 1_250);
 * ```
 */
export class ManualClock implements Clock {
  #now: number;

  /**
   * Creates a clock that reads `start` until moved.
   *
   * @param start The initial time in milliseconds.
   * @throws {RangeError} If `start` is not a safe integer.
   */
  constructor(start = 0) {
    this.#now = requireSafeInteger(start, {
      action: "create ManualClock",
      param: "start",
    });
  }

  /** Returns the time last set. */
  now(): number {
    return this.#now;
  }

  /**
   * Moves the clock forward.
   *
   * @param ms A non-negative number of milliseconds.
   * @throws {RangeError} If `ms` is negative or not a safe integer.
   */
  advance(ms: number): void {
    this.#now += requireNonNegativeInteger(ms, {
      action: "advance ManualClock",
      param: "ms",
    });
  }

  /**
   * Sets the clock to a time not before the current one: the clock is
   * monotonic, as the idleness timer expects.
   *
   * @param ms The new time in milliseconds.
   * @throws {RangeError} If `ms` is earlier than `now()` or not a safe integer.
   */
  set(ms: number): void {
    const subject = { action: "set ManualClock", param: "ms" };
    if (requireSafeInteger(ms, subject) < this.#now) {
      throw new RangeError(
        `Cannot set ManualClock as 'ms' must not be before the current time ${this.#now}: current value is ${ms}`,
      );
    }
    this.#now = ms;
  }
}
