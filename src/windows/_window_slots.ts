// The live (key, window) slots of one window operator: what a slot holds,
// the two-level index that finds a record's slots, the ids timers refer to,
// and the groups an incremental checkpoint hands out.

import type { HandOver } from "./_window_engine.ts";
import { type GroupedItem, SnapshotGroups } from "./snapshot_groups.ts";
import { cleanupTime } from "./lateness.ts";
import { TimeWindow } from "./time_window.ts";
import type { TimerService } from "./timer_service.ts";
import type { WindowSlotSnapshot } from "./window_operator_snapshot.ts";

/** One live (key, window) and what it holds. */
export interface Slot<K, ACC> extends GroupedItem {
  readonly id: number;
  readonly key: K;
  // Replaced when a session grows in place (see WindowSlots.grow).
  window: TimeWindow;
  // The window's end. A session grown lazily (see _session_lazy.ts) is
  // ahead of `window.end` until it is settled; otherwise they are equal.
  end: number;
  // The other sessions of the key, by descending start (merging only):
  // the next older and newer one.
  older: Slot<K, ACC> | null;
  newer: Slot<K, ACC> | null;
  contents: ACC | undefined;
  triggerState: number | undefined;
  // The cleanup time is fixed per window, so its timer is registered once
  // instead of on every record (Flink re-registers and deduplicates).
  cleanupRegistered: boolean;
  // The event-time timer the trigger last registered and that is known to be
  // pending: triggers re-register the same timer on every record, and this
  // skips the timer service's lookup for the repeats. NaN when unknown.
  knownEventTimer: number;
  // The same for the trigger's processing-time timer.
  knownProcessingTimer: number;
}

/**
 * What brings sessions grown lazily up to date (see _session_lazy.ts): one
 * of them, or all.
 */
export interface LazySettler<K, ACC> {
  settleSlot(slot: Slot<K, ACC>): void;
  settle(): void;
}

/** How a {@linkcode WindowSlots} indexes and cleans up its slots. */
export interface WindowSlotsOptions<K> {
  /** Whether the assigner merges (the index is then key -> start). */
  merging: boolean;
  /** Whether the windows are in event time (for their cleanup time). */
  eventTime: boolean;
  /** Allowed lateness in milliseconds (for the cleanup time). */
  allowedLatenessMs: number;
  /** The group of a key for incremental checkpoints; one group if absent. */
  partitionOf?: (key: K) => number;
}

// How many window starts' inner maps find() remembers (a sliding window's
// record has size/slide windows; more than this only costs the Map lookup).
const RECENT = 8;

// The outer index key of a non-merging window: its start, which tells
// fixed-size windows apart, except at the start of the safe range. Sliding
// windows that would begin before it are clipped to start there (see
// TimeWindow) and differ only in their end; they are keyed by the end, as
// a string, which no start can equal. Only records within one window size
// of Number.MIN_SAFE_INTEGER build such a key.
function startKey(window: TimeWindow): number | string {
  const start = window.start;
  return start === Number.MIN_SAFE_INTEGER ? `end ${window.end}` : start;
}

/**
 * The slots of one operator. Removing a slot deletes its timers, so a
 * timer never outlives its window. Cost: a lookup is two Map gets, and a
 * non-merging one usually one (the inner maps of recent starts are found by
 * comparing numbers).
 */
