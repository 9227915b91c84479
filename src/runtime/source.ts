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
  /**
   * Whether `timestamps` is an array of this batch alone that the reader
   * never changes afterwards (as `values` always is): the runtime then
   * passes it downstream as it is instead of copying it. Leave it unset
   * for an array the reader refills at its next poll.
   * @default {false}
   */
  readonly ownTimestamps?: boolean;
  /**
   * Whether the partition ended with this batch: no record of it follows
   * (Flink's finished split). The batch holds no record when the end comes
   * on its own. The source subtask then releases the partition's watermark
   * output, so that it no longer holds back the subtask's watermark.
   * @default {false}
   */
  readonly ended?: boolean;
}

/** How a reader puts back a snapshot. */
export interface SourceRestoreOptions {
  /**
   * Whether the job restores event time exactly (`watermarkRecovery:
   * "persist"`): a reader paced by processing time (a generator) then
   * resumes its schedule as it was, so that a restart at the same
   * processing time reads the same records at the same times. Otherwise
   * it may start its schedule afresh at its next poll.
   * @default {false}
   */
  readonly exact?: boolean;
}

/**
 * Reads the partitions assigned to one source subtask (Flink's
 * `SourceReader`). Pull-based and synchronous: the runtime polls it when the
 * subtask may read (not back-pressured, not held by alignment).
 *
 * Ended partitions: a reader reports each partition's end (see
 * {@linkcode SourceBatch.ended}) once, with its last records or in a batch
 * of its own, and again after every `restoreState`, so that a restored
 * subtask learns which partitions ended (replay mode rebuilds everything
 * from the reader). While an end waits to be reported, `nextAvailableAt`
 * is at most `now`. A batch without records never changes which partition
 * the next poll reads first, so a restored reader reads in the same order
 * as one that never stopped.
 *
 * @typeParam T The record type.
 */
export interface SourceReader<T> {
  /** Names of this reader's partitions; each gets its own watermark generator. */
  readonly partitions: readonly string[];
  /**
   * Returns the next records available at processing time `now`, at most
   * `maxRecords`, or `null` when none is available now. The runtime may
   * pass the batch's `values` array downstream as it is (so the reader must
   * not change it afterwards) and copies its `timestamps` (so the reader may
   * refill their array for the next poll), unless the batch says they are
   * its own ({@linkcode SourceBatch.ownTimestamps}).
   */
  poll(now: number, maxRecords: number): SourceBatch<T> | null;
  /** When more records may become available, or `Infinity` if not by time alone. */
  nextAvailableAt(now: number): number;
  /** Whether every partition is exhausted (bounded input read to the end). */
  readonly finished: boolean;
  /** Returns the read positions as plain data. */
  snapshotState(): unknown;
  /**
   * Puts back read positions from a snapshot; the ends of partitions read
   * to their end are reported again.
   */
  restoreState(state: unknown, options?: SourceRestoreOptions): void;
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
