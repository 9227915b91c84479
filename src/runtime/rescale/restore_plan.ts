/**
 * The one restore pipeline, shared by the runtimes: from a completed
 * checkpoint's snapshots to the snapshot each new subtask restores. Its
 * own where a vertex kept its parallelism and inputs, a redistributed one
 * where they changed (rescaling), or one put together operator by operator
 * where the job and the checkpoint list their operators (uids).
 *
 * @module
 */

import type { JobGraph } from "../job_graph.ts";
import { fingerprintOf } from "../fingerprint.ts";
import type { SubtaskSnapshot } from "../subtask.ts";
import type { SourceSubtaskSnapshot } from "../source_subtask.ts";
import { type CheckpointSnapshots, loadVertexSnapshots } from "./load.ts";
import { assignOperatorState } from "./operator_assignment.ts";
import { rescaleChains } from "./subtask_snapshots.ts";
import { rescaleSources } from "./source_snapshots.ts";
import { chainKinds, inputChannelsOf } from "./vertex_plan.ts";

/** Options of {@linkcode snapshotsToRestore}. */
export interface RestorePlanOptions {
  /**
   * Whether state of operators the job no longer has may be dropped
   * (Flink's `--allowNonRestoredState`).
   * @default {false}
   */
  readonly allowNonRestoredState?: boolean;
}

/**
 * The snapshot of every subtask of `graph`, by actor id (`job/vertex/index`).
 *
 * Each vertex's snapshots are loaded from the checkpoint and checked once
 * (see `loadVertexSnapshots`). When both the job and the checkpoint's
 * fingerprint list their operators, state is matched operator by operator
 * (by uid, or positional id): see `assignOperatorState`. Otherwise
 * (checkpoints written before uids, graphs built by hand) vertex by vertex:
 * a vertex whose subtasks are all in the checkpoint, with the same number
 * of input channels, restores them as they are; otherwise (its parallelism
 * or an upstream one changed) its old snapshots are redistributed over its
 * new subtasks, each operator's state as the operator's `stateKind` says.
 *
 * @param graph The job restoring the checkpoint (fingerprint already checked).
 * @param checkpoint The checkpoint.
 * @param readerPartitions The partition names of each new reader of a
 * source vertex, by subtask index; asked only for rescaled sources.
 * @param options Whether state the job has no operator for may be dropped.
 * @returns The snapshot of each actor id of `graph`.
 * @throws {RangeError} If a vertex has no snapshot in the checkpoint, or
 * its subtask indices there are not 0, 1, 2... without gaps.
 * @throws {TypeError} If a snapshot is not a subtask snapshot, or a state
 * to redistribute does not have the shape of its operator's kind.
 * @throws {CheckpointMismatchError} If state of an operator the job lacks
 * would be dropped without `allowNonRestoredState`.
 */
export function snapshotsToRestore(
  graph: JobGraph,
  checkpoint: CheckpointSnapshots,
  readerPartitions: (vertexId: string) => readonly (readonly string[])[],
  options: RestorePlanOptions = {},
): Map<string, unknown> {
  const out = new Map<string, unknown>();
  const load = (vertexId: string) =>
    loadVertexSnapshots(checkpoint, graph.jobName, vertexId);
  if (
    checkpoint.fingerprint.operators !== undefined &&
    fingerprintOf(graph).operators !== undefined
  ) {
    const byVertex = assignOperatorState(graph, {
      checkpointId: checkpoint.id,
      fingerprint: checkpoint.fingerprint,
      snapshotsOf: load,
      readerPartitions,
      allowNonRestoredState: options.allowNonRestoredState,
    });
    for (const [vertexId, snapshots] of byVertex) {
      snapshots.forEach((snapshot, i) =>
        out.set(`${graph.jobName}/${vertexId}/${i}`, snapshot)
      );
    }
    return out;
  }
  for (const vertex of graph.vertices) {
    const old = load(vertex.id);
    const inputs = inputChannelsOf(graph, vertex.id);
    const direct = old.length === vertex.parallelism &&
      (vertex.source !== undefined ||
        old.every((s) => (s as SubtaskSnapshot).ended.length === inputs));
    const target = {
      vertexId: vertex.id,
      parallelism: vertex.parallelism,
      maxParallelism: graph.maxParallelism,
      kinds: chainKinds(vertex),
    };
    let snapshots: readonly unknown[];
    if (direct) snapshots = old;
    else if (vertex.source !== undefined) {
      snapshots = rescaleSources(old as SourceSubtaskSnapshot[], {
        ...target,
        partitions: readerPartitions(vertex.id),
      });
    } else {
      snapshots = rescaleChains(old as SubtaskSnapshot[], {
        ...target,
        numInputChannels: inputs,
      }, true);
    }
    snapshots.forEach((snapshot, i) =>
      out.set(`${graph.jobName}/${vertex.id}/${i}`, snapshot)
    );
  }
  return out;
}
