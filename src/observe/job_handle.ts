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
