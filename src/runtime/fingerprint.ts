/**
 * A job's fingerprint: what must match between a job and a checkpoint before
 * the job may restore it, and the error it gets when it does not.
 *
 * @module
 */

import type { JobGraph, OperatorDescriptor } from "./job_graph.ts";
import {
  describeOperator,
  matchOperators,
  START_OVER,
} from "./_operator_ids.ts";

/**
 * The version of the layout of subtask snapshots. Bump it when a snapshot
 * written by one version of weir can no longer be read by the next: a
 * checkpoint with another version is then refused instead of misread.
 */
export const STATE_FORMAT_VERSION = 1;

/**
 * One operator in a fingerprint: its ids, where its state sits in the
 * subtask snapshots, and what that state means.
 */
export interface OperatorFingerprint extends OperatorDescriptor {
  /** The vertex whose subtasks hold its state (in their actor ids). */
  readonly vertexId: string;
  /**
   * Where in each subtask snapshot its state is: `-1` for a source (the
   * reader's positions, and generators and emitter in persist mode), else
   * its index in the chain's `operators` (of a source subtask's `chain`,
   * whose first entry is the source's own pass-through).
   */
  readonly index: number;
}

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
  /**
   * Every operator of every chain, in the graph's order. When both the job
   * and the checkpoint have them, state is matched operator by operator
   * (by uid, or by positional id for an operator without one) and
   * `operatorIds` is not compared.
   * Absent for graphs built without operator descriptors, and in
   * checkpoints written before weir had `uid()`: those are matched vertex
   * by vertex, by vertex id, as they always were.
   * @default {undefined}
   */
  readonly operators?: readonly OperatorFingerprint[];
}

/**
 * The fingerprint of a job graph: its name, its vertex ids in order, its
 * `maxParallelism`, the current {@linkcode STATE_FORMAT_VERSION} and, when
 * every vertex lists its `operators` (graphs built by the API do), each
 * operator with its ids, where its state is and what it means.
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
  const fingerprint: JobFingerprint = {
    jobName: graph.jobName,
    operatorIds: graph.vertices.map((vertex) => vertex.id),
    maxParallelism: graph.maxParallelism,
    stateFormatVersion: STATE_FORMAT_VERSION,
  };
  if (!graph.vertices.every((vertex) => vertex.operators !== undefined)) {
    return fingerprint;
  }
  const operators = graph.vertices.flatMap((vertex) =>
    vertex.operators!.map((op, i): OperatorFingerprint => ({
      id: op.id,
      ...(op.uid === undefined ? {} : { uid: op.uid }),
      name: op.name,
      vertexId: vertex.id,
      // A source vertex lists its source first, whose state is not in the
      // chain; the chain starts with the source's own pass-through (see
      // SourceSubtask), so the operators after it keep their positions.
      index: vertex.source !== undefined && i === 0 ? -1 : i,
      state: { ...op.state },
    }))
  );
  return { ...fingerprint, operators };
}

/** Options of {@linkcode CheckpointMismatchError}. */
export interface CheckpointMismatchErrorOptions {
  /**
   * How to go on, ending the message.
   * @default {"to start over without its state, run with --restore none or execute({ restore: \"none\" })"}
   */
  readonly fix?: string;
}

/**
 * A checkpoint's fingerprint differs from the job's: restoring it would give
 * this job another job's state, or state it cannot read.
 *
 * Callers must not treat this as "no checkpoint" and start fresh, nor skip
 * to an older checkpoint: the storage holds state of another job (or of an
 * incompatible version of this one), and a person must decide. Otherwise a job can read another job's checkpoint,
 * resume at its old watermark, and fire every window at once.
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
   * difference, then says how to go on.
   *
   * @param checkpointId The id of the refused checkpoint.
   * @param jobName The name of the job that tried to restore it.
   * @param differences What differs, one phrase each.
   * @param options How to go on.
   */
  constructor(
    checkpointId: number,
    jobName: string,
    differences: readonly string[],
    options: CheckpointMismatchErrorOptions = {},
  ) {
    super(
      `Cannot restore checkpoint ${checkpointId} of job '${jobName}' as its fingerprint differs: ${
        differences.join("; ")
      }; ${options.fix ?? START_OVER}`,
    );
    this.name = "CheckpointMismatchError";
    this.checkpointId = checkpointId;
    this.differences = [...differences];
  }
}

