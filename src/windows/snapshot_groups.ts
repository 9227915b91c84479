/**
 * Incremental snapshots of keyed state: the items (window slots, per-key
 * states) are handed out in groups (key groups), and a group none of whose
 * items changed since the previous snapshot is handed out as the very same
 * array, so that a checkpoint reuses its encoding and its stored copy.
 *
 * Bookkeeping is one flag per item, set where the item changes (one store
 * per record); everything else happens at snapshot time, so nothing is
 * hashed or grouped between checkpoints.
 *
 * @module
 */

/** What an item carries for its group's bookkeeping. */
export interface GroupedItem {
  /** Its group, found at its first snapshot; -1 before. */
  part: number;
  /** Whether it changed since the last snapshot. */
  changed: boolean;
}

/**
 * The groups of a set of items as of the last snapshot.
 *
 * @typeParam I The item type.
 * @typeParam E What a snapshot holds per item.
 */
export class SnapshotGroups<I extends GroupedItem, E> {
  readonly #partOf: (item: I) => number;
  readonly #entryOf: (item: I) => E;
  #snapshots = new Map<number, E[]>();
  readonly #changed = new Set<number>();

  /**
   * @param partOf The group of an item (called once per item).
   * @param entryOf An item as plain data.
   */
  constructor(partOf: (item: I) => number, entryOf: (item: I) => E) {
    this.#partOf = partOf;
    this.#entryOf = entryOf;
  }

  /** Notes that `item` is gone: its group changed if a snapshot held it. */
  removed(item: I): void {
    if (item.part >= 0) this.#changed.add(item.part);
  }

  /**
   * Takes the groups of `other` as of its last snapshot, with the groups
   * changed since: another engine's items, handed over with their flags.
   */
  adopt(other: SnapshotGroups<never, E>): void {
    this.#snapshots = other.#snapshots;
    for (const part of other.#changed) this.#changed.add(part);
  }

  /** Forgets every group (after a restore: all items are new). */
  clear(): void {
    this.#snapshots = new Map();
    this.#changed.clear();
  }

  /**
   * The items as plain data in groups, in group order; a group whose items
   * are those of the previous call, unchanged, is the previous array.
   * Clears the items' `changed` flags.
   *
   * @param items Every live item.
   * @returns One array per non-empty group.
   */
  groups(items: Iterable<I>): E[][] {
    const changed = this.#changed;
    const members = new Map<number, I[]>();
    for (const item of items) {
      if (item.part < 0) {
        item.part = this.#partOf(item);
        changed.add(item.part);
      } else if (item.changed) {
        changed.add(item.part);
      }
      item.changed = false;
      const list = members.get(item.part);
      if (list === undefined) members.set(item.part, [item]);
      else list.push(item);
    }
    const previous = this.#snapshots;
    const next = new Map<number, E[]>();
    for (const part of [...members.keys()].sort((a, b) => a - b)) {
      const kept = changed.has(part) ? undefined : previous.get(part);
      next.set(part, kept ?? members.get(part)!.map(this.#entryOf));
    }
    this.#snapshots = next;
    changed.clear();
    return [...next.values()];
  }
}
