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
 * Empty batches are not written. Watermarks and statuses are still
 * forwarded, so the subtask's metrics show the sink's event time; a sink
 * subtask has no output edges, so they go nowhere else. The checkpoint hooks
 * go to the writer: its `snapshotState(id)` is the operator's snapshot,
 * `notifyCheckpointComplete(id)` calls its `commit(id)`, and `finish` its
 * `finish` (a promise the runtime waits for). Cost: one `write` per batch.
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

  /** Keeps the output, used for watermarks and statuses only. */
  open(_context: OperatorContext, output: OperatorOutput<never>): void {
    this.#output = output;
  }

  /** Writes a non-empty batch to the sink. */
  processBatch(values: readonly T[], timestamps: readonly number[]): void {
    if (values.length > 0) this.#sink.write(values, timestamps);
  }

  /** Forwards the watermark (for metrics). */
  processWatermark(watermark: number): void {
    this.#output!.emitWatermark(watermark);
  }

  /** Forwards the status (for metrics). */
  processWatermarkStatus(status: WatermarkStatus): void {
    this.#output!.emitWatermarkStatus(status);
  }

  /** No processing-time work. */
  onProcessingTime(_now: number): void {}

  /** Never. */
  nextProcessingTime(): number {
    return Infinity;
  }

  /** Calls the sink's `finish`, if any; returns its promise. */
  finish(): void | Promise<void> {
    return this.#sink.finish?.();
  }

  /** The writer's state for checkpoint `checkpointId` (its staged transaction), or `null`. */
  snapshotState(checkpointId?: number): unknown {
    return this.#sink.snapshotState?.(checkpointId ?? 0) ?? null;
  }

  /** Hands a restored state back to the writer. */
  restoreState(state: unknown): void {
    if (state !== null) this.#sink.restoreState?.(state);
  }

  /** Commits the writer's transactions up to `checkpointId`. */
  notifyCheckpointComplete(checkpointId: number): void | Promise<void> {
    return this.#sink.commit?.(checkpointId);
  }
}