/**
 * Checks that a checkpoint's fingerprint matches the job's.
 *
 * Job names, `maxParallelism` and `stateFormatVersion` must be equal. When
 * both fingerprints list their operators, each operator of the job that
 * finds its state in the checkpoint (by uid, or by positional id) must give
 * it the same meaning (the operator's kind, whether it is keyed, a window's
 * assigner and its size, slide, offset or gap, its window function and
 * trigger, a source's connector): operators may be added, removed or
 * regrouped into other chains, and whether state left behind may be
 * dropped is decided by the restore, which sees the state. Otherwise both
 * must have the same set of vertex ids (in any order: snapshots are keyed
 * by vertex id, not by position).
 *
 * @param expected The fingerprint of the job that restores.
 * @param found The fingerprint recorded with the checkpoint.
 * @param checkpointId The checkpoint's id, for the message.
 * @throws {CheckpointMismatchError} If anything differs; the message lists
 * every difference, e.g. "jobName is 'orders' in the checkpoint, 'clicks'
 * in this job; operator 'window-3' is missing in this job", or "the state
 * of operator 'counts' (Window) means something else: sizeMs is 60000 in
 * the checkpoint, 30000 in this job", and says how to start over.
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
 *   message: /checkpoint 7 .*jobName is 'orders' in the checkpoint, 'clicks' in this job; to start over/,
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
  const theirs: unknown = found.operators;
  if (theirs !== undefined && !isOperatorList(theirs)) {
    differences.push(
      "its operators are not a list of operator fingerprints (a damaged checkpoint)",
    );
  } else if (theirs !== undefined && expected.operators !== undefined) {
    const matched = matchOperators(expected.operators, theirs);
    for (const [op, old] of matched) {
      differences.push(...meaningDifferences(op, old));
    }
  } else differences.push(...vertexDifferences(expected, found));
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

/** The vertex ids of one side only (fingerprints without operators). */
function vertexDifferences(
  expected: JobFingerprint,
  found: JobFingerprint,
): string[] {
  const ours = new Set(expected.operatorIds);
  const theirs = new Set(found.operatorIds);
  const missing = [...theirs].filter((id) => !ours.has(id));
  const extra = [...ours].filter((id) => !theirs.has(id));
  const differences: string[] = [];
  if (missing.length > 0) {
    differences.push(`${operators(missing)} missing in this job`);
  }
  if (extra.length > 0) {
    differences.push(`${operators(extra)} missing in the checkpoint`);
  }
  return differences;
}

/** One phrase per field of the state's meaning that differs. */
function meaningDifferences(
  op: OperatorFingerprint,
  old: OperatorFingerprint,
): string[] {
  const fields = new Set([...Object.keys(old.state), ...Object.keys(op.state)]);
  const differences: string[] = [];
  for (const field of fields) {
    const before = old.state[field];
    const now = op.state[field];
    if (Object.is(before, now)) continue;
    differences.push(
      `the state of ${describeOperator(op)} means something else: ${field} is ${
        show(before)
      } in the checkpoint, ${show(now)} in this job`,
    );
  }
  return differences;
}

function show(value: string | number | boolean | undefined): string {
  if (value === undefined) return "not set";
  return typeof value === "string" ? `'${value}'` : String(value);
}

/** Whether a stored operator list has the shape this module writes. */
function isOperatorList(value: unknown): value is OperatorFingerprint[] {
  return Array.isArray(value) &&
    value.every((op) =>
      typeof op === "object" && op !== null &&
      typeof op.id === "string" && typeof op.name === "string" &&
      (op.uid === undefined || typeof op.uid === "string") &&
      typeof op.vertexId === "string" && Number.isSafeInteger(op.index) &&
      op.index >= -1 && typeof op.state === "object" && op.state !== null
    );
}

/** "operator 'a' is" or "operators 'a', 'b' are". */
function operators(ids: readonly string[]): string {
  const names = ids.map((id) => `'${id}'`).join(", ");
  return ids.length === 1 ? `operator ${names} is` : `operators ${names} are`;
}
