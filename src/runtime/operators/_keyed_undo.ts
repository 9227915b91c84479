// What one call of a keyed process function changed in the operator's
// state (the key's state slot, its timers), so that a call that throws can
// be undone before its record is set aside: the record then
// leaves no trace but what the function changed inside its state object.
// The happy path costs a flag per call and one check per state or timer
// change; nothing is allocated (the timer journal is reused).

import type { SnapshotGroups } from "../../windows/snapshot_groups.ts";
import type { Entry } from "./_keyed_entry.ts";
import type { KeyedTimers } from "./_keyed_timers.ts";

/** The undo journal of one call of a keyed process function. */
export class KeyedUndo<K, S> {
  readonly #states: Map<K, Entry<K, S>>;
  readonly #groups: SnapshotGroups<Entry<K, S>, [K, S]>;
  #saved = false;
  #key: K = undefined as K;
  #entry: Entry<K, S> | undefined = undefined;
  #state: S | undefined = undefined;
  // Flat (timers, key, timestamp, added) quadruples, in order.
  readonly #timers: unknown[] = [];

  /**
   * @param states The operator's states by key.
   * @param groups Their snapshot groups.
   */
  constructor(
    states: Map<K, Entry<K, S>>,
    groups: SnapshotGroups<Entry<K, S>, [K, S]>,
  ) {
    this.#states = states;
    this.#groups = groups;
  }

  /** Starts the journal of a call. */
  begin(): void {
    this.#saved = false;
    if (this.#timers.length > 0) this.#timers.length = 0;
  }

  /**
   * Notes the state slot of `key` before the call's first change to it.
   *
   * @param key The key whose state changes.
   */
  beforeStateChange(key: K): void {
    if (this.#saved) return;
    this.#saved = true;
    this.#key = key;
    this.#entry = this.#states.get(key);
    this.#state = this.#entry?.state;
  }

  /**
   * Notes a timer the call added or deleted.
   *
   * @param timers The timer queue.
   * @param key The timer's key.
   * @param timestamp Its timestamp.
   * @param added Whether it was added (else deleted).
   */
  timerChanged(
    timers: KeyedTimers<K>,
    key: K,
    timestamp: number,
    added: boolean,
  ): void {
    this.#timers.push(timers, key, timestamp, added);
  }

  /**
   * Puts back the state slot and the timers as they were when the call
   * began. A timer the call deleted comes back after the others of its
   * timestamp.
   */
  undo(): void {
    const journal = this.#timers;
    for (let i = journal.length - 4; i >= 0; i -= 4) {
      const timers = journal[i] as KeyedTimers<K>;
      const key = journal[i + 1] as K;
      const timestamp = journal[i + 2] as number;
      if (journal[i + 3]) timers.delete(key, timestamp);
      else timers.add(key, timestamp);
    }
    journal.length = 0;
    if (!this.#saved) return;
    this.#saved = false;
    const entry = this.#entry;
    const now = this.#states.get(this.#key);
    if (entry === undefined) {
      if (now === undefined) return;
      this.#states.delete(this.#key);
      this.#groups.removed(now);
      return;
    }
    if (now !== entry) {
      if (now !== undefined) this.#groups.removed(now);
      this.#states.set(this.#key, entry);
    }
    entry.state = this.#state as S;
    entry.changed = true;
  }
}
