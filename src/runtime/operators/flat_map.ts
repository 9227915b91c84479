/**
 * The one-to-many record transformation.
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
 * Calls `fn` for every record with a collector (Flink's `StreamFlatMap`):
 * zero or more output records per input record, each with the input
 * record's timestamp.
 *
 * Everything one input batch produces goes out as one output batch (none
 * when it produced nothing). Watermarks and statuses are forwarded as they
 * come. There is no state: the snapshot is `null`. Cost: one call of `fn`
 * per record; one collector per batch.
 *
 * @typeParam IN The input record type.
 * @typeParam OUT The output record type.
 */
export class FlatMapOperator<IN, OUT> implements StreamOperator<IN, OUT> {
  readonly #fn: (value: IN, out: (value: OUT) => void) => void;
  #output: OperatorOutput<OUT> | null = null;

  /**
   * Creates the operator.
   *
   * @param fn Emits the outputs of one record through `out`; `out` is valid
   * only during the call.
   * @throws {TypeError} If `fn` is not a function.
   */
  constructor(fn: (value: IN, out: (value: OUT) => void) => void) {
    if (typeof fn !== "function") {
      throw new TypeError(
        `Cannot create FlatMapOperator as 'fn' must be a function: current value is ${
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
   * @param output Where produced records go.
   */
  open(_context: OperatorContext, output: OperatorOutput<OUT>): void {
    this.#output = output;
  }

  /**
   * Runs `fn` over a batch and emits what it produced as one batch.
   *
   * @param values The records.
   * @param timestamps Their timestamps, given to their outputs.
   */
  processBatch(values: readonly IN[], timestamps: readonly number[]): void {
    const fn = this.#fn;
    const produced: OUT[] = [];
    const producedTimestamps: number[] = [];
    let timestamp = -Infinity;
    const out = function collect(value: OUT): void {
      produced.push(value);
      producedTimestamps.push(timestamp);
    };
    for (let i = 0; i < values.length; i++) {
      timestamp = timestamps[i];
      fn(values[i], out);
    }
    if (produced.length > 0) {
      this.#output!.emitBatch(produced, producedTimestamps);
    }
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
