/**
 * Loading a vertex's snapshots from a completed checkpoint, by old subtask
 * index, and the one check of their layout: every later step of the
 * rescale pipeline takes them as checked.
 *
 * @module
 */

import type { SubtaskSnapshot } from "../subtask.ts";
import type { SourceSubtaskSnapshot } from "../source_subtask.ts";
import type { JobFingerprint } from "../fingerprint.ts";
import { describeValue } from "../../time/validate.ts";

/** What the pipeline reads of a completed checkpoint. */
export interface CheckpointSnapshots {
  /** The checkpoint's id, for messages. */
  readonly id: number;
  /** The fingerprint of the job that took it. */
  readonly fingerprint: JobFingerprint;
  /**
   * When it was completed, in ms; the pipeline does not read it (a
   * runtime's completed-checkpoint record passes as it is).
   * @default {undefined}
   */
  readonly createdAt?: number;
  /** Each subtask's snapshot, by actor id (`job/vertex/index`). */
  readonly subtasks: Readonly<Record<string, unknown>>;
}

/**
 * A vertex's snapshots in a checkpoint, by old subtask index, each checked
 * by {@linkcode requireSnapshots}.
 *
 * @param checkpoint The checkpoint.
 * @param jobName The job's name: the first part of its actor ids.
 * @param vertexId The old vertex.
 * @returns The snapshots of subtasks 0, 1, 2...
 * @throws {RangeError} If the vertex has no snapshot in the checkpoint, or
 * its subtask indices there are not 0, 1, 2... without gaps.
 * @throws {TypeError} If a snapshot is not a subtask snapshot.
 */
export function loadVertexSnapshots(
  checkpoint: CheckpointSnapshots,
  jobName: string,
  vertexId: string,
): unknown[] {
  const prefix = `${jobName}/${vertexId}/`;
  const byIndex = new Map<number, unknown>();
  for (const [actorId, snapshot] of Object.entries(checkpoint.subtasks)) {
    if (!actorId.startsWith(prefix)) continue;
    const rest = actorId.slice(prefix.length);
    if (/^(0|[1-9][0-9]*)$/.test(rest)) byIndex.set(Number(rest), snapshot);
  }
  const action = `restore checkpoint ${checkpoint.id} of job '${jobName}'`;
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
  requireSnapshots(old, `${action} (vertex '${vertexId}')`);
  return old;
}

/**
 * Checks the layout of a vertex's old snapshots: each is a subtask
 * snapshot `{ operators, ended }` or a source's `{ reader, chain }` whose
 * chain is one, and every chain holds as many operator states.
 *
 * @param old The snapshots, by old subtask index.
 * @param action What is being done, for messages (e.g. "rescale ...").
 * @throws {TypeError} If a snapshot or its chain is not a subtask snapshot,
 * or the chains differ in length.
 */
export function requireSnapshots(
  old: readonly unknown[],
  action: string,
): void {
  let length = -1;
  old.forEach((snapshot, i) => {
    const source = typeof snapshot === "object" && snapshot !== null &&
      "chain" in snapshot;
    const chain = source ? (snapshot as SourceSubtaskSnapshot).chain : snapshot;
    requireChain(chain, action, i, source ? ".chain" : "");
    const operators = (chain as SubtaskSnapshot).operators.length;
    if (length === -1) length = operators;
    if (operators !== length) {
      throw new TypeError(
        `Cannot ${action} as every old snapshot must hold ${length} operator states: current value in old subtask ${i} holds ${operators}`,
      );
    }
  });
}

/** The chain of a checked snapshot: a source's `chain`, or the snapshot itself. */
export function chainOf(snapshot: unknown): SubtaskSnapshot {
  const s = snapshot as Partial<SourceSubtaskSnapshot> & SubtaskSnapshot;
  return s.chain ?? s;
}

function requireChain(
  snapshot: unknown,
  action: string,
  index: number,
  field: string,
): void {
  const s = snapshot as Partial<SubtaskSnapshot> | null;
  if (
    typeof s !== "object" || s === null || !Array.isArray(s.operators) ||
    !Array.isArray(s.ended)
  ) {
    throw new TypeError(
      `Cannot ${action} as 'old[${index}]${field}' must be a subtask snapshot { operators, ended }: current value is ${
        describeValue(snapshot)
      }`,
    );
  }
}
