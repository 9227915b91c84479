// The session engine's state: its sessions as columns, a row per live
// session with no object of its own (no TimeWindow, no timer objects, no
// boxed number), and a row as the general engine's slot and timers.

import type { KeyRows } from "./_key_rows.ts";
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
  /**
   * Each row's state and CHANGED bit; FREE for a free row. Rows never used
   * (past #used) are never read, so are not filled with it.
   */
  flags = new Uint8Array(64);
  /**
   * The snapshot group of the session; -1 before its first snapshot, as in
   * the general engine. Any number partitionOf returns (a fraction, beyond
   * int32) is held as it is.
   */
  parts = new Float64Array(64);
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

  /**
   * Frees the row of a session gone, out of its key's list, whose newest
   * session `newest` holds.
   */
  remove(row: number, newest: KeyRows<K>): void {
    const older = this.older[row];
    const newer = this.newer[row];
    if (older !== NONE) this.newer[older] = newer;
    if (newer !== NONE) this.older[newer] = older;
    else if (older !== NONE) newest.set(this.keys[row] as K, older);
    else newest.delete(this.keys[row] as K);
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

  // Doubles: growing fourfold copies less (38 000 adds took 1.1-1.2 ms
  // instead of 1.4-1.5, under 0.5 % of a q11 run) but holds up to 4x the
  // peak.
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
    this.flags = grown(this.flags, new Uint8Array(n));
    this.parts = grown(this.parts, new Float64Array(n));
    this.older = grown(this.older, new Int32Array(n));
    this.newer = grown(this.newer, new Int32Array(n));
  }
}
