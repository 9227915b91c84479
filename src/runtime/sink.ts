/**
 * The contract between a sink connector and the runtime.
 *
 * @module
 */

/**
 * Writes the records of one sink subtask. Called one batch at a time, never
 * concurrently; `finish` once at the end of input.
 *
 * @typeParam T The record type.
 */
export interface SinkWriter<T> {
  /** Writes a batch of records with their timestamps. */
  write(values: readonly T[], timestamps: readonly number[]): void;
  /** Called once after the last batch (end of input). */
  finish?(): void;
}

/**
 * A sink connector: creates the writer of each sink subtask.
 *
 * @typeParam T The record type.
 */
export interface Sink<T> {
  /** A name for plans and metrics. */
  readonly name: string;
  /**
   * Creates the writer of one subtask.
   *
   * @param subtaskIndex The subtask, from 0.
   * @param parallelism The number of sink subtasks.
   */
  createWriter(subtaskIndex: number, parallelism: number): SinkWriter<T>;
}
