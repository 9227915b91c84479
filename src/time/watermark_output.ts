/**
 * What a watermark generator writes to, and what the merging parts (valve,
 * emitter) write downstream.
 *
 * @module
 */

/**
 * Whether a stream currently takes part in event-time progress. An `"idle"`
 * input is left out when its consumer takes the minimum of its inputs, so a
 * partition without data does not hold the watermark back.
 */
export type WatermarkStatus = "idle" | "active";

/**
 * The output a {@linkcode WatermarkGenerator} emits to (Flink's `WatermarkOutput`).
 *
 * Generators need not be monotonic: the adapter behind this interface drops a
 * watermark that is not strictly greater than the last one it passed on.
 * Emitting a watermark implies `"active"`.
 */
export interface WatermarkOutput {
  /** Asserts that no more records with a timestamp `<= watermark` follow. */
  emitWatermark(watermark: number): void;
  /** Declares the stream idle until it emits a watermark or calls {@linkcode WatermarkOutput.markActive}. */
  markIdle(): void;
  /** Declares the stream active again, even if its watermark has not moved (FLINK-40504). */
  markActive(): void;
}

/**
 * The downstream side of a merge: watermarks and status changes as elements,
 * the shape a subtask forwards to its output channels.
 */
export interface WatermarkStatusOutput {
  /** Forwards a watermark; callers guarantee it is strictly increasing. */
  emitWatermark(watermark: number): void;
  /** Forwards a status change; callers guarantee it differs from the previous one. */
  emitWatermarkStatus(status: WatermarkStatus): void;
}
