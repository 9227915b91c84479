/**
 * A source subtask: reads partitions, assigns timestamps, generates
 * watermarks per partition and merges them.
 *
 * @module
 */

import type { SourceBatch, SourceReader } from "./source.ts";
import { END } from "./stream_element.ts";
import type { OperatorContext } from "./stream_operator.ts";
import { Subtask, type SubtaskSend, type SubtaskSnapshot } from "./subtask.ts";
import type { SourceSubtaskOptions } from "./source_subtask_options.ts";
import type { SourceSubtaskSnapshot } from "./source_subtask_snapshot.ts";
import { PassThroughOperator } from "./pass_through.ts";
import type { DeadLetter } from "./dead_letter.ts";
import { guardOf } from "./_record_guard.ts";
import { guardedOperator } from "./_guard_chain.ts";
import { SourceRecords } from "./_source_records.ts";
import { SourcePartitions } from "./_source_partitions.ts";
import type { PartitionState } from "./partition_state.ts";

export type { PartitionState } from "./partition_state.ts";
export type { SourceSubtaskOptions } from "./source_subtask_options.ts";
export type { SourceSubtaskSnapshot } from "./source_subtask_snapshot.ts";

/**
 * Drives a {@linkcode SourceReader} as a subtask (Flink's `SourceOperator`
 * with per-split watermarks).
 *
 * Each partition has its own generator: `onEvent` goes to the partition's
 * immediate output of a `WatermarkOutputMultiplexer`, periodic
 * emits to its deferred output, then one `onPeriodicEmit()` merges them (an
 * idle partition drops out of the minimum). A watermark caused by a record
 * follows that record: the records of a poll are cut where a watermark is
 * emitted. Timestamps of a poll are assigned and validated before anything
 * is emitted: a record whose timestamp cannot be assigned (the assigner
 * throws, or the timestamp is not a safe integer) is set aside under the
 * error policy, at `"partition <name>, offset <n>"`, and the others go on;
 * under `"fail"` the poll throws `RecordFailedError` and nothing of it is
 * emitted or counted. At the end of
 * input the source emits `Infinity`, finishes its chain and ends its outputs.
 *
 * A partition the reader reports ended (`SourceBatch.ended`, Flink's
 * finished split) releases its output from the multiplexer after its last
 * records, and the rest are combined at once: it no longer holds the
 * watermark back, the watermark never goes back when it was the fastest,
 * and if every partition left is idle the source goes idle (FLINK-38454's
 * maximum is flushed first). Its generator is not called again.
 *
 * Alignment: the runtime sets `maxDesiredWatermark`; while the emitted
 * watermark is above it (`shouldWait`), `poll` reads nothing.
 */
export class SourceSubtask<T> {
  readonly #reader: SourceReader<T>;
  readonly #maxBatch: number;
  readonly #subtask: Subtask;
  readonly #partitions: SourcePartitions<T>;
  #ended = false;
  readonly #persist: boolean;
  readonly #onSnapshot: SourceSubtaskOptions<T>["onSnapshot"];
  #chainSnapshot: SubtaskSnapshot | null = null;
  readonly #records: SourceRecords<T>;
  /** The largest watermark alignment allows; `Infinity` until announced. */
  maxDesiredWatermark: number = Infinity;
  /**
   * When the runtime next reports this subtask's watermark for alignment and
   * applies the limit (`Infinity` if not aligned): kept here for snapshots.
   */
  nextAlignmentMs: number = Infinity;

