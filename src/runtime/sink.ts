/**
 * The contract between a sink connector and the runtime.
 *
 * @module
 */

/**
 * Writes the records of one sink subtask. Called one batch at a time, never
 * concurrently; `finish` once at the end of input.
 *
 * Exactly-once sinks use the checkpoint hooks as a two-phase commit (Flink's
 * `TwoPhaseCommittingSink`): `write` only stages records; `snapshotState(id)`
 * closes the staged records into transaction `id` and returns it, so it is
 * stored in checkpoint `id`; `commit(id)` makes it visible once checkpoint
 * `id` is complete everywhere. After a crash, `restoreState` receives the
 * transactions of the restored checkpoint, which may or may not have been
 * committed: `commit` must be idempotent, and is called again for them.
 *
 * @typeParam T The record type.
 */
export interface SinkWriter<T> {
  /**
   * Writes (or stages) a batch of records with their timestamps.
   *
   * A write that throws is a failure of the sink, not of a record: the
   * error propagates and the job fails (Flink's behaviour: it restarts from
   * its last checkpoint), as the writer may have taken part of the batch.
   * The way to refuse one record is {@linkcode SinkWriter.check}. A writer
   * whose writes are all or nothing may say so with
   * {@linkcode SinkWriter.atomicWrites}: its records are then found out one
   * by one.
   */
  write(values: readonly T[], timestamps: readonly number[]): void;
  /**
   * `true` if a `write` that throws took none of its batch: nothing of it
   * is staged, written or kept. The sink operator then writes the batch's
   * records again one by one, and sets aside under the job's error policy
   * those whose write throws. Only for writers that keep the promise: one that stages
   * records one at a time and throws midway would stage the records before
   * the throw twice.
   * @default {undefined} a write that throws fails the job
   */
  readonly atomicWrites?: true;
  /**
   * Checks one record when it arrives, before it is written (or held for
   * the next checkpoint): throws if the writer could never store it, for a
   * reason in the record itself (a key longer than Deno KV allows, a key
   * function that throws). The record is then set aside under the job's
   * error policy and never written, instead of failing a later write,
   * snapshot or commit over and over. This is how a writer refuses a
   * record. Must not change what the writer stores. It runs once per
   * record, so keep it O(1): what costs an encoding of the record (its
   * size) is better judged by {@linkcode SinkWriter.takeRefused}, once per
   * transaction.
   */
  check?(value: T, timestamp: number): void;
  /**
   * Takes the records the writer refused when it closed a transaction
   * (`snapshotState`, `finish`) since the last call: those it can judge
   * only once it encodes them, such as a row too large for one Deno KV
   * value. They are not in the transaction, which is otherwise whole. The
   * sink operator takes them right after each `snapshotState` and `finish`
   * and sets them aside under the job's error policy, as it does the
   * records `check` refuses; a program that drives a writer itself must
   * take them too, or they are left out without a word. Each is returned
   * once.
   */
  takeRefused?(): Array<
    {
      readonly value: unknown;
      readonly timestamp: number;
      readonly error: unknown;
    }
  >;
  /**
   * Called once after the last batch (end of input); a transactional sink
   * commits what is still staged. May return a promise the runtime awaits.
   */
  finish?(): void | Promise<void>;
  /** Closes staged records into transaction `checkpointId` and returns what must be stored. */
  snapshotState?(checkpointId: number): unknown;
  /** Makes the transactions up to checkpoint `checkpointId` visible; idempotent. */
  commit?(checkpointId: number): void | Promise<void>;
  /** Puts back the state of a restored checkpoint (its transactions are committed again). */
  restoreState?(state: unknown): void;
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
