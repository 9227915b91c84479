/**
 * The generator that never emits.
 *
 * @module
 */

import type { CheckpointedWatermarkGenerator } from "./watermark_generator.ts";
import type { WatermarkOutput } from "./watermark_output.ts";

/**
 * Emits nothing, ever: for streams processed only in processing time, or
 * whose event time comes entirely from upstream. Downstream event time stays
 * at `-Infinity` until the end of input brings `Infinity`.
 *
 * @typeParam T The record type.
 */
export class NoWatermarksGenerator<T>
  implements CheckpointedWatermarkGenerator<T, null> {
  /** Does nothing. */
  onEvent(_event: T, _timestamp: number, _output: WatermarkOutput): void {}

  /** Does nothing. */
  onPeriodicEmit(_output: WatermarkOutput): void {}

  /** There is no state: returns `null`. */
  snapshotState(): null {
    return null;
  }

  /** There is no state to put back. */
  restoreState(_state: null): void {}
}
