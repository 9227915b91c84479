/**
 * The contract between a source connector and the runtime.
 *
 * @module
 */

/** Records read from one partition in one poll. */
export interface SourceBatch<T> {
  /** Index into the reader's `partitions`. */
  readonly partition: number;
  /** The records, in partition order. */
  readonly values: T[];
  /** Timestamps the source knows (e.g. a log's append time), or `-Infinity` for none. */
  readonly timestamps: number[];
}

/**
 * Reads the partitions assigned to one source subtask (Flink's
 * `SourceReader`). Pull-based and synchronous: the runtime polls it when the
 * subtask may read (not back-pressured, not held by alignment).
 *
 * @typeParam T The record type.
 */
export interface SourceReader<T> {
  /** Names of this reader's partitions; each gets its own watermark generator. */
  readonly partitions: readonly string[];
  /**
   * Returns the next records available at processing time `now`, at most
   * `maxRecords`, or `null` when none is available now.
   */
  poll(now: number, maxRecords: number): SourceBatch<T> | null;
  /** When more records may become available, or `Infinity` if not by time alone. */
  nextAvailableAt(now: number): number;
  /** Whether every partition is exhausted (bounded input read to the end). */
  readonly finished: boolean;
  /** Returns the read positions as plain data. */
  snapshotState(): unknown;
  /** Puts back read positions from a snapshot. */
  restoreState(state: unknown): void;
  /**
   * Resolves when the reader's background reads (if it has any, e.g. a
   * prefetch from Deno KV) have settled, so a simulated clock does not run
   * ahead of records that are about to arrive.
   */
  ready?(): Promise<void>;
  /** Stops background reading; called when the job stops. */
  close?(): Promise<void>;
}

/**
 * A source connector: creates the reader of each source subtask.
 *
 * @typeParam T The record type.
 */
export interface Source<T> {
  /** A name for plans and metrics. */
  readonly name: string;
  /**
   * Creates the reader of one subtask; partitions are spread over subtasks.
   *
   * @param subtaskIndex The subtask, from 0.
   * @param parallelism The number of source subtasks.
   */
  createReader(subtaskIndex: number, parallelism: number): SourceReader<T>;
}
