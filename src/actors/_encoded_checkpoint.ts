// Checkpoints whose snapshots the runtime encoded when it took them, so
// that CheckpointStore writes them as they are and a restore decodes them
// only when it needs fresh values.

import type { CompletedCheckpoint } from "./checkpoint.ts";
import type { Encoded } from "./_codec.ts";

// The snapshots of the checkpoints made by encodedCheckpoint(), as encoded.
const snapshotsOf = new WeakMap<
  CompletedCheckpoint,
  Readonly<Record<string, Encoded>>
>();

/**
 * A completed checkpoint whose snapshots are already encoded (the runtime
 * encodes each when it is taken): {@linkcode CheckpointStore} writes them
 * as they are. Its `subtasks` are decoded on first read, once.
 *
 * @param meta The checkpoint's id, fingerprint and creation time.
 * @param snapshots Each subtask's encoded snapshot by actor id.
 * @returns The checkpoint.
 */
export function encodedCheckpoint(
  meta: Omit<CompletedCheckpoint, "subtasks">,
  snapshots: Readonly<Record<string, Encoded>>,
): CompletedCheckpoint {
  let decoded: Record<string, unknown> | undefined;
  const checkpoint = {
    id: meta.id,
    fingerprint: meta.fingerprint,
    createdAt: meta.createdAt,
  } as CompletedCheckpoint;
  Object.defineProperty(checkpoint, "subtasks", {
    enumerable: true,
    get: () => decoded ??= decodeSnapshots(snapshots),
  });
  snapshotsOf.set(checkpoint, snapshots);
  return checkpoint;
}

/**
 * The encoded snapshots of a checkpoint made by
 * {@linkcode encodedCheckpoint}, or `undefined` for any other.
 *
 * @param checkpoint The checkpoint.
 * @returns Each subtask's encoded snapshot by actor id.
 */
export function encodedSnapshots(
  checkpoint: CompletedCheckpoint,
): Readonly<Record<string, Encoded>> | undefined {
  return snapshotsOf.get(checkpoint);
}

/**
 * A checkpoint's snapshots as fresh values, for a restore that may change
 * them: decoded anew when encoded, otherwise the checkpoint's own.
 *
 * @param checkpoint The checkpoint.
 * @returns Each subtask's snapshot by actor id.
 */
export function snapshotsToUse(
  checkpoint: CompletedCheckpoint,
): Readonly<Record<string, unknown>> {
  const encoded = snapshotsOf.get(checkpoint);
  return encoded === undefined ? checkpoint.subtasks : decodeSnapshots(encoded);
}

function decodeSnapshots(
  snapshots: Readonly<Record<string, Encoded>>,
): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(snapshots).map(([id, snapshot]) => [id, snapshot.decode()]),
  );
}
