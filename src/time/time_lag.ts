/**
 * Watermarks that trail processing time by a fixed lag.
 *
 * @module
 */

import type { Clock } from "./clock.ts";
import type { CheckpointedWatermarkGenerator } from "./watermark_generator.ts";
import type { WatermarkOutput } from "./watermark_output.ts";
import { saturateWatermark } from "./_saturate.ts";
import { requireNonNegativeInteger } from "./validate.ts";

/**
 * Emits `clock.now() - maxTimeLagMs` periodically, whatever the records say:
 * for sources that deliver every
 * record within a known delay of its creation, even when they are silent.
 *
 * The clock must tell epoch milliseconds (a {@linkcode SystemClock} in
 * production, a {@linkcode ManualClock} in tests). A record older than the
 * lag is late.
 *
 * @typeParam T The record type.
 *
 * @example Watermark five seconds behind the clock
 * ```ts
 * import { ManualClock, TimeLagWatermarks } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const clock = new ManualClock(60_000);
 * const generator = new TimeLagWatermarks(5_000, clock);
 * const emitted: number[] = [];
 * generator.onPeriodicEmit({ emitWatermark: (w) => emitted.push(w), markIdle() {}, markActive() {} });
 * assert.deepEqual(emitted, [55_000]);
 * ```
 */
export class TimeLagWatermarks<T>
  implements CheckpointedWatermarkGenerator<T, null> {
  readonly #lag: number;
  readonly #clock: Clock;

  /**
   * Creates a generator on the given clock.
   *
   * @param maxTimeLagMs How far, in milliseconds, records may trail processing time.
   * @param clock The processing-time clock (epoch milliseconds).
   * @throws {RangeError} If `maxTimeLagMs` is negative or not a safe integer.
   */
  constructor(maxTimeLagMs: number, clock: Clock) {
    this.#lag = requireNonNegativeInteger(maxTimeLagMs, {
      action: "create TimeLagWatermarks",
      param: "maxTimeLagMs",
    });
    this.#clock = clock;
  }

  /** Does nothing: records do not move this watermark. */
  onEvent(_event: T, _timestamp: number, _output: WatermarkOutput): void {}

  /** Emits `clock.now() - maxTimeLagMs`, or `-Infinity` below the safe range. */
  onPeriodicEmit(output: WatermarkOutput): void {
    // A clock within the lag of MIN_SAFE_INTEGER (a ManualClock may be set
    // there) would give a watermark outside the safe range.
    output.emitWatermark(saturateWatermark(this.#clock.now() - this.#lag));
  }

  /** The state is the clock's: returns `null`. */
  snapshotState(): null {
    return null;
  }

  /** There is no state to put back. */
  restoreState(_state: null): void {}
}
