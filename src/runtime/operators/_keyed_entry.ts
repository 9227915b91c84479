// One key's state in the keyed process operator, as its context, its undo
// log and its snapshots hold it.

import type { GroupedItem } from "../../windows/snapshot_groups.ts";
import { keyGroupOf } from "../key_groups.ts";

/** One key's state, with its bookkeeping for incremental snapshots. */
export interface Entry<K, S> extends GroupedItem {
  readonly key: K;
  state: S;
}

// States are grouped for incremental checkpoints by the key group of their
// key at the default max parallelism (see window.ts). A state read counts
// as a change: functions may change their state objects in place.
const SNAPSHOT_GROUPS = 128;

/** The key group of an entry's key, for its snapshot group. */
export function entryGroup<K, S>(entry: Entry<K, S>): number {
  return keyGroupOf(entry.key, SNAPSHOT_GROUPS);
}

/** An entry as a snapshot holds it. */
export function entryPair<K, S>(entry: Entry<K, S>): [K, S] {
  return [entry.key, entry.state];
}
