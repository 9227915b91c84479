/**
 * What `GET /jobs` and `GET /jobs/:job` say of a job: its summary, and its
 * plan with every subtask's status.
 *
 * @module
 */

import type { SubtaskStatus } from "../actors/actor_runtime.ts";
import type { PartitionState } from "../runtime/partition_state.ts";
import {
  type DeadLetterBrief,
  type DeadLetterSummary,
  readDeadLetters,
} from "./dead_letters.ts";
import type {
  CheckpointRecord,
  CheckpointStats,
  JobHandle,
} from "./job_handle.ts";

// How many dead letters `GET /jobs/:job` shows.
const RECENT_DEAD_LETTERS = 5;

/** A job as `GET /jobs` lists it (see `jobRoutes`). */
export interface JobSummary {
  name: string;
  numOperators: number;
  numSubtasks: number;
  watermark: number;
  maxWatermarkLagMs: number;
  recordsIn: number;
  lateRecordsDropped: number;
  idleSubtasks: number;
  pausedSubtasks: number;
  lastSampleAt: number | null;
  deadLetters: number | null;
}

/** A subtask as `GET /jobs/:job` shows it. */
export type SubtaskDescription =
  & Pick<
    SubtaskStatus,
    | "id"
    | "subtask"
    | "inputWatermark"
    | "outputWatermark"
    | "idle"
    | "watermarkLagMs"
    | "recordsIn"
    | "recordsOut"
    | "mailboxDepth"
    | "paused"
    | "gauges"
    | "worker"
    | "stuck"
  >
  & {
    lateRecordsDropped: number;
    /** A source subtask's partitions, when known. */
    partitions?: PartitionState[];
  };

/** A job as `GET /jobs/:job` shows it: its summary and its plan. */
export interface JobDescription extends JobSummary {
  maxParallelism: number;
  autoWatermarkIntervalMs: number;
  operators: {
    id: string;
    name: string;
    parallelism: number;
    source: boolean;
    inputs: string[];
    outputs: string[];
    subtasks: SubtaskDescription[];
  }[];
  recentDeadLetters: readonly DeadLetterBrief[];
  checkpoints: CheckpointSummary;
}

/**
 * A job's checkpoints as the checkpoints panel shows them: the counts, the
 * recent failures, the restore it started from, and the latest stored one
 * (with its size when the store records it).
 */
export interface CheckpointSummary {
  /**
   * `completed` and `failed` since the service started looking,
   * `inProgress` (an id or `null`) and `retained`: how many the store keeps.
   */
  counts: {
    completed: number;
    failed: number;
    inProgress: number | null;
    retained: number;
  };
  /** The recent failures, oldest first: `{ id, at }`. */
  failures: CheckpointStats["failures"];
  /** The checkpoint the job started from (`{ id, createdAt }`), or `null`. */
  restoredFrom: CheckpointStats["restoredFrom"];
  /** Whether `restoredFrom` is known (`null` then means "started afresh"). */
  restoredFromKnown: boolean;
  /** The newest stored checkpoint, or `null`. */
  latest: CheckpointRecord | null;
  /** The newest stored checkpoint's size in bytes, or `null` if not recorded. */
  sizeBytes: number | null;
}

/**
 * The checkpoint summary of a job, from its stored checkpoints (or those
 * already read) and its handle's counts.
 */
export async function summarizeCheckpoints(
  handle: JobHandle,
  stored?: readonly CheckpointRecord[],
): Promise<CheckpointSummary> {
  const checkpoints = stored ?? await handle.checkpoints();
  const stats = handle.checkpointStats?.();
  const latest = checkpoints.at(-1) ?? null;
  return {
    counts: {
      completed: stats?.completed ?? checkpoints.length,
      failed: stats?.failed ?? 0,
      inProgress: stats?.inProgress ?? null,
      retained: checkpoints.length,
    },
    failures: stats?.failures ?? [],
    restoredFrom: stats?.restoredFrom ?? null,
    restoredFromKnown: stats?.restoredFromKnown ?? false,
    latest,
    sizeBytes: latest?.sizeBytes ?? null,
  };
}

/**
 * The job summary of `GET /jobs`; `deadLetters` when the caller has read
 * them already.
 */
export async function summarize(
  handle: JobHandle,
  deadLetters?: DeadLetterSummary | null,
): Promise<JobSummary> {
  const letters = deadLetters === undefined
    ? await readDeadLetters(handle, 0)
    : deadLetters;
  const statuses = handle.status();
  const sources = new Set(
    handle.graph.vertices.filter((v) => v.source !== undefined).map((v) =>
      v.id
    ),
  );
  const active = statuses.filter((s) => !s.idle);
  return {
    name: handle.name,
    numOperators: handle.graph.vertices.length,
    numSubtasks: statuses.length,
    watermark: Math.min(
      ...(active.length > 0 ? active : statuses).map((s) => s.inputWatermark),
    ),
    maxWatermarkLagMs: statuses.length === 0
      ? 0
      : Math.max(...statuses.map((s) => s.watermarkLagMs)),
    recordsIn: sum(
      statuses.filter((s) => sources.has(s.operator)).map((s) => s.recordsIn),
    ),
    lateRecordsDropped: sum(statuses.map(lateOf)),
    idleSubtasks: statuses.length - active.length,
    pausedSubtasks: statuses.filter((s) => s.paused).length,
    lastSampleAt: handle.history().at(-1)?.at ?? null,
    deadLetters: letters?.count ?? null,
  };
}

/** The job's plan with every subtask's status, for `GET /jobs/:job`. */
export async function describe(handle: JobHandle): Promise<JobDescription> {
  const { graph } = handle;
  const statuses = handle.status();
  const deadLetters = await readDeadLetters(handle, RECENT_DEAD_LETTERS);
  return {
    ...await summarize(handle, deadLetters),
    maxParallelism: graph.maxParallelism,
    autoWatermarkIntervalMs: graph.autoWatermarkIntervalMs,
    operators: graph.vertices.map((v) => ({
      id: v.id,
      name: v.name,
      parallelism: v.parallelism,
      source: v.source !== undefined,
      inputs: graph.edges.filter((e) => e.to === v.id).map((e) => e.from),
      outputs: graph.edges.filter((e) => e.from === v.id).map((e) => e.to),
      subtasks: statuses.filter((s) => s.operator === v.id).map((s) => ({
        id: s.id,
        subtask: s.subtask,
        inputWatermark: s.inputWatermark,
        outputWatermark: s.outputWatermark,
        idle: s.idle,
        watermarkLagMs: s.watermarkLagMs,
        recordsIn: s.recordsIn,
        recordsOut: s.recordsOut,
        lateRecordsDropped: lateOf(s),
        mailboxDepth: s.mailboxDepth,
        paused: s.paused,
        gauges: s.gauges,
        ...(s.worker === undefined ? {} : { worker: s.worker }),
        // What a failing KV actor is stuck on (the health finding's evidence).
        ...(s.stuck === undefined ? {} : { stuck: s.stuck }),
        // A source's partitions, when the runtime knows them (not the KV view).
        ...partitionsOf(handle, s.id),
      })),
    })),
    recentDeadLetters: deadLetters?.recent ?? [],
    checkpoints: await summarizeCheckpoints(handle),
  };
}

function lateOf(status: SubtaskStatus): number {
  return status.gauges.numLateRecordsDropped ?? 0;
}

function sum(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

function partitionsOf(
  handle: JobHandle,
  id: string,
): { partitions?: PartitionState[] } {
  const states = handle.sourcePartitionStates?.(id);
  return states === undefined || states.length === 0
    ? {}
    : { partitions: states };
}
