/**
 * The job's live state as every detector reads it, taken once per
 * diagnosis, and the readings of it several detectors share.
 *
 * @module
 */

import type { SubtaskStatus } from "../../actors/actor_runtime.ts";
import type { JobGraph, JobVertex } from "../../runtime/job_graph.ts";
import type { GaugeSample, WatermarkSample } from "../job_handle.ts";
import type { DiagnosableJob, DiagnosisWindows } from "./diagnosis.ts";

/** A job's live state at one processing time, as the detectors read it. */
export interface Scene {
  /** The job. */
  readonly job: DiagnosableJob;
  /** Its plan. */
  readonly graph: JobGraph;
  /** Every subtask's status, by actor id. */
  readonly statuses: ReadonlyMap<string, SubtaskStatus>;
  /** The processing time of the diagnosis. */
  readonly now: number;
  /** How long a stall and a trend must last. */
  readonly windows: DiagnosisWindows;
  /** The first sample's time: since when a `-Infinity` channel is watched. */
  readonly since: number | null;
  /** Every watermark sample kept, oldest first. */
  readonly history: readonly WatermarkSample[];
  /** The watermark samples of the last `lookbackMs`. */
  readonly recent: readonly WatermarkSample[];
  /** Every gauge sample kept (none if the handle keeps none). */
  readonly allGauges: readonly GaugeSample[];
  /** The gauge samples of the last `lookbackMs`, or `null` if not kept. */
  readonly gauges: readonly GaugeSample[] | null;
}

/**
 * Reads a job's live state once: one status read, its history and its
 * gauge history.
 *
 * @param job The job.
 * @param now The current processing time, epoch milliseconds.
 * @param windows How long a stall and a trend must last.
 * @returns The scene.
 */
export function sceneOf(
  job: DiagnosableJob,
  now: number,
  windows: DiagnosisWindows,
): Scene {
  const statuses = job.status();
  const history = job.history();
  const gauges = job.gaugeHistory?.() ?? null;
  const from = now - windows.lookbackMs;
  return {
    job,
    graph: job.graph,
    statuses: new Map(statuses.map((s) => [s.id, s])),
    now,
    windows,
    since: history[0]?.at ?? null,
    history,
    recent: history.filter((s) => s.at >= from && s.at <= now),
    allGauges: gauges ?? [],
    gauges: gauges?.filter((s) => s.at >= from && s.at <= now) ?? null,
  };
}

/** The vertex with that id, if any. */
export function vertexOf(scene: Scene, id: string): JobVertex | undefined {
  return scene.graph.vertices.find((v) => v.id === id);
}

/** The statuses of a vertex's subtasks. */
export function subtasksOf(scene: Scene, vertex: JobVertex): SubtaskStatus[] {
  return [...scene.statuses.values()].filter((s) => s.operator === vertex.id);
}

/** Records a subtask read in the last `ms`, from the gauge history. */
export function recordsReadIn(
  scene: Scene,
  status: SubtaskStatus,
  ms: number,
): number | null {
  const before = scene.allGauges.findLast((s) => s.at <= scene.now - ms);
  const then = before?.subtasks[status.id]?.recordsIn;
  return then === undefined ? null : status.recordsIn - then;
}

/** How long a subtask's output watermark has stood still, from the samples. */
export function unmovedFor(scene: Scene, status: SubtaskStatus): number | null {
  let since: number | null = null;
  for (let i = scene.history.length - 1; i >= 0; i--) {
    const sample = scene.history[i].subtasks[status.id];
    if (sample === undefined) break;
    if (!Object.is(sample.outputWatermark, status.outputWatermark)) break;
    since = scene.history[i].at;
  }
  return since === null ? null : scene.now - since;
}
