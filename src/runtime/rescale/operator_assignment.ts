/**
 * Assigning a checkpoint's state to the subtasks of a job operator by
 * operator (Flink's `StateAssignmentOperation`), so that a job whose
 * operators have stable ids (`uid()`) keeps their state when operators are
 * added, removed or regrouped into other chains around them, at the same or
 * another parallelism.
 *
 * @module
 */

import type { JobGraph, JobVertex } from "../job_graph.ts";
import {
  CheckpointMismatchError,
  fingerprintOf,
  type JobFingerprint,
  type OperatorFingerprint,
} from "../fingerprint.ts";
import {
  describeOperator,
  matchOperators,
  START_OVER,
} from "../_operator_ids.ts";
import type { SubtaskSnapshot } from "../subtask.ts";
import type { SourceSubtaskSnapshot } from "../source_subtask.ts";
import { chainOf } from "./load.ts";
import { onlyEventTime, recordedStateKind } from "./state_kind.ts";
import { redistributeState } from "./redistribute.ts";
import { rescaleChains } from "./subtask_snapshots.ts";
import { rescaleSources } from "./source_snapshots.ts";
import { inputChannelsOf } from "./vertex_plan.ts";

/** Options of {@linkcode assignOperatorState}. */
export interface StateAssignmentOptions {
  /** The checkpoint's id, for messages. */
  readonly checkpointId: number;
  /**
   * The checkpoint's fingerprint, with its `operators`; already checked
   * against the job's by `requireMatchingFingerprint`.
   */
  readonly fingerprint: JobFingerprint;
  /**
   * The snapshots of an old vertex's subtasks, by old subtask index: the
   * checkpoint's `job/vertex/0`, `job/vertex/1`..., checked as
   * `loadVertexSnapshots` checks them (they are not checked again).
   */
  snapshotsOf(vertexId: string): readonly unknown[];
  /**
   * The partition names of each new reader of a source vertex, by subtask
   * index; asked only for sources restored at another parallelism.
   */
  readerPartitions(vertexId: string): readonly (readonly string[])[];
  /**
   * Whether state of operators this job no longer has may be dropped
   * (Flink's `--allowNonRestoredState`); otherwise such a checkpoint is
   * refused.
   * @default {false}
   */
  readonly allowNonRestoredState?: boolean;
}

/**
 * The snapshot of every subtask of `graph`, by vertex id and subtask index,
 * put together operator by operator from a checkpoint.
 *
 * Each operator finds its state by its uid (or, without one or with a uid
 * the checkpoint does not know, by its positional id), wherever it was: in
 * another vertex, at another place in a chain, at another parallelism (its
 * state is then split as the job's operator declares: its `stateKind`). An operator not in the checkpoint starts
 * empty: its entry in the snapshot is `undefined`, which a subtask's
 * `restore` leaves alone, and a source whose reader is not in the
 * checkpoint gets `reader: undefined`, so it reads from the start. What
 * belongs to a vertex rather than to one operator (the valve and the ended
 * inputs, in persist mode; a source's positions, generators and emitter)
 * comes with the vertex's first operator, when that operator was first in
 * its vertex in the checkpoint too; otherwise event time is rebuilt from
 * the records, and the restored operators never let it go back.
 *
 * State that this job has no operator for is refused, unless
 * `allowNonRestoredState`: a source's positions, and any operator state
 * but event-time progress (a process operator's watermark, a timestamps
 * operator's generator), which is dropped freely. The kind of such an
 * operator is read from the operator name its fingerprint recorded.
 *
 * @param graph The job restoring the checkpoint; every vertex has its
 * `operators`.
 * @param options The checkpoint, its snapshots and the readers' partitions.
 * @returns For each vertex id, one snapshot per subtask.
 * @throws {CheckpointMismatchError} If state of an operator this job lacks
 * would be dropped without `allowNonRestoredState`, or an operator was a
 * source in one job and not in the other.
 * @throws {TypeError} If `graph` or the fingerprint lacks operators, or a
 * state does not have the shape of its operator's kind.
 */
export function assignOperatorState(
  graph: JobGraph,
  options: StateAssignmentOptions,
): Map<string, unknown[]> {
  const ours = fingerprintOf(graph).operators;
  const theirs = options.fingerprint.operators;
  if (ours === undefined || theirs === undefined) {
    throw new TypeError(
      `Cannot assign the state of checkpoint ${options.checkpointId} by operator as both the job and the checkpoint must list their operators: current value lacks them in ${
        ours === undefined ? "the job" : "the checkpoint"
      }`,
    );
  }
  const matched = matchOperators(ours, theirs);
  const old = new Map<string, readonly unknown[]>();
  const oldOf = (vertexId: string) => {
    let snapshots = old.get(vertexId);
    if (snapshots === undefined) {
      snapshots = options.snapshotsOf(vertexId);
      old.set(vertexId, snapshots);
    }
    return snapshots;
  };
  refuseLostState(graph, options, theirs, new Set(matched.values()), oldOf);
  const out = new Map<string, unknown[]>();
  for (const vertex of graph.vertices) {
    const ops = ours.filter((op) => op.vertexId === vertex.id);
    for (const op of ops) {
      const from = matched.get(op);
      if (from !== undefined && (from.index === -1) !== (op.index === -1)) {
        throw new CheckpointMismatchError(options.checkpointId, graph.jobName, [
          `${describeOperator(op)} is ${
            op.index === -1 ? "" : "not "
          }a source in this job, but ${
            from.index === -1 ? "" : "not "
          }one in the checkpoint`,
        ]);
      }
    }
    const head = matched.get(ops[0]);
    const chain = ops.filter((op) => op.index >= 0).map((op) =>
      operatorStates(op, matched.get(op), vertex, graph, oldOf)
    );
    // A source chain's first entry (the source's pass-through) stays in
    // the base; the vertex's operators follow it.
    const withChain = (base: SubtaskSnapshot, i: number) => ({
      ...base,
      operators: [...base.operators, ...chain.map((states) => states[i])],
    });
    if (vertex.source !== undefined) {
      const base = sourceBase(vertex, graph, head, options, oldOf);
      out.set(
        vertex.id,
        base.map((s, i) => ({ ...s, chain: withChain(s.chain, i) })),
      );
    } else {
      // Index 0 is first in a vertex without a source (a source's chain
      // starts with its pass-through, so its operators start at 1).
      const first = head?.index === 0 ? head : undefined;
      const base = vertexBase(vertex, graph, first, oldOf);
      out.set(vertex.id, base.map((s, i) => withChain(s, i)));
    }
  }
  return out;
}

