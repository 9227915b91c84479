/**
 * What the observing layer reads of a running job: a {@linkcode JobHandle}
 * (its plan, its subtasks' status, its sampled watermark history, its
 * checkpoints and dead letters), and the samples it keeps.
 *
 * @module
 */

import type { CheckpointInfo } from "../actors/checkpoint.ts";
import type { DeadLetterLog } from "../actors/dead_letter_log.ts";
import type { SubtaskStatus } from "../actors/actor_runtime.ts";
import type { JobGraph } from "../runtime/job_graph.ts";
import type { PartitionState } from "../runtime/partition_state.ts";

/** One sample of every subtask's watermarks, for history and the timeline. */
export interface WatermarkSample {
  /** Processing time of the sample, epoch milliseconds. */
  readonly at: number;
  /** Per actor id: input and output watermark, idleness. */
  readonly subtasks: Readonly<
    Record<
      string,
      { inputWatermark: number; outputWatermark: number; idle: boolean }
    >
  >;
}

/** A completed checkpoint as the service shows it. */
export interface CheckpointRecord extends CheckpointInfo {
  /** How long it took from trigger to saved, in milliseconds, if known. */
  readonly durationMs?: number;
  /** Its serialized size in bytes, if known. */
  readonly sizeBytes?: number;
}

/**
 * What a handle knows of a job's checkpoints beyond the stored ones: the
 * counts since it started looking, the recent failures, and the
 * checkpoint the job started from (Flink's checkpoint counts, history
 * and restore).
 */
export interface CheckpointStats {
  /** Checkpoints completed since the handle started looking. */
  readonly completed: number;
  /** Checkpoints that failed (were dropped) since then. */
  readonly failed: number;
  /** The checkpoint in progress, or `null`. */
  readonly inProgress: number | null;
  /** The recent failures, oldest first: the id and when it was seen failed. */
  readonly failures: readonly { readonly id: number; readonly at: number }[];
  /** The checkpoint the job started from, or `null` (afresh, or not known). */
  readonly restoredFrom: CheckpointInfo | null;
  /** Whether `restoredFrom` is known: `false` when `null` means "not known". */
  readonly restoredFromKnown: boolean;
}

/** The service's view of one running job: what every page, route and detector reads. */
export interface JobHandle {
  /** The job's name. */
  readonly name: string;
  /** The job's plan. */
  readonly graph: JobGraph;
  /** Every subtask's current status. */
  status(): SubtaskStatus[];
  /** Recent watermark samples, oldest first. */
  history(): readonly WatermarkSample[];
  /** Completed checkpoints, oldest first. */
  checkpoints(): Promise<CheckpointRecord[]>;
  /** Checkpoint counts, failures and the restore the job started from. */
  checkpointStats?(): CheckpointStats;
  /** Starts a checkpoint now; `null` if one is running or the job finished. */
  triggerCheckpoint(): number | null;
  /**
   * Per actor id, each input channel of the subtask: its watermark, status,
   * and the processing time its watermark last moved.
   */
  inputChannels(actorId: string): Array<{
    channel: number;
    watermark: number;
    idle: boolean;
    lastMovedAt: number | null;
  }>;
  /**
   * The job's dead-letter log (the records its error policy set aside), or
   * `undefined` when it keeps none; asked again at every read, so a handle
   * follows a runtime that was replaced.
   */
  deadLetters?(): Pick<DeadLetterLog, "list" | "count"> | undefined;
  /**
   * Each partition of a source subtask with its own watermark and status
   * (active, idle, finished), by actor id; absent, or `undefined`, where
   * the runtime cannot know them.
   */
  sourcePartitionStates?(actorId: string): PartitionState[] | undefined;
}

/**
 * One sample of every subtask's counters and gauges, taken with each
 * watermark sample: what the health check reads to see state grow and
 * records flow over time.
 */
export interface GaugeSample {
  /** Processing time of the sample, epoch milliseconds. */
  readonly at: number;
  /** Per actor id: records in and out, and the subtask's gauges. */
  readonly subtasks: Readonly<
    Record<
      string,
      {
        readonly recordsIn: number;
        readonly recordsOut: number;
        readonly gauges: Readonly<Record<string, number>>;
      }
    >
  >;
}
