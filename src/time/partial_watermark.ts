/**
 * The watermark and idle flag of one partial stream (a split, a multiplexed
 * output, an operator input), the unit that `CombinedWatermarkStatus`
 * combines.
 *
 * @module
 */

/**
 * The watermark and idle flag of one partial stream.
 *
 * It starts at `-Infinity` and not idle. Its watermark never goes down:
 * setting a lower or equal one keeps the old value, and a `NaN` is never
 * greater than anything, so it is dropped too. Setting any watermark, even one
 * that does not advance, marks the partial active again.
 *
 * Not safe for concurrent use; it is owned by one combiner.
 *
 * @example A partial watermark never goes down
 * ```ts
 * import { PartialWatermark } from "./partial_watermark.ts";
 * import assert from "node:assert/strict";
 *
 * const partial = new PartialWatermark();
 * assert.equal(partial.setWatermark(10), true);
 * partial.setIdle(true);
 * assert.equal(partial.setWatermark(7), false);
 * assert.equal(partial.getWatermark(), 10);
 * assert.equal(partial.isIdle(), false);
 * ```
 */
export class PartialWatermark {
  #watermark = -Infinity;
  #idle = false;

  /**
   * The highest watermark set so far, `-Infinity` before the first one. It is
   * kept while the partial is idle: when all partials are idle the combiner
   * flushes the maximum of them (FLINK-38454).
   */
  getWatermark(): number {
    return this.#watermark;
  }

  /** Whether the partial is idle, that is left out of the combination. */
  isIdle(): boolean {
    return this.#idle;
  }

  /**
   * Records a watermark and marks the partial active, whether or not the
   * watermark advances.
   *
   * @param watermark Event time in milliseconds, or `±Infinity`. Trusted: this
   *   is called per record by punctuated generators, so it is not validated.
   * @returns `true` if `watermark` is greater than the previous one.
   */
  setWatermark(watermark: number): boolean {
    this.#idle = false;
    // Only a strictly greater value is stored, so the watermark never regresses.
    if (watermark > this.#watermark) {
      this.#watermark = watermark;
      return true;
    }
    return false;
  }

  /**
   * Sets or clears the idle flag; the watermark is kept.
   *
   * @param idle `true` to leave the partial out of the combination.
   */
  setIdle(idle: boolean): void {
    this.#idle = idle;
  }
}
