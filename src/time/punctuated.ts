/**
 * Watermarks carried by the records themselves.
 *
 * @module
 */

import type { CheckpointedWatermarkGenerator } from "./watermark_generator.ts";
import type { WatermarkOutput } from "./watermark_output.ts";
import { requireFunction } from "./validate.ts";

/**
 * Decides, for one record, whether it carries a watermark.
 *
 * @param event The record.
 * @param timestamp Its event timestamp in milliseconds.
 * @returns The watermark to emit, or `null` for none.
 */
export type WatermarkExtractor<T> = (
  event: T,
  timestamp: number,
) => number | null;

/**
 * Emits, right after a record, the watermark the record carries (Flink's
 * `AssignerWithPunctuatedWatermarks`): end-of-batch markers, sensor heartbeats.
 *
 * The extractor runs once per record, so it must be cheap. A watermark that
 * does not advance is dropped by the emitter. `onPeriodicEmit` does nothing.
 *
 * @typeParam T The record type.
 *
 * @example Watermarks only from marker records
 * ```ts
 * import { PunctuatedWatermarks } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * type Reading = { marker: boolean };
 * const generator = new PunctuatedWatermarks<Reading>((r, ts) => r.marker ? ts : null);
 * const emitted: number[] = [];
 * const output = { emitWatermark: (w: number) => emitted.push(w), markIdle() {}, markActive() {} };
 * generator.onEvent({ marker: false }, 5, output);
 * generator.onEvent({ marker: true }, 8, output);
 * assert.deepEqual(emitted, [8]);
 * ```
 */
export class PunctuatedWatermarks<T>
  implements CheckpointedWatermarkGenerator<T, null> {
  readonly #extract: WatermarkExtractor<T>;

  /**
   * Creates a generator around an extractor.
   *
   * @param extract Returns a record's watermark or `null`.
   * @throws {TypeError} If `extract` is not a function.
   */
  constructor(extract: WatermarkExtractor<T>) {
    this.#extract = requireFunction(extract, {
      action: "create PunctuatedWatermarks",
      param: "extract",
    });
  }

  /** Emits the record's watermark, if it has one. */
  onEvent(event: T, timestamp: number, output: WatermarkOutput): void {
    const watermark = this.#extract(event, timestamp);
    if (watermark !== null) output.emitWatermark(watermark);
  }

  /** Does nothing: watermarks come only with records. */
  onPeriodicEmit(_output: WatermarkOutput): void {}

  /** There is no state: returns `null`. */
  snapshotState(): null {
    return null;
  }

  /** There is no state to put back. */
  restoreState(_state: null): void {}
}
