// The records of a source subtask's polls: stamped, counted, fed to their
// partition's generator and handed downstream. A watermark caused by a
// record follows that record: the records of a poll are cut where a
// watermark is emitted (the emitter's output flushes what is pending).

import {
  LatenessHistogram,
  type MetricGroup,
  type TimestampAssigner,
  type WatermarkStatusOutput,
} from "../time/mod.ts";
import type { SourceBatch } from "./source.ts";
import { recordBatch } from "./stream_element.ts";
import type { RejectRecord } from "./stream_operator.ts";
import type { Subtask } from "./subtask.ts";
import {
  CAUSE,
  type GuardedOperator,
  type RecordGuard,
} from "./_record_guard.ts";
import { stampBatch } from "./_stamp_batch.ts";
import type { Partition } from "./_source_partitions.ts";

/** A source's polled records on their way to the chain. */
export class SourceRecords<T> {
  readonly #names: readonly string[];
  readonly #assign: TimestampAssigner<T>;
  readonly #rejectTimestamp: RejectRecord;
  readonly #guard: RecordGuard;
  readonly #subtask: Subtask;
  /** How late records arrive against the highest timestamp. */
  readonly lateness: LatenessHistogram = new LatenessHistogram();
  /** Records read from each partition since this subtask was created. */
  readonly read: number[];
  /**
   * Records read from each partition since the job started (restored):
   * the offsets of dead letters.
   */
  readonly offsets: number[];
  /**
   * Where the source's watermarks and statuses go: after the records
   * pending before them.
   */
  readonly output: WatermarkStatusOutput = {
    emitWatermark: (watermark) => {
      this.flush();
      this.#subtask.receive(0, { kind: "watermark", watermark });
    },
    emitWatermarkStatus: (status) => {
      this.flush();
      this.#subtask.receive(0, { kind: "status", status });
    },
  };
  // Records of the current poll not yet handed downstream, see flush.
  #pendingValues: T[] = [];
  #pendingTimestamps: number[] = [];
  #pendingFrom = 0;
  #pendingEnd = 0;
  /**
   * The event timestamp of the last record stamped (epoch ms), set once
   * per poll; `-Infinity` before the first.
   */
  lastRecordTimestamp = -Infinity;

