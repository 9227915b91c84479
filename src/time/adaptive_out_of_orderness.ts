/**
 * A generator whose out-of-orderness bound follows the lateness it observes.
 *
 * @module
 */

import { MIN_WATERMARK } from "./constants.ts";
import type { CheckpointedWatermarkGenerator } from "./watermark_generator.ts";
import type { WatermarkOutput } from "./watermark_output.ts";
import { saturateWatermark } from "./_saturate.ts";
import {
  requireFiniteAtLeast,
  requireNonNegativeInteger,
  requirePositiveInteger,
} from "./validate.ts";

/** Options of {@linkcode AdaptiveOutOfOrdernessWatermarks}. */
export interface AdaptiveOutOfOrdernessOptions {
  /**
   * Width of one lateness bucket, in milliseconds of event time.
   * @default {10000}
   */
  bucketWidthMs?: number;
  /**
   * Number of buckets: the budget reflects the worst lateness seen in the last
   * `bucketWidthMs * numBuckets` of event time.
   * @default {6}
   */
  numBuckets?: number;
  /**
   * The smallest budget, in milliseconds, so a perfectly ordered stream does
   * not get a watermark that drops the first straggler.
   * @default {1000}
   */
  floorLatenessMs?: number;
  /**
   * The largest budget, in milliseconds, so one outlier cannot stall event time.
   * @default {60000}
   */
  ceilingLatenessMs?: number;
  /**
   * The budget is the worst observed lateness times this factor: lateness seen
   * so far is a lower bound of what comes next.
   * @default {2}
   */
  safetyFactor?: number;
}

/** The state of an {@linkcode AdaptiveOutOfOrdernessWatermarks} as plain data. */
export interface AdaptiveOutOfOrdernessSnapshot {
  /** Highest timestamp seen, or `-Infinity` before the first record. */
  maxTimestamp: number;
  /** Event-time start of the current bucket. */
  bucketStart: number;
  /** Index of the current bucket in `buckets`. */
  bucketIndex: number;
  /** Worst lateness per bucket, in milliseconds. */
  buckets: number[];
}

/**
 * Bounded out-of-orderness whose bound adapts to the stream.
 *
 * Each record older than the highest timestamp seen is late by
 * `maxTimestamp - timestamp`; the worst lateness is kept per fixed-width bucket
 * of event time, and buckets older than `bucketWidthMs * numBuckets` behind the
 * highest timestamp are forgotten. The budget is
 * `clamp(ceil(worst * safetyFactor), floorLatenessMs, ceilingLatenessMs)` and
 * `onPeriodicEmit` emits `maxTimestamp - budget - 1`. Before the first record
 * it emits nothing.
 *
 * Buckets rotate as the highest timestamp advances (the seed rotated only on
 * late records, which kept an old spike alive until the next late record).
 *
 * Cost: O(1) per record; O(numBuckets) per periodic emit.
 *
 * @typeParam T The record type.
 *
 * @example The budget grows with observed lateness
 * ```ts
 * import { AdaptiveOutOfOrdernessWatermarks } from "@weir/weir";
 * import assert from "node:assert/strict";
 *
 * const generator = new AdaptiveOutOfOrdernessWatermarks({ floorLatenessMs: 100 });
 * const output = { emitWatermark() {}, markIdle() {}, markActive() {} };
 * generator.onEvent(null, 10_000, output);
 * assert.equal(generator.currentBudgetMs, 100);
 * generator.onEvent(null, 9_700, output); // 300 ms late
 * assert.equal(generator.currentBudgetMs, 600);
 * assert.equal(generator.currentWatermark, 10_000 - 600 - 1);
 * ```
 */
