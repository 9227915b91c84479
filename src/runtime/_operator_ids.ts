// How an operator of a job is told apart across versions of the job: its
// uid, or its positional id; how messages name it; and what a refused
// restore says to do. Shared by the fingerprint check and the state
// assignment.

import type { OperatorDescriptor } from "./job_graph.ts";

/** How to go on without a checkpoint, as every `CheckpointMismatchError` says by default. */
export const START_OVER =
  'to start over without its state, run with --restore none or execute({ restore: "none" })';

/**
 * Which operator of a checkpoint each operator of a job restores its state
 * from (Flink's matching by operator id).
 *
 * An operator with a uid takes the checkpoint's operator of the same uid.
 * Otherwise (no uid, or a uid the checkpoint does not know, as when uids are
 * first added to a job) it takes the checkpoint's operator that had no uid
 * and the same positional id: the same place in the program. An operator
 * of the checkpoint with a uid is never matched by position.
 *
 * @param job The operators of the job that restores.
 * @param checkpoint The operators recorded with the checkpoint.
 * @returns For each matched operator of `job`, the checkpoint's operator;
 * the others start with empty state.
 *
 * @example A uid finds its state after an operator was added before it
 * ```ts
 * import { matchOperators } from "./_operator_ids.ts";
 * import assert from "node:assert/strict";
 *
 * const op = (id: string, uid?: string) => ({ id, uid, name: id, state: {} });
 * const before = [op("window-2", "counts")];
 * const after = [op("map-2"), op("window-3", "counts")];
 * const matched = matchOperators(after, before);
 * assert.equal(matched.get(after[1]), before[0]);
 * assert.equal(matched.has(after[0]), false);
 * ```
 */
export function matchOperators<O extends OperatorDescriptor>(
  job: readonly O[],
  checkpoint: readonly O[],
): Map<O, O> {
  const byUid = new Map<string, O>();
  const byPosition = new Map<string, O>();
  for (const op of checkpoint) {
    if (op.uid !== undefined) byUid.set(op.uid, op);
    else byPosition.set(op.id, op);
  }
  const matched = new Map<O, O>();
  for (const op of job) {
    const old = (op.uid === undefined ? undefined : byUid.get(op.uid)) ??
      byPosition.get(op.id);
    if (old !== undefined) matched.set(op, old);
  }
  return matched;
}

/**
 * How an operator is named in messages: its uid, or its positional id, and
 * its name.
 *
 * @param op The operator.
 * @returns E.g. `operator 'counts' (Window)`.
 */
export function describeOperator(op: OperatorDescriptor): string {
  return `operator '${op.uid ?? op.id}' (${op.name})`;
}
