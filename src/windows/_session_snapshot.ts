// The session engine's state in the general engine's snapshot format
// (WindowOperatorSnapshot): slots in incremental groups, timers as
// (id, timestamp) pairs, and the way back.

import {
  CHANGED,
  DEAD,
  FIRED,
  NONE,
  PENDING,
  SessionRows,
} from "./_session_rows.ts";
import { KeyRows } from "./_key_rows.ts";
import { SnapshotGroups } from "./snapshot_groups.ts";
import { TimerService, type TimerServiceSnapshot } from "./timer_service.ts";
import type {
  WindowOperatorSnapshot,
  WindowSlotSnapshot,
} from "./window_operator_snapshot.ts";

/** A row as an item of the snapshot groups, made at snapshot time. */
export interface RowItem {
  row: number;
  part: number;
  changed: boolean;
}

/**
 * The rows of a session engine in groups, with SnapshotGroups' contract
 * (a group none of whose sessions changed or went since the last call is
 * the very array of that call), their flags kept in the rows' columns.
 */
export class SessionGroups<K, ACC> {
  readonly #partitionOf: (key: K) => number;
  #rows: SessionRows<K, ACC>;
  /** The groups as of the last call; handed over with the rows. */
  groups: SnapshotGroups<RowItem, WindowSlotSnapshot<K, ACC>>;

  constructor(
    partitionOf: ((key: K) => number) | undefined,
    rows: SessionRows<K, ACC>,
  ) {
    this.#partitionOf = partitionOf ?? (() => 0);
    this.#rows = rows;
    this.groups = this.#newGroups();
  }

  /** Forgets every group, for new rows (all new sessions). */
  reset(rows: SessionRows<K, ACC>): void {
    this.#rows = rows;
    this.groups = this.#newGroups();
  }

  /** Notes that `row` is going: its group changed if a snapshot held it. */
  removed(row: number): void {
    const part = this.#rows.parts[row];
    if (part >= 0) this.groups.removed({ row, part, changed: false });
  }

  /** The live rows as slots, one array per non-empty group. */
  slotGroups(): WindowSlotSnapshot<K, ACC>[][] {
    const rows = this.#rows;
    const items = this.items(rows.live());
    const groups = this.groups.groups(items);
    for (const item of items) {
      rows.parts[item.row] = item.part;
      rows.flags[item.row] &= ~CHANGED;
    }
    return groups;
  }

  /** The rows `live` (in id order) as items of the snapshot groups. */
  items(live: number[]): RowItem[] {
    const rows = this.#rows;
    return live.map((row) => ({
      row,
      part: rows.parts[row],
      changed: (rows.flags[row] & CHANGED) !== 0,
    }));
  }

  #newGroups(): SnapshotGroups<RowItem, WindowSlotSnapshot<K, ACC>> {
    const partitionOf = this.#partitionOf;
    return new SnapshotGroups<RowItem, WindowSlotSnapshot<K, ACC>>(
      (item) => partitionOf(this.#rows.keys[item.row] as K),
      (item) => this.#rows.slotOf(item.row),
    );
  }
}

/** A session engine's fields besides its rows, as a snapshot holds them. */
export interface SessionCounters {
  nextId: number;
  watermark: number;
  numLateRecordsDropped: number;
}

/**
 * The snapshot of `rows` without its slots; the session of id `noCleanup`
 * has no cleanup timer (see SessionEngine's handover).
 */
export function snapshotOf<K, ACC>(
  rows: SessionRows<K, ACC>,
  live: number[],
  lateness: number,
  counters: SessionCounters,
  noCleanup = -1,
): Omit<WindowOperatorSnapshot<K, ACC>, "slots"> {
  return {
    nextId: counters.nextId,
    timers: {
      currentWatermark: counters.watermark,
      eventTime: rows.timerPairs(live, lateness, noCleanup),
      processingTime: [],
    },
    numLateRecordsDropped: counters.numLateRecordsDropped,
  };
}

/** What {@linkcode restoreRows} rebuilt. */
export interface RestoredRows<K, ACC> {
  rows: SessionRows<K, ACC>;
  /** Each key's newest session. */
  newest: KeyRows<K>;
  counters: SessionCounters;
}