/** Throws if state of an operator the job lacks would be dropped unasked. */
function refuseLostState(
  graph: JobGraph,
  options: StateAssignmentOptions,
  theirs: readonly OperatorFingerprint[],
  used: ReadonlySet<OperatorFingerprint>,
  oldOf: (vertexId: string) => readonly unknown[],
): void {
  if (options.allowNonRestoredState === true) return;
  const lost = theirs.filter((op) =>
    !used.has(op) &&
    (op.index === -1 ||
      (!onlyEventTime(recordedStateKind(op.state)) &&
        oldOf(op.vertexId).some((s) => {
          const state = chainOf(s).operators[op.index];
          return state !== null && state !== undefined;
        })))
  );
  if (lost.length === 0) return;
  throw new CheckpointMismatchError(
    options.checkpointId,
    graph.jobName,
    lost.map((op) =>
      `${
        describeOperator(op)
      } has state in the checkpoint but is not in this job`
    ),
    {
      fix:
        `to keep that state, give the operator its uid() back; to drop it, restore with allowNonRestoredState: true (--allow-non-restored-state); or, ${START_OVER}`,
    },
  );
}

/** One operator's state in each new subtask; `undefined` if it starts empty. */
function operatorStates(
  op: OperatorFingerprint,
  from: OperatorFingerprint | undefined,
  vertex: JobVertex,
  graph: JobGraph,
  oldOf: (vertexId: string) => readonly unknown[],
): unknown[] {
  const n = vertex.parallelism;
  if (from === undefined) return new Array<unknown>(n).fill(undefined);
  const states = oldOf(from.vertexId).map((s) =>
    chainOf(s).operators[from.index]
  );
  // The same parallelism keeps each subtask's state where it was: the key
  // groups of subtask i are the same.
  if (states.length === n) return states;
  // The job's operator declares the kind (the fingerprint does not hold it).
  const kind = vertex.operators?.find((d) => d.id === op.id)?.stateKind;
  return redistributeState(states, kind, {
    where: `${describeOperator(op)} of vertex '${vertex.id}'`,
    parallelism: n,
    maxParallelism: graph.maxParallelism,
  });
}

/**
 * A source vertex's own state (reader, generators, emitter, valve), its
 * chain cut to the source's pass-through.
 */
function sourceBase(
  vertex: JobVertex,
  graph: JobGraph,
  source: OperatorFingerprint | undefined,
  options: StateAssignmentOptions,
  oldOf: (vertexId: string) => readonly unknown[],
): SourceSubtaskSnapshot[] {
  const n = vertex.parallelism;
  if (source === undefined) {
    // Not in the checkpoint: the reader starts from the beginning.
    return Array.from({ length: n }, () => ({
      reader: undefined,
      chain: { operators: [undefined], ended: [false] },
    }));
  }
  const old = (oldOf(source.vertexId) as SourceSubtaskSnapshot[]).map((s) => ({
    ...s,
    chain: { ...s.chain, operators: s.chain.operators.slice(0, 1) },
  }));
  if (old.length === n) return old;
  return rescaleSources(old, {
    vertexId: vertex.id,
    parallelism: n,
    maxParallelism: graph.maxParallelism,
    kinds: ["stateless"],
    partitions: options.readerPartitions(vertex.id),
  });
}

/** A vertex's own state (valve, ended inputs), operators emptied. */
function vertexBase(
  vertex: JobVertex,
  graph: JobGraph,
  head: OperatorFingerprint | undefined,
  oldOf: (vertexId: string) => readonly unknown[],
): SubtaskSnapshot[] {
  const n = vertex.parallelism;
  const inputs = inputChannelsOf(graph, vertex.id);
  if (head === undefined) {
    return Array.from({ length: n }, () => ({
      operators: [],
      ended: new Array<boolean>(inputs).fill(false),
    }));
  }
  const old = (oldOf(head.vertexId) as SubtaskSnapshot[]).map((s) => ({
    ...s,
    operators: [],
  }));
  if (old.length === n && old.every((s) => s.ended?.length === inputs)) {
    return old;
  }
  return rescaleChains(old, {
    vertexId: vertex.id,
    parallelism: n,
    maxParallelism: graph.maxParallelism,
    numInputChannels: inputs,
  }, true);
}
