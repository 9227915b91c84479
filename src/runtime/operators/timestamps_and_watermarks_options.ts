/**
 * The options of the timestamps-and-watermarks operator: the periodic
 * interval, batch mode and where warnings go.
 *
 * @module
 */

/** Options of a `TimestampsAndWatermarksOperator`. */
export interface TimestampsAndWatermarksOptions {
  /**
   * How often the generator's `onPeriodicEmit` runs, in milliseconds of
   * processing time; `0` disables periodic emission (Flink's
   * `pipeline.auto-watermark-interval`).
   */
  autoWatermarkIntervalMs: number;
  /**
   * Whether the strategy's generator runs. `false` (Flink's BATCH mode) uses
   * a generator that emits nothing: only the end-of-input `Infinity` passes.
   * @default {true}
   */
  emitProgressiveWatermarks?: boolean;
  /**
   * Receives warnings about suspicious input, such as timestamps that look
   * like seconds; each kind is reported once per operator.
   * @default {a function that does nothing}
   */
  onWarning?: (message: string) => void;
}

/** The default `onWarning`: warnings go nowhere. */
export function ignoreWarning(_message: string): void {}