export class AdaptiveOutOfOrdernessWatermarks<T>
  implements CheckpointedWatermarkGenerator<T, AdaptiveOutOfOrdernessSnapshot> {
  readonly #width: number;
  readonly #floor: number;
  readonly #ceiling: number;
  readonly #factor: number;
  readonly #buckets: Float64Array;
  #bucketIndex = 0;
  #bucketStart = MIN_WATERMARK;
  #maxTimestamp = MIN_WATERMARK;

  /**
   * Creates a generator with an empty lateness history.
   *
   * @param options Bucket geometry and budget limits; every field has a default.
   * @throws {RangeError} If a duration or count is negative, fractional or not
   * finite, if `ceilingLatenessMs < floorLatenessMs`, or `safetyFactor < 1`.
   */
  constructor(options: AdaptiveOutOfOrdernessOptions = {}) {
    const action = "create AdaptiveOutOfOrdernessWatermarks";
    this.#width = requirePositiveInteger(options.bucketWidthMs ?? 10_000, {
      action,
      param: "bucketWidthMs",
    });
    const numBuckets = requirePositiveInteger(options.numBuckets ?? 6, {
      action,
      param: "numBuckets",
    });
    this.#floor = requireNonNegativeInteger(options.floorLatenessMs ?? 1_000, {
      action,
      param: "floorLatenessMs",
    });
    this.#ceiling = requireNonNegativeInteger(
      options.ceilingLatenessMs ?? 60_000,
      { action, param: "ceilingLatenessMs" },
    );
    if (this.#ceiling < this.#floor) {
      throw new RangeError(
        `Cannot ${action} as 'ceilingLatenessMs' must be at least 'floorLatenessMs' (${this.#floor}): current value is ${this.#ceiling}`,
      );
    }
    this.#factor = requireFiniteAtLeast(options.safetyFactor ?? 2, 1, {
      action,
      param: "safetyFactor",
    });
    this.#buckets = new Float64Array(numBuckets);
  }

  /** The lateness budget in milliseconds that the next emit subtracts. */
  get currentBudgetMs(): number {
    let worst = 0;
    for (const lateness of this.#buckets) {
      if (lateness > worst) worst = lateness;
    }
    const budget = Math.ceil(worst * this.#factor);
    return Math.min(Math.max(budget, this.#floor), this.#ceiling);
  }

  /** The watermark the next emit would produce; `-Infinity` before any record. */
  get currentWatermark(): number {
    // Saturated to -Infinity below the safe range, as the bounded generator.
    return saturateWatermark(this.#maxTimestamp - this.currentBudgetMs - 1);
  }

  /** Tracks the highest timestamp and records the lateness of older records. */
  onEvent(_event: T, timestamp: number, _output: WatermarkOutput): void {
    if (timestamp > this.#maxTimestamp) {
      this.#maxTimestamp = timestamp;
      this.#rotateTo(timestamp);
      return;
    }
    const lateness = this.#maxTimestamp - timestamp;
    if (lateness > this.#buckets[this.#bucketIndex]) {
      this.#buckets[this.#bucketIndex] = lateness;
    }
  }

  /**
   * Emits `maxTimestamp - budget - 1` once a record was seen; `-Infinity`
   * while that is below `Number.MIN_SAFE_INTEGER`.
   */
  onPeriodicEmit(output: WatermarkOutput): void {
    if (this.#maxTimestamp === MIN_WATERMARK) return;
    output.emitWatermark(this.currentWatermark);
  }

  #rotateTo(timestamp: number): void {
    const start = timestamp - modulo(timestamp, this.#width);
    if (this.#bucketStart === MIN_WATERMARK) {
      this.#bucketStart = start;
      return;
    }
    const steps = Math.min(
      (start - this.#bucketStart) / this.#width,
      this.#buckets.length,
    );
    for (let i = 0; i < steps; i++) {
      this.#bucketIndex = (this.#bucketIndex + 1) % this.#buckets.length;
      this.#buckets[this.#bucketIndex] = 0;
    }
    this.#bucketStart = start;
  }

  /** Returns the highest timestamp and the buckets. */
  snapshotState(): AdaptiveOutOfOrdernessSnapshot {
    return {
      maxTimestamp: this.#maxTimestamp,
      bucketStart: this.#bucketStart,
      bucketIndex: this.#bucketIndex,
      buckets: Array.from(this.#buckets),
    };
  }

  /**
   * Puts back a snapshot of a generator with the same `numBuckets`.
   *
   * @throws {RangeError} If the snapshot has another number of buckets.
   */
  restoreState(state: AdaptiveOutOfOrdernessSnapshot): void {
    if (state.buckets.length !== this.#buckets.length) {
      throw new RangeError(
        `Cannot restore AdaptiveOutOfOrdernessWatermarks as 'buckets' must have ${this.#buckets.length} entries: current value is ${state.buckets.length}`,
      );
    }
    this.#maxTimestamp = state.maxTimestamp;
    this.#bucketStart = state.bucketStart;
    this.#bucketIndex = state.bucketIndex;
    this.#buckets.set(state.buckets);
  }
}

/** `%` that is never negative, so negative timestamps fall into the right bucket. */
function modulo(value: number, divisor: number): number {
  const rest = value % divisor;
  return rest < 0 ? rest + divisor : rest;
}
