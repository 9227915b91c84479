/**
 * The generator for streams whose timestamps never decrease.
 *
 * @module
 */

import { BoundedOutOfOrdernessWatermarks } from "./bounded_out_of_orderness.ts";

/**
 * {@linkcode BoundedOutOfOrdernessWatermarks} with a bound of 0: emits one
 * less than the highest timestamp, because more records with that same
 * timestamp may still follow. A lower timestamp is tolerated: it neither
 * lowers the watermark nor raises an error (it is late, and the window
 * operator treats it as such).
 *
 * @typeParam T The record type.
 *
 * @example Watermark one below the highest timestamp
 * ```ts
 * import { AscendingTimestampsWatermarks } from "@weir/weir";
 * import assert from "node:assert/strict";
 *
 * const generator = new AscendingTimestampsWatermarks();
 * generator.onEvent("a", 1337, { emitWatermark() {}, markIdle() {}, markActive() {} });
 * assert.equal(generator.currentWatermark, 1336);
 * ```
 */
export class AscendingTimestampsWatermarks<T>
  extends BoundedOutOfOrdernessWatermarks<T> {
  /** Creates the generator; it has no parameters. */
  constructor() {
    super(0);
  }
}
