/**
 * The end of a stream: hands records to a sink.
 *
 * @module
 */

import type { WatermarkStatus } from "../../time/mod.ts";
import type { SinkWriter } from "../sink.ts";
import type {
  OperatorContext,
  OperatorOutput,
  StreamOperator,
} from "../stream_operator.ts";

/**
 * A terminal operator (Flink's `SinkOperator`): writes every batch to its
 * sink and emits no records. The arrays handed to `write` may be shared with
 * other readers: the sink must not modify them, and copies what it keeps.
 *
 * Watermarks and statuses are still forwarded, so the subtask's metrics show
 * the sink's event time; a sink subtask has no output edges, so they go
 * nowhere else. `finish` calls the sink's `finish`. The operator has no state
 * of its own (the snapshot is `null`); a sink with state checkpoints it
 * itself. Cost: one `write` per batch.
 *
 * @typeParam T The record type.
 */
export class SinkOperator<T> implements StreamOperator<T, never> {
  readonly #sink: SinkWriter<T>;
  #output: OperatorOutput<never> | null = null;

  /**
   * Creates the operator.
   *
   * @param sink Receives the batches.
   * @throws {TypeError} If `sink` has no `write` function.
   */
  constructor(sink: SinkWriter<T>) {
    if (typeof sink?.write !== "function") {
      throw new TypeError(
        `Cannot create SinkOperator as 'sink' must have a write() function: current value is ${
          String(sink)
        }`,
      );
    }
    this.#sink = sink;
  }

  /**
   * Keeps the output, used only for watermarks and statuses.
   *
   * @param _context Unused.
   * @param output Receives watermarks and statuses.
   */
  open(_context: OperatorContext, output: OperatorOutput<never>): void {
    this.#output = output;
  }

  /**
   * Writes the batch to the sink.
   *
   * @param values The records.
   * @param timestamps Their timestamps.
   */
  processBatch(values: readonly T[], timestamps: readonly number[]): void {
    if (values.length > 0) this.#sink.write(values, timestamps);
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

  /** Calls the sink's `finish`, if it has one. */
  finish(): void {
    this.#sink.finish?.();
  }

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
