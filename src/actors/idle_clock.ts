/**
 * {@linkcode IdleClock}: what a runtime's loop does with processing time
 * when nothing can run: a simulated clock jumps to the next timer, the real
 * one is waited for.
 *
 * @module
 */

import type { Clock } from "../time/clock.ts";

/**
 * Moves time on for an idle runtime. With a settable clock (a
 * `ManualClock`) and `simulate` not `false`, {@linkcode IdleClock.advance}
 * sets it to the next timer: a deterministic simulation, with no waiting.
 * Otherwise {@linkcode IdleClock.sleep} waits in real time, up to a bound
 * (so the loop looks again at what arrived meanwhile), or until
 * {@linkcode IdleClock.wake}.
 */
export class IdleClock {
  readonly #clock: Clock;
  /** Whether the clock is simulated: {@linkcode advance}, never {@linkcode sleep}. */
  readonly simulated: boolean;
  #wake: (() => void) | null = null;

  /**
   * Decides once whether the clock is simulated.
   *
   * @param clock The runtime's clock.
   * @param simulate Whether to simulate; by default, when the clock has a
   * `set` method.
   */
  constructor(clock: Clock, simulate?: boolean) {
    this.#clock = clock;
    this.simulated = simulate ??
      typeof (clock as { set?: unknown }).set === "function";
  }

  /**
   * Sets the simulated clock to `nextMs`, and at least 1 ms on: a wake-up
   * due now that ran without progress (e.g. a paused source) must not spin.
   *
   * @param nextMs The next timer, in milliseconds of processing time.
   */
  advance(nextMs: number): void {
    (this.#clock as unknown as { set(ms: number): void }).set(
      Math.max(nextMs, this.#clock.now() + 1),
    );
  }

  /**
   * Waits in real time until `nextMs`, at most `maxMs`, or until
   * {@linkcode wake} is called.
   *
   * @param nextMs The next timer, in milliseconds of processing time.
   * @param maxMs The longest wait, in milliseconds.
   */
  sleep(nextMs: number, maxMs: number): Promise<void> {
    const wait = Math.min(Math.max(0, nextMs - this.#clock.now()), maxMs);
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        if (this.#wake === done) this.#wake = null;
        resolve();
      };
      const timer = setTimeout(done, wait);
      this.#wake = done;
    });
  }

  /** Ends the current {@linkcode sleep} at once (e.g. on `stop()`). */
  wake(): void {
    this.#wake?.();
  }
}
