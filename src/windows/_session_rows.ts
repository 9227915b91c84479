// The session engine's state: its sessions as columns, a row per live
// session with no object of its own (no TimeWindow, no timer objects, no
// boxed number), the due queue its timers stand in, and the rows as the
// general engine's snapshot format.

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
// A row of no live session, free for the next one.
const FREE = 3;
/** The bits of a row's flags that hold its state. */
export const STATE = 3;
/** The bit of a row's flags set when it changed since the last snapshot. */
export const CHANGED = 4;

/** No row (the end of a key's list). */
export const NONE = -1;

/**
 * The sessions of one engine as columns, one row per live session; the row
 * of a session gone goes to the next new one. A row lives for several
 * watermarks: kept in typed arrays, it costs the garbage collector nothing,
 * where an object per session (and a box per double field) would be copied
 * by each young-generation collection it lives through.
 */
export class SessionRows<K, ACC> {
  ids = new Float64Array(64);
  /** Each row's start and end, side by side: a record reads both. */
  bounds = new Float64Array(128);
  /** Each row's state and CHANGED bit. */
  flags = new Uint8Array(64).fill(FREE);
  /** The snapshot group of the session; -1 before its first snapshot. */
  parts = new Int32Array(64);
  /** The next older and newer session of the key, or NONE. */
  older = new Int32Array(64);
  newer = new Int32Array(64);
  keys: (K | undefined)[] = [];
  contents: (ACC | undefined)[] = [];
  /** The number of live rows. */
  size = 0;
  #used = 0;
  #free: number[] = [];

  /** A row for a new session (no newer one), changed, PENDING. */
  add(
    id: number,
    key: K,
    start: number,
    end: number,
    contents: ACC | undefined,
    older: number,
  ): number {
    let row = this.#free.pop();
    if (row === undefined) {
      if (this.#used === this.ids.length) this.#grow();
      row = this.#used++;
    }
    this.ids[row] = id;
    this.keys[row] = key;
    this.bounds[2 * row] = start;
    this.bounds[2 * row + 1] = end;
    this.contents[row] = contents;
    this.flags[row] = PENDING | CHANGED;
    this.parts[row] = -1;
    this.older[row] = older;
    this.newer[row] = NONE;
    this.size++;
    return row;
  }

  /** The row's start. */
  start(row: number): number {
    return this.bounds[2 * row];
  }

  /** The row's end. */
  end(row: number): number {
    return this.bounds[2 * row + 1];
  }

  /** The row's state (see PENDING). */
  state(row: number): number {
    return this.flags[row] & STATE;
  }

  /** Sets the row's state. */
  setState(row: number, state: number): void {
    this.flags[row] = (this.flags[row] & ~STATE) | state;
  }

  /** Frees the row of a session gone. */
  remove(row: number): void {
    this.keys[row] = undefined;
    this.contents[row] = undefined;
    this.flags[row] = FREE;
    this.#free.push(row);
    this.size--;
  }

  /** The live rows in id order, the general engine's order of its slots. */
  live(): number[] {
    const rows: number[] = [];
    for (let row = 0; row < this.#used; row++) {
      if (this.flags[row] !== FREE) rows.push(row);
    }
    const ids = this.ids;
    return rows.sort((a, b) => ids[a] - ids[b]);
  }

  /** The pending timers of `row`, as times (see PENDING). */
  timesOf(row: number, lateness: number): number[] {
    const last = this.end(row) - 1;
    const cleanup = last + lateness;
    const state = this.state(row);
    if (state === DEAD) return [];
    if (state === FIRED) return [cleanup];
    return lateness > 0 && cleanup <= Number.MAX_SAFE_INTEGER
      ? [last, cleanup]
      : [last];
  }

  /** The row as the general engine's slot snapshot. */
  slotOf(row: number): WindowSlotSnapshot<K, ACC> {
    const slot: WindowSlotSnapshot<K, ACC> = {
      id: this.ids[row],
      key: this.keys[row] as K,
      start: this.bounds[2 * row],
      end: this.end(row),
    };
    const contents = this.contents[row];
    if (contents !== undefined) slot.contents = contents;
    return slot;
  }

  /**
   * The pending timers of `rows` as the general engine lists them: flat
   * (id, timestamp) pairs in (timestamp, id) order. The session of id
   * `noCleanup` has its fire timer only (see SessionEngine's handover).
   */
  timerPairs(rows: number[], lateness: number, noCleanup = -1): number[] {
    const pairs: [number, number][] = [];
    for (const row of rows) {
      const id = this.ids[row];
      const times = this.timesOf(row, lateness);
      if (id === noCleanup) times.length = Math.min(times.length, 1);
      for (const time of times) pairs.push([time, id]);
    }
    pairs.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    const flat: number[] = [];
    for (const [time, id] of pairs) flat.push(id, time);
    return flat;
  }

  #grow(): void {
    const n = this.ids.length * 2;
    const grown = <A extends Float64Array | Int32Array | Uint8Array>(
      from: A,
      to: A,
    ): A => {
      to.set(from);
      return to;
    };
    this.ids = grown(this.ids, new Float64Array(n));
    this.bounds = grown(this.bounds, new Float64Array(2 * n));
    this.flags = grown(this.flags, new Uint8Array(n).fill(FREE));
    this.parts = grown(this.parts, new Int32Array(n));
    this.older = grown(this.older, new Int32Array(n));
    this.newer = grown(this.newer, new Int32Array(n));
  }
}

