/**
 * {@linkcode checkpointBytes}: how large a checkpoint the runtime took is,
 * as encoded: what the dashboard, `/metrics` and the checkpoint span show
 * as its size.
 *
 * @module
 */

import type { CompletedCheckpoint } from "./checkpoint.ts";
import type { Encoded } from "./_codec.ts";
import { encodedSnapshots } from "./_encoded_checkpoint.ts";

/**
 * The encoded size of a checkpoint a runtime completed, in bytes: every
 * subtask's snapshot with its parts. One pass over the snapshots, once per
 * checkpoint.
 *
 * @param checkpoint The checkpoint, as the runtime completed it.
 * @returns Its size, or `undefined` if it holds no encoded snapshots (e.g.
 * one read back as a manifest only).
 */
export function checkpointBytes(
  checkpoint: CompletedCheckpoint,
): number | undefined {
  const snapshots = encodedSnapshots(checkpoint);
  if (snapshots === undefined) return undefined;
  let bytes = 0;
  for (const encoded of Object.values(snapshots)) {
    bytes += encodedBytes(encoded);
  }
  return bytes;
}

function encodedBytes(encoded: Encoded): number {
  let bytes = encoded.bytes.byteLength;
  for (const part of encoded.parts) bytes += encodedBytes(part);
  return bytes;
}
