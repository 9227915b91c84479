/**
 * What a diagnosis is: one cause that holds a job's event time back, found
 * in its live state, with the operator to look at, the evidence and the
 * fix; and what the detectors read (a {@linkcode DiagnosableJob}) and how
 * long things must last ({@linkcode DiagnosisWindows}). `diagnose.ts` runs
 * the detectors, one per file beside this one.
 *
 * @module
 */

import type { GaugeSample, JobHandle } from "../job_handle.ts";

/**
 * A job as the diagnosis reads it: a {@linkcode JobHandle} that may also
 * name the partitions a source subtask reads and keep a history of counters
 * and gauges (`LocalJobHandle` does both). Without them the detectors that
 * need them stay silent.
 */
export interface DiagnosableJob extends JobHandle {
  /** The partitions a source subtask reads; none for other subtasks. */
  sourcePartitions?(actorId: string): readonly string[];
  /** Counters and gauges sampled with `history()`, oldest first. */
  gaugeHistory?(): readonly GaugeSample[];
}

/** What a diagnosis names. */
export type DiagnosisCause =
  | "silent-partition"
  | "timestamps-in-seconds"
  | "back-pressure"
  | "generator-never-emits"
  | "window-never-fires"
  | "state-growth"
  | "stuck-actor";

/** One cause found in a job's live state, with its evidence and fix. */
export interface Diagnosis {
  /** The cause. */
  readonly cause: DiagnosisCause;
  /** The operator (vertex id) to look at: where the fix applies. */
  readonly operator: string;
  /** The subtask index, when one subtask is the cause. */
  readonly subtask?: number;
  /** What was seen, with values, in plain language. */
  readonly evidence: string;
  /** What to change. */
  readonly fix: string;
}

/** How long things must last before the detectors call them stuck. */
export interface DiagnosisWindows {
  /** How long a watermark must stand still to be called stalled, in ms. */
  readonly stallMs: number;
  /** How far back trends (growth, advance) are read, in ms. */
  readonly lookbackMs: number;
}