/**
 * The rows of a snapshot, or null if it holds what rows cannot (see
 * restoredSessions), or what the timer service refuses (for the general
 * engine to refuse, with its own message).
 */
export function restoreRows<K, ACC>(
  snapshot: WindowOperatorSnapshot<K, ACC>,
  lateness: number,
): RestoredRows<K, ACC> | null {
  const timers = new TimerService();
  try {
    timers.restore(snapshot.timers);
  } catch {
    return null;
  }
  const flat = timers.snapshot();
  const sessions = restoredSessions(snapshot.slots, flat, lateness);
  if (sessions === null || !Number.isSafeInteger(snapshot.nextId)) return null;
  const rows = new SessionRows<K, ACC>();
  const newest = new KeyRows<K>();
  for (const { slot, state } of sessions) {
    const older = newest.get(slot.key) ?? NONE;
    const row = rows.add(
      slot.id,
      slot.key,
      slot.start,
      slot.end,
      slot.contents,
      older,
    );
    if (older !== NONE) rows.newer[older] = row;
    newest.set(slot.key, row);
    rows.setState(row, state);
  }
  return {
    rows,
    newest,
    counters: {
      nextId: snapshot.nextId,
      watermark: flat.currentWatermark,
      numLateRecordsDropped: snapshot.numLateRecordsDropped,
    },
  };
}

// A session of a snapshot the engine can hold (see restoredSessions).
interface RestoredSession<K, ACC> {
  slot: WindowSlotSnapshot<K, ACC>;
  state: number;
}

// The sessions of a snapshot by ascending start, with their states, or
// null if it holds what rows cannot: trigger state, processing-time timers,
// sessions of a key that touch, a timer of no slot or at another time than
// a session's pattern (see PENDING), or a session with its fire timer but
// not its cleanup timer. `timers` is checked already (TimerService.restore).
function restoredSessions<K, ACC>(
  slots: readonly WindowSlotSnapshot<K, ACC>[],
  timers: TimerServiceSnapshot,
  lateness: number,
): RestoredSession<K, ACC>[] | null {
  if (!Array.isArray(slots) || timers.processingTime.length > 0) return null;
  const found = new Map<number, number[]>();
  for (const slot of slots) {
    if (
      slot === null || typeof slot !== "object" ||
      slot.triggerState !== undefined || found.has(slot.id) ||
      !Number.isSafeInteger(slot.id) || !Number.isSafeInteger(slot.start) ||
      !(slot.end > slot.start)
    ) return null;
    found.set(slot.id, []);
  }
  const pairs = timers.eventTime;
  for (let i = 0; i < pairs.length; i += 2) {
    const times = found.get(pairs[i]);
    if (times === undefined) return null;
    times.push(pairs[i + 1]);
  }
  const sessions: RestoredSession<K, ACC>[] = [];
  for (const slot of slots) {
    const times = found.get(slot.id)!.sort((a, b) => a - b);
    const state = stateOf(slot.end, times, lateness);
    if (state === null) return null;
    sessions.push({ slot, state });
  }
  sessions.sort((a, b) => a.slot.start - b.slot.start);
  // Sessions of a key never touch: the general engine merges them.
  const ends = new Map<K, number>();
  for (const { slot } of sessions) {
    const end = ends.get(slot.key);
    if (end !== undefined && end >= slot.start) return null;
    ends.set(slot.key, slot.end);
  }
  return sessions;
}

// The state whose timers are `times` (ascending), or null.
function stateOf(end: number, times: number[], lateness: number) {
  const last = end - 1;
  const cleanup = last + lateness;
  const hasCleanup = lateness > 0 && cleanup <= Number.MAX_SAFE_INTEGER;
  if (times.length === 0) return DEAD;
  if (times.length === 1 && times[0] === last && !hasCleanup) return PENDING;
  if (times.length === 1 && times[0] === cleanup && hasCleanup) return FIRED;
  if (
    times.length === 2 && hasCleanup && times[0] === last &&
    times[1] === cleanup
  ) return PENDING;
  return null;
}