/** A session of a snapshot the engine can hold (see restoredSessions). */
export interface RestoredSession<K, ACC> {
  slot: WindowSlotSnapshot<K, ACC>;
  state: number;
}

/**
 * The sessions of a snapshot by ascending start, with their states, or
 * null if it holds what rows cannot: trigger state, processing-time timers,
 * sessions of a key that touch, a timer of no slot or at another time than
 * a session's pattern (see PENDING), or a session with its fire timer but
 * not its cleanup timer. `timers` is checked already (TimerService.restore).
 */
export function restoredSessions<K, ACC>(
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
export class DueQueue {
  readonly #heap = new PairHeap();
  #runTimes = new Float64Array(256);
  #runIds = new Float64Array(256);
  #runRows = new Int32Array(256);
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
    this.#head = this.#tail = 0;
  }

  /** Adds `row` at (time, id). */
  push(time: number, id: number, row: number): void {
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
  pop(): number {
    const heap = this.#heap;
    const head = this.#head;
    if (head < this.#tail) {
      const time = this.#runTimes[head];
      if (
        heap.size === 0 || time < heap.topTime() ||
        (time === heap.topTime() && this.#runIds[head] < heap.topId())
      ) {
        const row = this.#runRows[head];
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
    let rows = this.#runRows;
    if (length * 2 > times.length) {
      times = new Float64Array(times.length * 2);
      ids = new Float64Array(times.length);
      rows = new Int32Array(times.length);
    }
    times.set(this.#runTimes.subarray(head, this.#tail));
    ids.set(this.#runIds.subarray(head, this.#tail));
    rows.set(this.#runRows.subarray(head, this.#tail));
    this.#runTimes = times;
    this.#runIds = ids;
    this.#runRows = rows;
    this.#head = 0;
    this.#tail = length;
  }
}

// A binary min-heap of (time, id) pairs with their rows, in typed arrays.
class PairHeap {
  #times = new Float64Array(256);
  #ids = new Float64Array(256);
  #rows = new Int32Array(256);
  size = 0;

  topTime(): number {
    return this.#times[0];
  }

  topId(): number {
    return this.#ids[0];
  }

  clear(): void {
    this.size = 0;
  }

  push(time: number, id: number, row: number): void {
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

  pop(): number {
    const times = this.#times;
    const ids = this.#ids;
    const rows = this.#rows;
    const top = rows[0];
    const n = --this.size;
    const time = times[n];
    const id = ids[n];
    const row = rows[n];
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
    const rows = new Int32Array(times.length);
    rows.set(this.#rows);
    this.#rows = rows;
  }
}
