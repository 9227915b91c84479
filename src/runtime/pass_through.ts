/**
 * The operator that forwards everything: the head of a source subtask.
 *
 * @module
 */

import type { WatermarkStatus } from "../time/mod.ts";
import type {
  OperatorContext,
  OperatorOutput,
  StreamOperator,
} from "./stream_operator.ts";

/** Forwards records, watermarks and statuses unchanged; holds no state. */
export class PassThroughOperator<T> implements StreamOperator<T, T> {
  #output: OperatorOutput<T> | null = null;

  /** Keeps the output. */
  open(_context: OperatorContext, output: OperatorOutput<T>): void {
    this.#output = output;
  }

  /** Forwards the batch. */
  processBatch(values: readonly T[], timestamps: readonly number[]): void {
    this.#output!.emitBatch(values as T[], timestamps as number[]);
  }

  /** Forwards the watermark. */
  processWatermark(watermark: number): void {
    this.#output!.emitWatermark(watermark);
  }

  /** Forwards the status. */
  processWatermarkStatus(status: WatermarkStatus): void {
    this.#output!.emitWatermarkStatus(status);
  }

  /** Nothing to do. */
  onProcessingTime(): void {}

  /** Never. */
  nextProcessingTime(): number {
    return Infinity;
  }

  /** Nothing to do. */
  finish(): void {}

  /** No state. */
  snapshotState(): null {
    return null;
  }

  /** No state. */
  restoreState(): void {}
}