export class WindowSlots<K, ACC> {
  readonly #merging: boolean;
  readonly #eventTime: boolean;
  readonly #lateness: number;
  readonly #timers: TimerService;
  // Two-level index of the live slots of a non-merging assigner: start ->
  // key, since few windows are live at a time and the inner maps are then
  // keyed by small keys, which hash fast.
  #index = new Map<unknown, Map<unknown, Slot<K, ACC>>>();
  // A merging assigner's slots: key -> its newest session, the head of the
  // key's list (Slot.older). Merged sessions never overlap, so the start
  // identifies a session, and a record nearly always falls in the newest.
  #sessions = new Map<K, Slot<K, ACC>>();
  #byId = new Map<number, Slot<K, ACC>>();
  readonly #recentStarts = new Float64Array(RECENT).fill(NaN);
  readonly #recentInner = new Array<Map<unknown, Slot<K, ACC>> | undefined>(
    RECENT,
  ).fill(undefined);
  #recentNext = 0;
  // A record with more windows than RECENT would evict each start before
  // its next use (the starts come round in the same order): no caching then.
  #skipRecent = false;
  readonly #groups: SnapshotGroups<Slot<K, ACC>, WindowSlotSnapshot<K, ACC>>;
  #nextId = 0;
  #lazy: LazySettler<K, ACC> | null = null;

  constructor(timers: TimerService, options: WindowSlotsOptions<K>) {
    this.#timers = timers;
    this.#merging = options.merging;
    this.#eventTime = options.eventTime;
    this.#lateness = options.allowedLatenessMs;
    const partitionOf = options.partitionOf;
    this.#groups = new SnapshotGroups(
      partitionOf === undefined ? () => 0 : (slot) => partitionOf(slot.key),
      slotSnapshot,
    );
  }

  /** The number of live slots. */
  get size(): number {
    return this.#byId.size;
  }

  /** The next id to hand out. */
  get nextId(): number {
    return this.#nextId;
  }

  /** Every live slot. */
  all(): IterableIterator<Slot<K, ACC>> {
    return this.#byId.values();
  }

  /**
   * The slot a timer of `id` belongs to, if it is still live. A session
   * grown lazily is settled first: one of its timers came due.
   */
  get(id: number): Slot<K, ACC> | undefined {
    const slot = this.#byId.get(id);
    if (slot !== undefined && slot.end !== slot.window.end) {
      this.#lazy!.settleSlot(slot);
    }
    return slot;
  }

  /** Has lazily grown sessions settled when they are read (see get). */
  settleWith(lazy: LazySettler<K, ACC>): void {
    this.#lazy = lazy;
  }

  /** Prepares the lookups of a record with `count` windows. */
  beginRecord(count: number): void {
    this.#skipRecent = count > RECENT;
  }

  /** The slot of `key` whose window starts where `window` does. */
  find(key: K, window: TimeWindow): Slot<K, ACC> | undefined {
    // The inner maps of the last few window starts, looked up by comparing
    // numbers: a record's windows are nearly always among them, and hashing
    // an epoch-millisecond start (not a small integer) costs more. This
    // loop is kept apart from the rest, small enough to inline.
    if (!this.#merging && !this.#skipRecent) {
      const start = window.start;
      const starts = this.#recentStarts;
      for (let i = 0; i < RECENT; i++) {
        if (starts[i] === start) return this.#recentInner[i]!.get(key);
      }
    }
    return this.#findIndexed(key, window);
  }

  // find() past the recent starts: a lookup in the index, which remembers
  // the inner map found. A clipped start (a string key) is never
  // remembered.
  #findIndexed(key: K, window: TimeWindow): Slot<K, ACC> | undefined {
    if (this.#merging) {
      const start = window.start;
      let slot = this.#sessions.get(key) ?? null;
      while (slot !== null && slot.window.start > start) slot = slot.older;
      return slot !== null && slot.window.start === start ? slot : undefined;
    }
    const start = startKey(window);
    if (this.#skipRecent || typeof start === "string") {
      return this.#index.get(start)?.get(key);
    }
    const starts = this.#recentStarts;
    const inner = this.#index.get(start);
    if (inner === undefined) return undefined;
    const at = this.#recentNext;
    this.#recentNext = (at + 1) % RECENT;
    starts[at] = start;
    this.#recentInner[at] = inner;
    return inner.get(key);
  }

  /** A new, empty slot for a window {@linkcode find} did not find. */
  create(key: K, window: TimeWindow): Slot<K, ACC> {
    const created = this.allocate(key, window, undefined);
    this.insert(created);
    return created;
  }

  /** A new slot with the next id, not yet inserted (a merge's target). */
  allocate(
    key: K,
    window: TimeWindow,
    contents: ACC | undefined,
  ): Slot<K, ACC> {
    return newSlot(this.#nextId++, key, window, contents);
  }

  /** Indexes `slot`. */
  insert(slot: Slot<K, ACC>): void {
    this.#byId.set(slot.id, slot);
    if (this.#merging) return this.#link(slot);
    const outer = startKey(slot.window);
    let inner = this.#index.get(outer);
    if (inner === undefined) {
      inner = new Map();
      this.#index.set(outer, inner);
      this.#forgetRecent();
    }
    inner.set(slot.key, slot);
  }

  /** Drops `slot` and its timers. */
  remove(slot: Slot<K, ACC>): void {
    this.#timers.deleteAllTimers(slot.id);
    this.#byId.delete(slot.id);
    this.#groups.removed(slot);
    if (this.#merging) return this.#unlink(slot);
    const outer = startKey(slot.window);
    const inner = this.#index.get(outer);
    if (inner === undefined) return;
    inner.delete(slot.key);
    if (inner.size === 0) {
      this.#index.delete(outer);
      this.#forgetRecent();
    }
  }

  // Puts a session into its key's list, by descending start: nearly always
  // at the head (the newest session).
  #link(slot: Slot<K, ACC>): void {
    const start = slot.window.start;
    let older = this.#sessions.get(slot.key) ?? null;
    let newer: Slot<K, ACC> | null = null;
    while (older !== null && older.window.start > start) {
      newer = older;
      older = older.older;
    }
    slot.older = older;
    slot.newer = newer;
    if (older !== null) older.newer = slot;
    if (newer !== null) newer.older = slot;
    else this.#sessions.set(slot.key, slot);
  }

  #unlink(slot: Slot<K, ACC>): void {
    const { older, newer } = slot;
    if (older !== null) older.newer = newer;
    if (newer !== null) newer.older = older;
    else if (this.#sessions.get(slot.key) !== slot) return;
    else if (older !== null) this.#sessions.set(slot.key, older);
    else this.#sessions.delete(slot.key);
    slot.older = null;
    slot.newer = null;
  }

  /** Drops the slot of exactly `window` of `key`, if there is one. */
  retire(key: K, window: TimeWindow): void {
    const slot = this.find(key, window);
    if (slot !== undefined && slot.window.equals(window)) this.remove(slot);
  }

  /**
   * The newest session of `key` (merging assigners only); `older` leads to
   * the others, by descending start.
   */
  newestOf(key: K): Slot<K, ACC> | undefined {
    return this.#sessions.get(key);
  }

  /**
   * Grows a merging slot's window to `cover` in place: it keeps its id and
   * contents, and loses its timers and trigger state, as a window merged
   * away would. It keeps its place in its key's list: a session grows only
   * over the gap between it and its neighbours, or it would merge them.
   */
  grow(slot: Slot<K, ACC>, cover: TimeWindow): void {
    this.#timers.clearTimers(slot.id);
    slot.window = cover;
    slot.end = cover.end;
    slot.triggerState = undefined;
    slot.cleanupRegistered = false;
    slot.knownEventTimer = NaN;
    slot.knownProcessingTimer = NaN;
    slot.changed = true;
  }

  /** Registers the timer that drops `slot` at its window's cleanup time. */
  registerCleanupTimer(slot: Slot<K, ACC>): void {
    slot.cleanupRegistered = true;
    const eventTime = this.#eventTime;
    const time = cleanupTime(slot.window, this.#lateness, eventTime);
    if (time === Infinity) return;
    if (eventTime) this.#timers.registerEventTimeTimer(slot.id, time);
    else this.#timers.registerProcessingTimeTimer(slot.id, time);
  }

  /** The live slots as plain data, in groups (see SnapshotGroups). */
  groups(): WindowSlotSnapshot<K, ACC>[][] {
    this.#lazy?.settle();
    return this.#groups.groups(this.#byId.values());
  }

  /** Replaces every slot with those of a snapshot (timers not included). */
  restore(
    entries: readonly WindowSlotSnapshot<K, ACC>[],
    nextId: number,
  ): void {
    this.#index = new Map();
    this.#sessions = new Map();
    this.#forgetRecent();
    this.#byId = new Map();
    this.#groups.clear();
    for (const entry of entries) {
      const slot = newSlot<K, ACC>(
        entry.id,
        entry.key,
        new TimeWindow(entry.start, entry.end),
        entry.contents,
      );
      slot.triggerState = entry.triggerState;
      // A restored window's cleanup timer is among the restored timers.
      slot.cleanupRegistered = true;
      this.insert(slot);
    }
    this.#nextId = nextId;
  }

  /**
   * After a restore from another engine's state: each slot's snapshot
   * group and changed flag from `flags` (by id), and the groups as of that
   * engine's last snapshot, so that unchanged groups are reused still. The
   * slot of id `noCleanup` (if any) has no cleanup timer registered.
   */
  carry(state: Pick<HandOver<K, ACC>, "groups" | "flags" | "noCleanup">): void {
    for (const [id, { part, changed }] of state.flags) {
      Object.assign(this.#byId.get(id)!, { part, changed });
    }
    this.#groups.adopt(state.groups);
    const slot = this.#byId.get(state.noCleanup);
    if (slot !== undefined) slot.cleanupRegistered = false;
  }

  // An inner map appeared or went away: forget the recent ones.
  #forgetRecent(): void {
    this.#recentStarts.fill(NaN);
    this.#recentInner.fill(undefined);
  }
}

// A slot with no trigger state or timers, changed since any snapshot.
function newSlot<K, ACC>(
  id: number,
  key: K,
  window: TimeWindow,
  contents: ACC | undefined,
): Slot<K, ACC> {
  return {
    id,
    key,
    window,
    end: window.end,
    older: null,
    newer: null,
    contents,
    triggerState: undefined,
    cleanupRegistered: false,
    knownEventTimer: NaN,
    knownProcessingTimer: NaN,
    part: -1,
    changed: true,
  };
}

function slotSnapshot<K, ACC>(slot: Slot<K, ACC>): WindowSlotSnapshot<K, ACC> {
  const entry: WindowSlotSnapshot<K, ACC> = {
    id: slot.id,
    key: slot.key,
    start: slot.window.start,
    end: slot.window.end,
  };
  if (slot.contents !== undefined) entry.contents = slot.contents;
  if (slot.triggerState !== undefined) entry.triggerState = slot.triggerState;
  return entry;
}
