// Which snapshot each actor of a job restores from a checkpoint: its own
// where the vertex kept its parallelism and inputs, a redistributed one
// where they changed (rescaling), or one put together operator by operator
// where the job and the checkpoint list their operators (uids). Pure;
// shared by the runtimes.

import type { JobGraph } from "../runtime/job_graph.ts";
import type { CompletedCheckpoint } from "./checkpoint_store.ts";
import { fingerprintOf } from "../runtime/fingerprint.ts";
import {
  rescaleSourceSnapshots,
  rescaleSubtaskSnapshots,
} from "../runtime/rescale.ts";
import { assignOperatorState } from "../runtime/state_assignment.ts";
import type { SubtaskSnapshot } from "../runtime/subtask.ts";
import type { SourceSubtaskSnapshot } from "../runtime/source_subtask.ts";

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
 * The snapshot of every actor of `graph`, by actor id (`job/vertex/index`).
 *
 * When both the job and the checkpoint's fingerprint list their operators,
 * state is matched operator by operator (by uid, or positional id): see
 * `assignOperatorState`. Otherwise (checkpoints written before uids,
 * graphs built by hand) vertex by vertex: a vertex whose subtasks are all
 * in the checkpoint, with the same number of input channels, restores them
 * as they are; otherwise (its parallelism or an upstream one changed) its
 * old snapshots are redistributed over its new subtasks: see
 * `rescaleSubtaskSnapshots` and `rescaleSourceSnapshots`.
 *
 * @param graph The job restoring the checkpoint (fingerprint already checked).
 * @param checkpoint The checkpoint.
 * @param readerPartitions The partition names of each new reader of a
 * source vertex, by subtask index; asked only for rescaled sources.
 * @param options Whether state the job has no operator for may be dropped.
 * @returns The snapshot of each actor id of `graph`.
 * @throws {RangeError} If a vertex has no snapshot in the checkpoint, or
 * its subtask indices there are not 0, 1, 2... without gaps.
 * @throws {CheckpointMismatchError} If state of an operator the job lacks
 * would be dropped without `allowNonRestoredState`.
 */
export function snapshotsToRestore(
  graph: JobGraph,
  checkpoint: CompletedCheckpoint,
  readerPartitions: (vertexId: string) => readonly (readonly string[])[],
  options: RestorePlanOptions = {},
): Map<string, unknown> {
  const out = new Map<string, unknown>();
  if (
    checkpoint.fingerprint.operators !== undefined &&
    fingerprintOf(graph).operators !== undefined
  ) {
    const byVertex = assignOperatorState(graph, {
      checkpointId: checkpoint.id,
      fingerprint: checkpoint.fingerprint,
      snapshotsOf: (vertexId) =>
        oldSnapshots(
          graph,
          checkpoint,
          vertexId,
          `${graph.jobName}/${vertexId}/`,
        ),
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
    const prefix = `${graph.jobName}/${vertex.id}/`;
    const old = oldSnapshots(graph, checkpoint, vertex.id, prefix);
    const inputs = graph.edges.filter((e) => e.to === vertex.id).reduce(
      (sum, e) =>
        sum + graph.vertices.find((v) => v.id === e.from)!.parallelism,
      0,
    );
    const direct = old.length === vertex.parallelism &&
      (vertex.source !== undefined ||
        old.every((s) => (s as SubtaskSnapshot).ended?.length === inputs));
    let snapshots: readonly unknown[];
    if (direct) snapshots = old;
    else if (vertex.source !== undefined) {
      snapshots = rescaleSourceSnapshots(old as SourceSubtaskSnapshot[], {
        vertexId: vertex.id,
        parallelism: vertex.parallelism,
        maxParallelism: graph.maxParallelism,
        partitions: readerPartitions(vertex.id),
      });
    } else {
      snapshots = rescaleSubtaskSnapshots(old as SubtaskSnapshot[], {
        vertexId: vertex.id,
        parallelism: vertex.parallelism,
        maxParallelism: graph.maxParallelism,
        numInputChannels: inputs,
      });
    }
    snapshots.forEach((snapshot, i) => out.set(`${prefix}${i}`, snapshot));
  }
  return out;
}

/** A vertex's snapshots in the checkpoint, by old subtask index. */
function oldSnapshots(
  graph: JobGraph,
  checkpoint: CompletedCheckpoint,
  vertexId: string,
  prefix: string,
): unknown[] {
  const byIndex = new Map<number, unknown>();
  for (const [actorId, snapshot] of Object.entries(checkpoint.subtasks)) {
    if (!actorId.startsWith(prefix)) continue;
    const rest = actorId.slice(prefix.length);
    if (/^(0|[1-9][0-9]*)$/.test(rest)) byIndex.set(Number(rest), snapshot);
  }
  const action =
    `restore checkpoint ${checkpoint.id} of job '${graph.jobName}'`;
  if (byIndex.size === 0) {
    throw new RangeError(
      `Cannot ${action} as it must hold snapshots of vertex '${vertexId}': current value has none (subtask ids ${prefix}0, ${prefix}1...)`,
    );
  }
  const old: unknown[] = [];
  for (let i = 0; i < byIndex.size; i++) {
    if (!byIndex.has(i)) {
      throw new RangeError(
        `Cannot ${action} as the snapshots of vertex '${vertexId}' must be those of subtasks 0 to ${
          byIndex.size - 1
        }: current value lacks '${prefix}${i}'`,
      );
    }
    old.push(byIndex.get(i));
  }
  return old;
}
