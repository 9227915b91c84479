// The session engine's state: one lean row per session (no TimeWindow, no
// timer objects), the due queue its timers stand in, and the rows as the
// general engine's snapshot format.

import type { GroupedItem } from "./snapshot_groups.ts";
import type { TimerServiceSnapshot } from "./timer_service.ts";
import type { WindowSlotSnapshot } from "./window_operator_snapshot.ts";

// What a session's timers are, as the general engine would hold them with
// EventTimeTrigger. PENDING: its fire timer at `end - 1`, and with allowed
// lateness its cleanup timer at `end - 1 + lateness` (none past the safe
// range). FIRED: only the cleanup timer. DEAD: none (fired, its cleanup time
// past the safe range, or a fire that threw with no rejectFire and lateness
// 0: the general engine then keeps the slot with no timer).
/** The session's fire timer (and cleanup timer) is pending. */
export const PENDING = 0;
/** The session fired; its cleanup timer is pending. */
export const FIRED = 1;
/** The session has no pending timer. */
export const DEAD = 2;

/** One live session of a key. */
export class SessionRow<K, ACC> implements GroupedItem {
  part = -1;
  changed = true;
  state = PENDING;
  /** The next newer session of the key, null for its newest. */
  newer: SessionRow<K, ACC> | null = null;

  constructor(
    readonly id: number,
    readonly key: K,
    readonly start: number,
    public end: number,
    public contents: ACC | undefined,
    /** The next older session of the key. */
    public older: SessionRow<K, ACC> | null,
  ) {}
}

/** The pending timers of `row`, as times (see PENDING). */
export function timesOf<K, ACC>(
  row: SessionRow<K, ACC>,
  lateness: number,
): number[] {
  const last = row.end - 1;
  const cleanup = last + lateness;
  const hasCleanup = lateness > 0 && cleanup <= Number.MAX_SAFE_INTEGER;
  if (row.state === DEAD) return [];
  if (row.state === FIRED) return [cleanup];
  return hasCleanup ? [last, cleanup] : [last];
}

/**
 * A min-queue of (time, id) pairs, each with its row, in typed arrays: the
 * due timers of the session engine, one entry per row at the time of its
 * earliest timer when pushed. A row whose end moved since is pushed again
 * at its true time when its entry comes up (ends only move later).
 *
 * Entries pushed in order (new sessions of ordered input) join a run, a
 * queue that costs O(1) per entry; the others go to a binary heap. The
 * first entry is the first of the run's and the heap's.
 */
export class DueQueue<R> {
  readonly #heap = new PairHeap<R>();
  #runTimes = new Float64Array(256);
  #runIds = new Float64Array(256);
  #runRows: (R | undefined)[] = [];
  #head = 0;
  #tail = 0;

  /** The number of entries. */
  get size(): number {
    return this.#tail - this.#head + this.#heap.size;
  }

