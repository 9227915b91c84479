/**
 * The watermark generator contract: two callbacks, as in Flink.
 *
 * @module
 */

import type { WatermarkOutput } from "./watermark_output.ts";

/**
 * Produces watermarks from the records of one stream partition.
 *
 * `onEvent` is called once per record, after the record was emitted, so a
 * watermark it emits ("punctuated") follows its record. `onPeriodicEmit` is
 * called every `autoWatermarkIntervalMs` of processing time ("periodic") and
 * once more at the end of input. An instance serves one subtask (or one source
 * partition) and is not shared; it is not safe for concurrent use.
 *
 * @typeParam T The record type.
 */
export interface WatermarkGenerator<T> {
  /** Observes one record and its event timestamp (milliseconds); may emit. */
  onEvent(event: T, timestamp: number, output: WatermarkOutput): void;
  /** Emits the current watermark, if the generator has one. */
  onPeriodicEmit(output: WatermarkOutput): void;
}

/**
 * A generator whose state can be captured as plain data and put back, so a
 * checkpoint with `watermarkRecovery: "persist"` resumes at the same event time.
 *
 * The snapshot must be serialisable with superjson (numbers including
 * `-Infinity`, arrays, plain objects) and independent of the live instance.
 *
 * @typeParam T The record type.
 * @typeParam S The snapshot type.
 */
export interface CheckpointedWatermarkGenerator<T, S = unknown>
  extends WatermarkGenerator<T> {
  /** Returns a copy of the state. */
  snapshotState(): S;
  /** Replaces the state with a snapshot taken from an equally configured generator. */
  restoreState(state: S): void;
}

/**
 * Tells whether a generator can snapshot and restore its state.
 *
 * @param generator Any generator.
 * @returns `true` when it has `snapshotState` and `restoreState`.
 */
export function isCheckpointedGenerator<T>(
  generator: WatermarkGenerator<T>,
): generator is CheckpointedWatermarkGenerator<T> {
  const candidate = generator as Partial<CheckpointedWatermarkGenerator<T>>;
  return typeof candidate.snapshotState === "function" &&
    typeof candidate.restoreState === "function";
}
