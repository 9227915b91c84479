// How a subtask hands its error policy to its chain: one guard per subtask,
// one reject function per operator (in the operator's own context) and per
// output edge (its partitioner's key selector), each naming its operator
// as dead letters do (uid, or name).

import type { OperatorContext, RejectRecord } from "./stream_operator.ts";
import type { SubtaskOptions } from "./subtask_options.ts";
import {
  type GuardedOperator,
  RecordGuard,
  setGuard,
} from "./_record_guard.ts";

/** A chain's guard, its operators' contexts and its edges' reject functions. */
export interface GuardedChain {
  /** The subtask's guard. */
  readonly guard: RecordGuard;
  /** One context per operator of the chain, head first. */
  readonly contexts: readonly OperatorContext[];
  /** One reject function per output edge, for its partitioner. */
  readonly edges: readonly RejectRecord[];
}

/**
 * Builds the guard of subtask `owner` and the reject functions of its
 * operators and edges.
 *
 * @param owner The subtask (see `guardOf`).
 * @param options Its options: policy, quarantine, descriptors, chain, edges.
 * @param context The context the runtime gave the subtask.
 */
export function guardChain(
  owner: object,
  options: SubtaskOptions,
  context: OperatorContext,
): GuardedChain {
  const guard = new RecordGuard({
    policy: options.errorPolicy ?? "dead-letter",
    quarantine: options.quarantine ?? new Set(),
    clock: context.clock,
    subtaskIndex: context.subtaskIndex,
  });
  setGuard(owner, guard);
  const contexts = options.operators.map((op, i) => ({
    ...context,
    reject: guard.rejecter(i, guardedOperator(op, i, options.descriptors)),
  }));
  const edges = options.edges.map((edge, e) => {
    const name = `${edge.target ?? `edge ${e}`} key`;
    const operator = { label: name, key: name };
    return function rejectKey(
      value: unknown,
      timestamp: number,
      error: unknown,
      index?: number,
    ): void {
      guard.reject(operator, guard.edgeAligned, value, timestamp, error, index);
    };
  });
  return { guard, contexts, edges };
}

/**
 * How dead letters name operator `i` of a chain: by its descriptor's uid,
 * or its name (ids hash the uid, or the positional id); without a
 * descriptor, by its class name.
 *
 * @param op The operator (or, without descriptors, what names it).
 * @param i Its index in the chain.
 * @param descriptors The chain's descriptors, if any.
 */
export function guardedOperator(
  op: object,
  i: number,
  descriptors: SubtaskOptions["descriptors"],
): GuardedOperator {
  const descriptor = descriptors?.[i];
  if (descriptor === undefined) {
    const name = op.constructor.name;
    return { label: name, key: `${name}#${i}` };
  }
  return {
    label: descriptor.uid ?? descriptor.name,
    key: descriptor.uid ?? descriptor.id,
  };
}
