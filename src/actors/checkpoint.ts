/**
 * {@linkcode CompletedCheckpoint}: a job's consistent cut as the runtimes
 * take it and a `CheckpointStore` keeps it.
 *
 * @module
 */

import type { JobFingerprint } from "../runtime/fingerprint.ts";

/** A consistent cut of a job: every subtask's snapshot, with the job's fingerprint. */
export interface CompletedCheckpoint {
  /** The checkpoint id: a positive safe integer, increasing per checkpoint. */
  readonly id: number;
  /** The fingerprint of the job that took it. */
  readonly fingerprint: JobFingerprint;
  /** When it was taken, in milliseconds since the epoch (from the job's clock). */
  readonly createdAt: number;
  /**
   * Each subtask's snapshot by actor id (`job/operator/subtask`): data that
   * `structuredClone` copies (`±Infinity`, `Map`, `Set`, `Date` and shared
   * references survive; class instances come back as plain objects). A
   * snapshot may be several MB; it is stored in V8's structured-clone
   * format, deflated when large and compressible.
   */
  readonly subtasks: Readonly<Record<string, unknown>>;
}

/** One entry of `CheckpointStore.list()`: a complete checkpoint. */
export interface CheckpointInfo {
  /** The checkpoint id. */
  readonly id: number;
  /** When it was taken, in milliseconds since the epoch. */
  readonly createdAt: number;
}