  /** The time of the first entry; only when size > 0. */
  topTime(): number {
    const heap = this.#heap;
    if (this.#head === this.#tail) return heap.topTime();
    const time = this.#runTimes[this.#head];
    return heap.size > 0 && heap.topTime() < time ? heap.topTime() : time;
  }

  /** Drops every entry. */
  clear(): void {
    this.#heap.clear();
    this.#runRows = [];
    this.#head = this.#tail = 0;
  }

  /** Adds `row` at (time, id). */
  push(time: number, id: number, row: R): void {
    const tail = this.#tail;
    if (tail > this.#head) {
      const last = this.#runTimes[tail - 1];
      if (time < last || (time === last && id < this.#runIds[tail - 1])) {
        this.#heap.push(time, id, row);
        return;
      }
    }
    if (tail === this.#runTimes.length) this.#makeRoom();
    const at = this.#tail++;
    this.#runTimes[at] = time;
    this.#runIds[at] = id;
    this.#runRows[at] = row;
  }

  /** Removes the first entry and returns its row; only when size > 0. */
  pop(): R {
    const heap = this.#heap;
    const head = this.#head;
    if (head < this.#tail) {
      const time = this.#runTimes[head];
      if (
        heap.size === 0 || time < heap.topTime() ||
        (time === heap.topTime() && this.#runIds[head] < heap.topId())
      ) {
        const row = this.#runRows[head]!;
        this.#runRows[head] = undefined;
        if (++this.#head === this.#tail) this.#head = this.#tail = 0;
        return row;
      }
    }
    return heap.pop();
  }

  // The run is at the end of its arrays: moves it to their start, or
  // doubles them when it fills more than half.
  #makeRoom(): void {
    const head = this.#head;
    const length = this.#tail - head;
    let times = this.#runTimes;
    let ids = this.#runIds;
    if (length * 2 > times.length) {
      times = new Float64Array(times.length * 2);
      ids = new Float64Array(times.length);
    }
    times.set(this.#runTimes.subarray(head, this.#tail));
    ids.set(this.#runIds.subarray(head, this.#tail));
    this.#runTimes = times;
    this.#runIds = ids;
    this.#runRows = this.#runRows.slice(head, this.#tail);
    this.#head = 0;
    this.#tail = length;
  }
}

// A binary min-heap of (time, id) pairs with their rows, in typed arrays.
class PairHeap<R> {
  #times = new Float64Array(256);
  #ids = new Float64Array(256);
  #rows: (R | undefined)[] = [];
  size = 0;

  topTime(): number {
    return this.#times[0];
  }

  topId(): number {
    return this.#ids[0];
  }

  clear(): void {
    this.#rows = [];
    this.size = 0;
  }

  push(time: number, id: number, row: R): void {
    let i = this.size++;
    if (i === this.#times.length) this.#grow();
    const times = this.#times;
    const ids = this.#ids;
    const rows = this.#rows;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const t = times[parent];
      if (t < time || (t === time && ids[parent] < id)) break;
      times[i] = t;
      ids[i] = ids[parent];
      rows[i] = rows[parent];
      i = parent;
    }
    times[i] = time;
    ids[i] = id;
    rows[i] = row;
  }

  pop(): R {
    const times = this.#times;
    const ids = this.#ids;
    const rows = this.#rows;
    const top = rows[0]!;
    const n = --this.size;
    const time = times[n];
    const id = ids[n];
    const row = rows[n];
    rows[n] = undefined;
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      const right = child + 1;
      if (
        right < n &&
        (times[right] < times[child] ||
          (times[right] === times[child] && ids[right] < ids[child]))
      ) child = right;
      const t = times[child];
      if (time < t || (time === t && id < ids[child])) break;
      times[i] = t;
      ids[i] = ids[child];
      rows[i] = rows[child];
      i = child;
    }
    if (n > 0) {
      times[i] = time;
      ids[i] = id;
      rows[i] = row;
    }
    return top;
  }

  #grow(): void {
    const times = new Float64Array(this.#times.length * 2);
    times.set(this.#times);
    this.#times = times;
    const ids = new Float64Array(times.length);
    ids.set(this.#ids);
    this.#ids = ids;
  }
}

/** A row as the general engine's slot snapshot. */
export function slotOf<K, ACC>(
  row: SessionRow<K, ACC>,
): WindowSlotSnapshot<K, ACC> {
  const slot: WindowSlotSnapshot<K, ACC> = {
    id: row.id,
    key: row.key,
    start: row.start,
    end: row.end,
  };
  if (row.contents !== undefined) slot.contents = row.contents;
  return slot;
}

/**
 * The pending timers of `rows` as the general engine lists them: flat
 * (id, timestamp) pairs in (timestamp, id) order. The row of id
 * `noCleanup` has its fire timer only (see SessionEngine's handover).
 */
export function timerPairsOf<K, ACC>(
  rows: Iterable<SessionRow<K, ACC>>,
  lateness: number,
  noCleanup = -1,
): number[] {
  const pairs: [number, number][] = [];
  for (const row of rows) {
    const times = timesOf(row, lateness);
    if (row.id === noCleanup) times.length = Math.min(times.length, 1);
    for (const time of times) pairs.push([time, row.id]);
  }
  pairs.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const flat: number[] = [];
  for (const [time, id] of pairs) flat.push(id, time);
  return flat;
}

/**
 * The rows of a snapshot, newest first per key, or null if it holds what
 * rows cannot: trigger state, processing-time timers, sessions of a key
 * that touch, a timer of no slot or at another time than a session's
 * pattern (see PENDING), or a session with its fire timer but not its
 * cleanup timer. `timers` is checked already (TimerService.restore).
 */
export function rowsOf<K, ACC>(
  slots: readonly WindowSlotSnapshot<K, ACC>[],
  timers: TimerServiceSnapshot,
  lateness: number,
): SessionRow<K, ACC>[] | null {
  if (!Array.isArray(slots) || timers.processingTime.length > 0) return null;
  const byId = new Map<number, SessionRow<K, ACC>>();
  const found = new Map<number, number[]>();
  for (const slot of slots) {
    if (
      slot === null || typeof slot !== "object" ||
      slot.triggerState !== undefined || byId.has(slot.id) ||
      !Number.isSafeInteger(slot.start) || !(slot.end > slot.start)
    ) return null;
    byId.set(
      slot.id,
      new SessionRow(
        slot.id,
        slot.key,
        slot.start,
        slot.end,
        slot.contents,
        null,
      ),
    );
    found.set(slot.id, []);
  }
  const pairs = timers.eventTime;
  for (let i = 0; i < pairs.length; i += 2) {
    const times = found.get(pairs[i]);
    if (times === undefined) return null;
    times.push(pairs[i + 1]);
  }
  for (const row of byId.values()) {
    const times = found.get(row.id)!.sort((a, b) => a - b);
    const state = [PENDING, FIRED, DEAD].find((state) => {
      row.state = state;
      const expected = timesOf(row, lateness);
      return expected.length === times.length &&
        expected.every((time, i) => time === times[i]);
    });
    if (state === undefined) return null;
    row.state = state;
  }
  return linked([...byId.values()]);
}

// Links the rows of each key by start, newest first; null if two of a key
// touch (the general engine would have merged them).
function linked<K, ACC>(
  rows: SessionRow<K, ACC>[],
): SessionRow<K, ACC>[] | null {
  rows.sort((a, b) => a.start - b.start);
  const newest = new Map<K, SessionRow<K, ACC>>();
  for (const row of rows) {
    const older = newest.get(row.key);
    if (older !== undefined) {
      if (older.end >= row.start) return null;
      older.newer = row;
      row.older = older;
    }
    newest.set(row.key, row);
  }
  return rows.sort((a, b) => a.id - b.id);
}