  /**
   * Creates the subtask and its per-partition generators.
   *
   * @param options Reader, strategy, chained operators, edges and intervals.
   * @param context Clocks, subtask index, parallelism and metrics.
   * @param send Delivers elements to downstream channels.
   */
  constructor(
    options: SourceSubtaskOptions<T>,
    context: OperatorContext,
    send: SubtaskSend,
  ) {
    this.#reader = options.reader;
    const assign = options.strategy.createTimestampAssigner();
    this.#maxBatch = options.maxBatchSize ?? 1024;
    this.#persist = options.persistWatermarks ?? true;
    this.#onSnapshot = options.onSnapshot;
    this.#subtask = new Subtask(
      {
        operators: [new PassThroughOperator(), ...options.operators],
        numInputChannels: 1,
        edges: options.edges,
        persistWatermarks: this.#persist,
        snapshotParts: options.snapshotParts,
        onSnapshot: (_checkpointId, chain) => this.#chainSnapshot = chain,
        errorPolicy: options.errorPolicy,
        quarantine: options.quarantine,
        descriptors: options.descriptors,
      },
      context,
      send,
    );
    const guard = guardOf(this.#subtask);
    guard.partitions = options.reader.partitions;
    this.#records = new SourceRecords(
      options.reader.partitions,
      assign,
      // The source itself (its descriptor, the pass-through head's) rejects
      // records whose timestamps it cannot assign.
      guardedOperator(options.reader, 0, options.descriptors),
      this.#subtask,
      guard,
      context.metrics,
    );
    this.#partitions = new SourcePartitions(
      options.reader.partitions,
      options.strategy,
      context,
      this.#records.output,
      options.autoWatermarkIntervalMs,
    );
  }

  /** The names of the reader's partitions, in its order (one generator each). */
  get partitions(): readonly string[] {
    return this.#reader.partitions;
  }

  /** Each partition's own watermark and status (active, idle, finished), computed when asked. */
  partitionStates(): PartitionState[] {
    return this.#partitions.states();
  }

  /** The subtask's counters (records in count records read). */
  get metrics(): Subtask["metrics"] {
    return this.#subtask.metrics;
  }

  /** The watermark this source emitted last; `-Infinity` before the first. */
  get currentWatermark(): number {
    return this.#partitions.emitter.currentWatermark;
  }

  /** Whether the source's output is idle. */
  get idle(): boolean {
    return this.#partitions.emitter.idle;
  }

  /** Whether alignment holds this source: its watermark is above the allowed maximum. */
  get shouldWait(): boolean {
    return this.maxDesiredWatermark < this.#partitions.emitter.currentWatermark;
  }

  /** Whether the input ended and `end` was sent downstream. */
  get finished(): boolean {
    return this.#subtask.finished;
  }

  /**
   * Reads and emits one poll of records, or ends the source when its reader
   * is exhausted.
   *
   * @param now The current processing time in milliseconds.
   * @returns `true` if it did any work.
   * @throws {RangeError} If an assigned timestamp is not a finite safe integer.
   */
  poll(now: number): boolean {
    if (this.#ended || this.#subtask.backPressured) return false;
    // A source held by alignment still ends once its reader is exhausted.
    const batch = this.shouldWait
      ? null
      : this.#reader.poll(now, this.#maxBatch);
    if (batch === null) {
      if (!this.#reader.finished) return false;
      this.#end();
      return true;
    }
    this.#emit(batch, true);
    return true;
  }

  /**
   * The records this subtask (its timestamp assigner or a chained
   * operator) set aside under its error policy since the last call: the
   * runtime writes them to the job's dead-letter log.
   *
   * @returns The letters, oldest first; the subtask keeps none.
   */
  takeDeadLetters(): DeadLetter[] {
    return this.#subtask.takeDeadLetters();
  }

  /** Records read per partition since creation, in the reader's order: how far a replay must read. */
  get recordsRead(): readonly number[] {
    return this.#records.read;
  }

  /** The reader's position now, as its snapshot would hold it. */
  get readerPosition(): unknown {
    return this.#reader.snapshotState();
  }

  /**
   * Starts rebuilding event time by replay (the KV runtime's
   * `watermarkRecovery: "replay"`): records read again from a second
   * reader, restored at the last checkpoint's positions, go through
   * {@linkcode SourceSubtask.replayBatch} until
   * {@linkcode SourceSubtask.endReplay}; they feed the partitions'
   * generators and nothing is emitted (see `Subtask.beginReplay`).
   */
  beginReplay(): void {
    this.#subtask.beginReplay();
  }

  /**
   * Feeds records read again to their partition's generator, emitting
   * nothing; they do not count as read.
   *
   * @param batch Records of one partition, in order, as a reader polled them.
   * @throws {RangeError} If an assigned timestamp is not a finite safe integer.
   */
  replayBatch(batch: SourceBatch<T>): void {
    this.#emit(batch, false);
  }

  /** Ends a replay: the rebuilt watermark goes on once (see `Subtask.endReplay`). */
  endReplay(): void {
    this.#subtask.endReplay();
  }

  /** Stamps a polled batch and hands it to its partition's generator and downstream. */
  #emit(batch: SourceBatch<T>, read: boolean): void {
    this.#records.emit(batch, read, this.#partitions.all[batch.partition]);
    // A replay's reader reports ends too; the live reader does so again
    // after a restore, and only its reports release.
    if (read && batch.ended === true) this.#release(batch.partition);
  }

  /** Releases an ended partition's output and recombines the others at once. */
  #release(index: number): void {
    if (!this.#partitions.release(index)) return;
    // The last partition leaving is the end of input: no need to wait for
    // the next poll to find nothing.
    if (this.#reader.finished) this.#end();
    else this.#partitions.recombine();
  }

  /**
   * Runs periodic watermark emission and the chain's processing-time work.
   *
   * @param now The current processing time in milliseconds.
   * @returns Whether a periodic emission ran: it changes the subtask's
   * state (the schedule, idleness countdowns) even when it emits nothing,
   * so a runtime that persists every step must persist it.
   */
  onProcessingTime(now: number): boolean {
    const emitted = !this.#ended && this.#partitions.emitPeriodic(now);
    this.#subtask.onProcessingTime(now);
    return emitted;
  }

  /** The earliest processing time with work: periodic emit, reader, chain timers. */
  nextProcessingTime(now: number): number {
    if (this.#ended) return this.#subtask.nextProcessingTime();
    // While alignment holds the source, available records are no reason to wake.
    const reader = this.shouldWait
      ? Infinity
      : this.#reader.nextAvailableAt(now);
    return Math.min(
      this.#partitions.nextPeriodic,
      reader,
      this.#subtask.nextProcessingTime(),
    );
  }

  /**
   * Takes part in checkpoint `checkpointId`: snapshots the reader's
   * positions (and, in persist mode, the generators and the emitter), then
   * sends the barrier through the chain and downstream. Records read later
   * belong to the next checkpoint. A source that ended takes no part.
   *
   * @param checkpointId The checkpoint to start.
   * @returns `false` if the source already ended.
   */
  triggerCheckpoint(checkpointId: number): boolean {
    if (this.#ended) return false;
    const snapshot = this.#ownSnapshot();
    this.#chainSnapshot = null;
    this.#subtask.receive(0, { kind: "barrier", checkpointId });
    this.#onSnapshot?.(checkpointId, {
      ...snapshot,
      chain: this.#chainSnapshot!,
    });
    return true;
  }

  /**
   * Returns the subtask's state without sending a barrier or cutting
   * anything (a step snapshot, see `SnapshotOptions.step`): the KV runtime
   * commits it with every step.
   *
   * @returns Plain data that may share live objects: copy (encode) it
   * before processing more input.
   */
  snapshot(): SourceSubtaskSnapshot {
    return { ...this.#ownSnapshot(), chain: this.#subtask.snapshot(0, true) };
  }

  #ownSnapshot(): Omit<SourceSubtaskSnapshot, "chain"> {
    const snapshot: {
      -readonly [F in keyof SourceSubtaskSnapshot]?: SourceSubtaskSnapshot[F];
    } = {
      reader: this.#reader.snapshotState(),
      offsets: this.#records.offsetsByName(),
    };
    if (this.#persist) {
      this.#partitions.snapshotInto(snapshot);
      snapshot.alignment = {
        maxDesiredWatermark: this.maxDesiredWatermark,
        nextAnnouncementMs: this.nextAlignmentMs,
      };
    }
    return snapshot as Omit<SourceSubtaskSnapshot, "chain">;
  }

  /**
   * Puts back a snapshot taken from an equally configured source subtask:
   * the reader seeks, and in persist mode event time resumes exactly where
   * it was: generators (idleness countdowns included), the merged partition
   * watermarks, the released partitions, the emitter, the reader's and the
   * periodic-emission schedules and alignment, so that a restart at the
   * same processing time emits what the source that never stopped emits.
   * A `reader` of `undefined` (a source the checkpoint did not have, see
   * `assignOperatorState`) leaves the reader at its start.
   *
   * @param snapshot The snapshot.
   */
  restore(snapshot: SourceSubtaskSnapshot): void {
    // The reader reports ended partitions again (replay mode learns them
    // so); in persist mode they are released below already.
    if (snapshot.reader !== undefined) {
      this.#reader.restoreState(snapshot.reader, { exact: this.#persist });
    }
    this.#records.restoreOffsets(snapshot.offsets);
    this.#partitions.restore(snapshot);
    if (snapshot.alignment !== undefined) {
      this.maxDesiredWatermark = snapshot.alignment.maxDesiredWatermark;
      this.nextAlignmentMs = snapshot.alignment.nextAnnouncementMs;
    }
    this.#subtask.restore(snapshot.chain);
  }

  /**
   * Tells the chained operators that checkpoint `checkpointId` is complete.
   *
   * @param checkpointId The completed (or restored) checkpoint.
   */
  notifyCheckpointComplete(checkpointId: number): Promise<void> {
    return this.#subtask.notifyCheckpointComplete(checkpointId);
  }

  /** Waits for asynchronous work of the chained operators. */
  settle(): Promise<void> {
    return this.#subtask.settle();
  }

  /** Lets chained asynchronous operators emit what completed. */
  processMail(): void {
    this.#subtask.processMail();
  }

  /** Whether a chained operator is full, so the source must not read. */
  get backPressured(): boolean {
    return this.#subtask.backPressured;
  }

  /** Asynchronous calls in flight in the chained operators. */
  get inFlight(): number {
    return this.#subtask.inFlight;
  }

  /** Waits for the reader's background reads, if it has any. */
  async ready(): Promise<void> {
    await this.#reader.ready?.();
  }

  /** Stops the reader's background reads, if it has any. */
  async close(): Promise<void> {
    await this.#reader.close?.();
  }

  #end(): void {
    this.#ended = true;
    this.#partitions.end();
    this.#subtask.receive(0, END);
  }
}
