// Where a CheckpointStore keeps what, relative to the job's storage, and
// how many of its keys one commit takes.

import type { StorageKey } from "./storage.ts";
import { utf8Length } from "../kv/mod.ts";

// Keys, relative to the job's storage. A checkpoint's subtask snapshots are
// separate values (the storage chunks those over 64 KiB), so no value holds
// the whole checkpoint. Its manifest and the "latest" pointer are written
// by ONE atomic commit: the manifest is what makes it complete. The index
// entry is written before anything else, so that the parts of a save that
// crashed can be found and deleted without listing (and so reading) the
// snapshots.
export const LATEST: StorageKey = ["latest"];
// The highest id the store ever began to save, written with each index
// entry: ids only grow within a store,
// even once retention or a hand deleted the checkpoints that held them.
export const HIGHEST: StorageKey = ["highest"];
export const CHECKPOINTS = "cp";
export const INDEX = "index";
export const manifestKey = (id: number): StorageKey => [CHECKPOINTS, id, "m"];
export const snapshotKey = (id: number, actorId: string): StorageKey => [
  CHECKPOINTS,
  id,
  "s",
  actorId,
];
export const indexKey = (id: number): StorageKey => [INDEX, id];
// Incremental checkpoints: a snapshot's parts (groups of operator state) are
// stored under the checkpoint that first wrote them, and later checkpoints
// whose groups did not change refer to them there. A manifest lists, per
// subtask, where each of its parts is as flat [checkpoint id, number] pairs.
// Parts have their own key space, so that listing a checkpoint's other keys
// (the clean-up's sweep) never reads the parts later checkpoints still use.
export const PARTS = "cpp";
export const partKey = (id: number, actorId: string, n: number): StorageKey => [
  PARTS,
  id,
  actorId,
  n,
];
export const partName = (id: number, actorId: string, n: number): string =>
  `${id}/${n}/${actorId}`;

// Operations per storage.atomic() batch: 16 keys of at most 2 KiB each stay
// within a commit's 80 KiB of written keys whatever the storage's prefix;
// the storage stages large values ahead of the commit. Keys of a few parts
// (the usual ones: an id, an actor id, a number; at most 256 bytes) allow 48
// per batch, within 80 KiB even under a 1 KiB storage prefix, so that the
// parts of an incremental checkpoint take few commits.
export const BATCH = 16;
export const SHORT_KEY_BATCH = 48;
export const SHORT_KEY = 256;

/** About how many bytes a key takes in a commit (its JSON in UTF-8). */
export function keyBytes(key: StorageKey): number {
  return utf8Length(JSON.stringify(key));
}

/** The name of a part's key, or "" for any other key. */
export function nameOfPartKey(key: StorageKey): string {
  return key.length === 4 && key[0] === PARTS && typeof key[1] === "number" &&
      typeof key[2] === "string" && typeof key[3] === "number"
    ? partName(key[1], key[2], key[3])
    : "";
}
