/**
 * The default generator: a fixed bound on how far records arrive out of order.
 *
 * @module
 */

import { MIN_WATERMARK } from "./constants.ts";
import type { CheckpointedWatermarkGenerator } from "./watermark_generator.ts";
import type { WatermarkOutput } from "./watermark_output.ts";
import { saturateWatermark } from "./_saturate.ts";
import { requireNonNegativeInteger } from "./validate.ts";

/** The state of a {@linkcode BoundedOutOfOrdernessWatermarks} as plain data. */
export interface BoundedOutOfOrdernessSnapshot {
  /** The highest timestamp seen so far, or `-Infinity`. */
  maxTimestamp: number;
}

/**
 * Assumes that once a record with timestamp `t` was seen, no record older
 * than `t - maxOutOfOrdernessMs` follows.
 *
 * `onEvent` only tracks the highest timestamp; `onPeriodicEmit` emits
 * `maxTimestamp - maxOutOfOrdernessMs - 1` every time it is called, even when
 * unchanged (the emitter drops repeats). Before any record it emits
 * `-Infinity`, which is never passed on. A record older than the highest
 * timestamp never lowers the watermark. The `- 1` keeps a record with exactly
 * the bound's timestamp on time.
 *
 * Any safe integer is a valid timestamp. While `maxTimestamp - bound - 1`
 * would fall below `Number.MIN_SAFE_INTEGER`, the watermark is `-Infinity`
 * (Flink starts at `Long.MIN_VALUE + bound + 1` so that its watermark never
 * goes below `Long.MIN_VALUE`): nothing is known yet, and no valid record is
 * made late.
 *
 * Cost: the delay a window waits for is the bound plus up to one periodic
 * interval.
 *
 * @typeParam T The record type (unused: only timestamps matter).
 *
 * @example Watermark after three records
 * ```ts
 * import { BoundedOutOfOrdernessWatermarks } from "@weir/weir";
 * import assert from "node:assert/strict";
 *
 * const generator = new BoundedOutOfOrdernessWatermarks(10);
 * const emitted: number[] = [];
 * const output = { emitWatermark: (w: number) => emitted.push(w), markIdle() {}, markActive() {} };
 * for (const ts of [12345, 12300, 12340]) generator.onEvent(null, ts, output);
 * generator.onPeriodicEmit(output);
 * assert.deepEqual(emitted, [12334]);
 * ```
 */
export class BoundedOutOfOrdernessWatermarks<T>
  implements CheckpointedWatermarkGenerator<T, BoundedOutOfOrdernessSnapshot> {
  readonly #bound: number;
  #maxTimestamp = MIN_WATERMARK;

  /**
   * Creates a generator that has seen no record.
   *
   * @param maxOutOfOrdernessMs How late, in milliseconds of event time, a record may be.
   * @throws {RangeError} If `maxOutOfOrdernessMs` is negative, fractional or not finite.
   * @throws {TypeError} If `maxOutOfOrdernessMs` is not a number.
   */
  constructor(maxOutOfOrdernessMs: number) {
    this.#bound = requireNonNegativeInteger(maxOutOfOrdernessMs, {
      action: `create ${new.target.name}`,
      param: "maxOutOfOrdernessMs",
    });
  }

  /** The bound in milliseconds. */
  get maxOutOfOrdernessMs(): number {
    return this.#bound;
  }

  /** The watermark the next `onPeriodicEmit` emits; `-Infinity` before any record. */
  get currentWatermark(): number {
    // Saturated: near MIN_SAFE_INTEGER the difference leaves the safe range.
    return saturateWatermark(this.#maxTimestamp - this.#bound - 1);
  }

  /** Raises the highest timestamp seen; never emits. */
  onEvent(_event: T, timestamp: number, _output: WatermarkOutput): void {
    if (timestamp > this.#maxTimestamp) this.#maxTimestamp = timestamp;
  }

  /** Emits `maxTimestamp - maxOutOfOrdernessMs - 1`, or `-Infinity` below the safe range. */
  onPeriodicEmit(output: WatermarkOutput): void {
    output.emitWatermark(this.currentWatermark);
  }

  /** Returns `{ maxTimestamp }`. */
  snapshotState(): BoundedOutOfOrdernessSnapshot {
    return { maxTimestamp: this.#maxTimestamp };
  }

  /** Puts back the highest timestamp seen. */
  restoreState(state: BoundedOutOfOrdernessSnapshot): void {
    this.#maxTimestamp = state.maxTimestamp;
  }
}
