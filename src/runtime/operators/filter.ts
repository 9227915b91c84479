/**
 * The record filter.
 *
 * @module
 */

import type { WatermarkStatus } from "../../time/mod.ts";
import type {
  OperatorContext,
  OperatorOutput,
  StreamOperator,
} from "../stream_operator.ts";

/**
 * Keeps the records for which `fn` returns `true` (Flink's `StreamFilter`),
 * each with its timestamp.
 *
 * Each input batch becomes at most one output batch (none when every record
 * is dropped). Watermarks and statuses are forwarded as they come. There is
 * no state: the snapshot is `null`. Cost: one call of `fn` per record.
 *
 * @typeParam T The record type.
 */
export class FilterOperator<T> implements StreamOperator<T, T> {
  readonly #fn: (value: T) => boolean;
  #output: OperatorOutput<T> | null = null;

  /**
   * Creates the operator.
   *
   * @param fn Returns `true` for the records to keep.
   * @throws {TypeError} If `fn` is not a function.
   */
  constructor(fn: (value: T) => boolean) {
    if (typeof fn !== "function") {
      throw new TypeError(
        `Cannot create FilterOperator as 'fn' must be a function: current value is ${
          String(fn)
        }`,
      );
    }
    this.#fn = fn;
  }

  /**
   * Keeps the output.
   *
   * @param _context Unused.
   * @param output Where kept records go.
   */
  open(_context: OperatorContext, output: OperatorOutput<T>): void {
    this.#output = output;
  }

  /**
   * Filters a batch into one output batch.
   *
   * @param values The records.
   * @param timestamps Their timestamps, carried over.
   */
  processBatch(values: readonly T[], timestamps: readonly number[]): void {
    const fn = this.#fn;
    const kept: T[] = [];
    const keptTimestamps: number[] = [];
    for (let i = 0; i < values.length; i++) {
      if (fn(values[i])) {
        kept.push(values[i]);
        keptTimestamps.push(timestamps[i]);
      }
    }
    if (kept.length > 0) this.#output!.emitBatch(kept, keptTimestamps);
  }

  /**
   * Forwards the watermark.
   *
   * @param watermark The input watermark.
   */
  processWatermark(watermark: number): void {
    this.#output!.emitWatermark(watermark);
  }

  /**
   * Forwards the status.
   *
   * @param status The input status.
   */
  processWatermarkStatus(status: WatermarkStatus): void {
    this.#output!.emitWatermarkStatus(status);
  }

  /**
   * Does nothing: no processing-time work.
   *
   * @param _now The current processing time.
   */
  onProcessingTime(_now: number): void {}

  /**
   * Never has processing-time work.
   *
   * @returns `Infinity`.
   */
  nextProcessingTime(): number {
    return Infinity;
  }

  /** Does nothing. */
  finish(): void {}

  /**
   * There is no state.
   *
   * @returns `null`.
   */
  snapshotState(): null {
    return null;
  }

  /**
   * There is no state to put back.
   *
   * @param _state Ignored.
   */
  restoreState(_state: unknown): void {}
}
