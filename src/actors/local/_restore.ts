// Restoring the local runtime's actors from a checkpoint of the same job:
// a vertex whose parallelism (or inputs) changed gets its old snapshots
// redistributed (see `snapshotsToRestore`).

import type { JobGraph } from "../../runtime/job_graph.ts";
import type { SourceSubtaskSnapshot } from "../../runtime/source_subtask.ts";
import type { SubtaskSnapshot } from "../../runtime/subtask.ts";
import type { CompletedCheckpoint } from "../checkpoint.ts";
import { snapshotsToUse } from "../_encoded_checkpoint.ts";
import { snapshotsToRestore } from "../../runtime/rescale/mod.ts";
import type { LocalActor } from "./_local_actor.ts";

/**
 * Restores every actor from `checkpoint`.
 *
 * @throws {CheckpointMismatchError} If the checkpoint holds state of
 * operators the job no longer has, unless `allowNonRestoredState`.
 */
export function restoreActors(
  graph: JobGraph,
  actors: readonly LocalActor[],
  checkpoint: CompletedCheckpoint,
  allowNonRestoredState = false,
): void {
  const snapshots = snapshotsToRestore(
    graph,
    // Fresh copies: operators adopt restored state and change it.
    {
      id: checkpoint.id,
      fingerprint: checkpoint.fingerprint,
      createdAt: checkpoint.createdAt,
      subtasks: snapshotsToUse(checkpoint),
    },
    (vertexId) =>
      actors.filter((a) => a.vertex.id === vertexId).map((a) =>
        a.source!.partitions
      ),
    { allowNonRestoredState },
  );
  for (const actor of actors) {
    const snapshot = snapshots.get(actor.id);
    if (actor.source !== null) {
      actor.source.restore(snapshot as SourceSubtaskSnapshot);
    } else actor.subtask!.restore(snapshot as SubtaskSnapshot);
  }
}
