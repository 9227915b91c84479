/**
 * A job's fingerprint: what must match between a job and a checkpoint before
 * the job may restore it, and the error it gets when it does not.
 *
 * @module
 */

import type { JobGraph } from "./job_graph.ts";

/**
 * The version of the layout of subtask snapshots. Bump it when a snapshot
 * written by one version of weir can no longer be read by the next: a
 * checkpoint with another version is then refused instead of misread.
 */
export const STATE_FORMAT_VERSION = 1;

/**
 * What identifies a job's state, recorded with every completed checkpoint
 * and compared before one is restored.
 *
 * The parallelism of each operator is deliberately left out: a checkpoint
 * holds keyed state by key group, so it can be restored at another
 * parallelism. `maxParallelism` is in, because it fixes the key groups.
 */
export interface JobFingerprint {
  /** The job's name. */
  readonly jobName: string;
  /** The operator (vertex) ids, in the graph's order; the order is not compared. */
  readonly operatorIds: readonly string[];
  /** The number of key groups. */
  readonly maxParallelism: number;
  /** The {@linkcode STATE_FORMAT_VERSION} of the weir that wrote the snapshots. */
  readonly stateFormatVersion: number;
}

/**
 * The fingerprint of a job graph: its name, its vertex ids in order, its
 * `maxParallelism` and the current {@linkcode STATE_FORMAT_VERSION}.
 *
 * @param graph The plan, already checked by `validateJobGraph`.
 * @returns A fresh fingerprint; plain data, safe to store.
 *
 * @example The same plan at another parallelism keeps its fingerprint
 * ```ts
 * import { fingerprintOf, type JobGraph } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const plan = (parallelism: number): JobGraph => ({
 *   jobName: "clicks",
 *   vertices: [{ id: "map-1", name: "map", parallelism, createOperators: () => [] }],
 *   edges: [],
 *   maxParallelism: 128,
 *   autoWatermarkIntervalMs: 200,
 * });
 * assert.deepEqual(fingerprintOf(plan(2)), fingerprintOf(plan(8)));
 * assert.deepEqual(fingerprintOf(plan(2)).operatorIds, ["map-1"]);
 * ```
 */
export function fingerprintOf(graph: JobGraph): JobFingerprint {
  return {
    jobName: graph.jobName,
    operatorIds: graph.vertices.map((vertex) => vertex.id),
    maxParallelism: graph.maxParallelism,
    stateFormatVersion: STATE_FORMAT_VERSION,
  };
}

/**
 * A checkpoint's fingerprint differs from the job's: restoring it would give
 * this job another job's state, or state it cannot read.
 *
 * Callers must not treat this as "no checkpoint" and start fresh, nor skip
 * to an older checkpoint: the storage holds state of another job (or of an
 * incompatible version of this one), and a person must decide. Seed 004
 * §4.3 tells what happens otherwise: a job read another job's checkpoint,
 * resumed at its old watermark, and fired every window at once.
 */
export class CheckpointMismatchError extends Error {
  /** A stable code for programs to branch on. */
  readonly code = "CHECKPOINT_MISMATCH";
  /** The id of the refused checkpoint. */
  readonly checkpointId: number;
  /** What differs, one phrase per difference, as in the message. */
  readonly differences: readonly string[];

  /**
   * Creates the error; its message names the checkpoint, the job and every
   * difference.
   *
   * @param checkpointId The id of the refused checkpoint.
   * @param jobName The name of the job that tried to restore it.
   * @param differences What differs, one phrase each.
   */
  constructor(
    checkpointId: number,
    jobName: string,
    differences: readonly string[],
  ) {
    super(
      `Cannot restore checkpoint ${checkpointId} of job '${jobName}' as its fingerprint differs: ${
        differences.join("; ")
      }`,
    );
    this.name = "CheckpointMismatchError";
    this.checkpointId = checkpointId;
    this.differences = [...differences];
  }
}

/**
 * Checks that a checkpoint's fingerprint matches the job's.
 *
 * Job names, `maxParallelism` and `stateFormatVersion` must be equal, and
 * both must have the same set of operator ids (in any order: snapshots are
 * keyed by operator id, not by position).
 *
 * @param expected The fingerprint of the job that restores.
 * @param found The fingerprint recorded with the checkpoint.
 * @param checkpointId The checkpoint's id, for the message.
 * @throws {CheckpointMismatchError} If anything differs; the message lists
 * every difference, e.g. "jobName is 'orders' in the checkpoint, 'clicks'
 * in this job; operator 'window-3' is missing in this job".
 *
 * @example Another job's checkpoint is refused
 * ```ts
 * import { CheckpointMismatchError, requireMatchingFingerprint } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const clicks = { jobName: "clicks", operatorIds: ["src-1"], maxParallelism: 128, stateFormatVersion: 1 };
 * const orders = { ...clicks, jobName: "orders" };
 * requireMatchingFingerprint(clicks, { ...clicks }, 7);
 * assert.throws(() => requireMatchingFingerprint(clicks, orders, 7), {
 *   name: "CheckpointMismatchError",
 *   message: /checkpoint 7 .*jobName is 'orders' in the checkpoint, 'clicks' in this job/,
 * });
 * assert.equal(new CheckpointMismatchError(7, "clicks", ["x"]).code, "CHECKPOINT_MISMATCH");
 * ```
 */
export function requireMatchingFingerprint(
  expected: JobFingerprint,
  found: JobFingerprint,
  checkpointId: number,
): void {
  const differences: string[] = [];
  if (found.jobName !== expected.jobName) {
    differences.push(
      `jobName is '${found.jobName}' in the checkpoint, '${expected.jobName}' in this job`,
    );
  }
  const ours = new Set(expected.operatorIds);
  const theirs = new Set(found.operatorIds);
  const missing = [...theirs].filter((id) => !ours.has(id));
  const extra = [...ours].filter((id) => !theirs.has(id));
  if (missing.length > 0) {
    differences.push(`${operators(missing)} missing in this job`);
  }
  if (extra.length > 0) {
    differences.push(`${operators(extra)} missing in the checkpoint`);
  }
  for (const field of ["maxParallelism", "stateFormatVersion"] as const) {
    if (found[field] !== expected[field]) {
      differences.push(
        `${field} is ${found[field]} in the checkpoint, ${
          expected[field]
        } in this job`,
      );
    }
  }
  if (differences.length > 0) {
    throw new CheckpointMismatchError(
      checkpointId,
      expected.jobName,
      differences,
    );
  }
}

/** "operator 'a' is" or "operators 'a', 'b' are". */
function operators(ids: readonly string[]): string {
  const names = ids.map((id) => `'${id}'`).join(", ");
  return ids.length === 1 ? `operator ${names} is` : `operators ${names} are`;
}
