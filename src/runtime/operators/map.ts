/**
 * The one-to-one record transformation.
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
 * Applies `fn` to every record (Flink's `StreamMap`): one output record per
 * input record, with the input's timestamp.
 *
 * Each input batch becomes one output batch; the timestamps array is passed
 * on unchanged. Watermarks and statuses are forwarded as they come. There is
 * no state: the snapshot is `null`. Cost: one call of `fn` per record.
 *
 * @typeParam IN The input record type.
 * @typeParam OUT The output record type.
 */
export class MapOperator<IN, OUT> implements StreamOperator<IN, OUT> {
  readonly #fn: (value: IN) => OUT;
  #output: OperatorOutput<OUT> | null = null;

  /**
   * Creates the operator.
   *
   * @param fn Maps one record; must not throw for valid records.
   * @throws {TypeError} If `fn` is not a function.
   */
  constructor(fn: (value: IN) => OUT) {
    if (typeof fn !== "function") {
      throw new TypeError(
        `Cannot create MapOperator as 'fn' must be a function: current value is ${
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
   * @param output Where mapped records go.
   */
  open(_context: OperatorContext, output: OperatorOutput<OUT>): void {
    this.#output = output;
  }

  /**
   * Maps a batch into one output batch.
   *
   * @param values The records.
   * @param timestamps Their timestamps, carried over.
   */
  processBatch(values: readonly IN[], timestamps: readonly number[]): void {
    const n = values.length;
    if (n === 0) return;
    const fn = this.#fn;
    const mapped = new Array<OUT>(n);
    for (let i = 0; i < n; i++) mapped[i] = fn(values[i]);
    // Arrays are never modified once emitted, so the timestamps can be shared.
    this.#output!.emitBatch(mapped, timestamps as number[]);
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