  /**
   * @param names The reader's partitions.
   * @param assign The strategy's timestamp assigner.
   * @param source Who sets aside a record whose timestamp fails.
   * @param subtask The chain the records go to; its guard positions them.
   * @param guard The chain's guard.
   * @param metrics Where the lateness and last-record gauges go.
   */
  constructor(
    names: readonly string[],
    assign: TimestampAssigner<T>,
    source: GuardedOperator,
    subtask: Subtask,
    guard: RecordGuard,
    metrics: MetricGroup,
  ) {
    this.#names = names;
    this.#assign = assign;
    this.#rejectTimestamp = function rejectTimestamp(value, ts, error, i) {
      guard.reject(source, true, value, ts, error, i);
    };
    this.#subtask = subtask;
    this.#guard = guard;
    // Lateness statistics of this source subtask: how late
    // records arrive against the highest timestamp, and the delay it suggests.
    const lateness = this.lateness;
    metrics.gauge("latenessP50Ms", () => lateness.quantile(0.5));
    metrics.gauge("latenessP95Ms", () => lateness.quantile(0.95));
    metrics.gauge("latenessP99Ms", () => lateness.quantile(0.99));
    metrics.gauge("latenessMaxMs", () => lateness.max);
    metrics.gauge("suggestedDelayMs", () => lateness.suggestedDelayMs());
    metrics.gauge("lastRecordTimestampMs", () => this.lastRecordTimestamp);
    this.read = names.map(() => 0);
    this.offsets = names.map(() => 0);
  }

  /** The dead-letter offsets by partition name, for a snapshot. */
  offsetsByName(): Record<string, number> {
    return Object.fromEntries(
      this.#names.map((name, p) => [name, this.offsets[p]]),
    );
  }

  /** Puts back the offsets of a snapshot; partitions it lacks start at 0. */
  restoreOffsets(offsets: Readonly<Record<string, number>> | undefined): void {
    this.#names.forEach((name, p) => {
      this.offsets[p] = offsets?.[name] ?? 0;
    });
  }

  /**
   * Stamps a polled batch and hands it to its partition's generator and
   * downstream; `read` is `false` for a batch read again in a replay.
   */
  emit(
    batch: SourceBatch<T>,
    read: boolean,
    partition: Partition<T>,
  ): void {
    const { values } = batch;
    // Dead letters point at "partition <name>, offset <n>"; a replay sets
    // nothing aside again (see RecordGuard).
    const guard = this.#guard;
    guard.cause = read ? CAUSE.records : CAUSE.replay;
    guard.unit = batch.partition;
    guard.base = this.offsets[batch.partition];
    guard.input = values;
    const { timestamps, rejected } = stampBatch(
      values,
      batch.timestamps,
      this.#assign,
      this.#rejectTimestamp,
      this.#names[batch.partition],
      batch.ownTimestamps === true,
    );
    // Counted only once the whole poll is stamped: under "fail" nothing of
    // a failed poll counts.
    if (read) {
      const lateness = this.lateness;
      if (rejected === null) lateness.recordAll(timestamps);
      else {
        for (let i = 0; i < timestamps.length; i++) {
          if (timestamps[i] === -Infinity || rejected[i]) continue;
          lateness.record(timestamps[i]);
        }
      }
      this.read[batch.partition] += values.length;
    }
    // Once per poll, from its end: the last record with a timestamp.
    for (let i = timestamps.length - 1; i >= 0; i--) {
      if (timestamps[i] === -Infinity || rejected?.[i]) continue;
      this.lastRecordTimestamp = timestamps[i];
      break;
    }
    this.#pendingValues = values;
    this.#pendingTimestamps = timestamps;
    this.#pendingFrom = 0;
    this.#pendingEnd = 0;
    if (rejected === null) {
      const { generator, immediate } = partition;
      for (let i = 0; i < values.length; i++) {
        // Records up to i are pending; a watermark emitted here flushes them first.
        this.#pendingEnd = i + 1;
        generator.onEvent(values[i], timestamps[i], immediate);
      }
    } else {
      this.#emitAround(partition, values, timestamps, rejected);
    }
    this.flush();
    guard.input = null;
    if (read) this.offsets[batch.partition] += values.length;
  }

  // The generator loop of emit for a batch with rejected records: the
  // records before a rejected one go on; it never does.
  #emitAround(
    partition: Partition<T>,
    values: readonly T[],
    timestamps: readonly number[],
    rejected: readonly boolean[],
  ): void {
    for (let i = 0; i < values.length; i++) {
      if (rejected[i]) {
        this.flush();
        this.#pendingFrom = this.#pendingEnd = i + 1;
        continue;
      }
      this.#pendingEnd = i + 1;
      partition.generator.onEvent(
        values[i],
        timestamps[i],
        partition.immediate,
      );
    }
  }

  /** Hands the pending records of the current poll downstream. */
  flush(): void {
    if (this.#pendingEnd <= this.#pendingFrom) return;
    const whole = this.#pendingFrom === 0 &&
      this.#pendingEnd === this.#pendingValues.length;
    const values = whole
      ? this.#pendingValues
      : this.#pendingValues.slice(this.#pendingFrom, this.#pendingEnd);
    const timestamps = whole
      ? this.#pendingTimestamps
      : this.#pendingTimestamps.slice(this.#pendingFrom, this.#pendingEnd);
    // The chain's dead letters count offsets from the first record sent.
    this.#guard.base = this.offsets[this.#guard.unit] + this.#pendingFrom;
    this.#pendingFrom = this.#pendingEnd;
    this.#subtask.receive(0, recordBatch(values as unknown[], timestamps));
  }
}
