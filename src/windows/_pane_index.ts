// The live windows of the pane engine: found by bounds, kept in end order
// for the watermark's sweep, and the windows of a record's assigned array
// remembered while the watermark stands.

import { type PaneColumns, PaneWindow } from "./_pane_window.ts";
import type { TimeWindow } from "./time_window.ts";

// The index key of a window: its start, which tells fixed-size windows
// apart except where starts are clipped to the safe range (see
// _window_slots.ts); those are keyed by their end, as a string.
function boundsKey(window: TimeWindow): number | string {
  const start = window.start;
  return start === Number.MIN_SAFE_INTEGER ? `end ${window.end}` : start;
}

// Dropped windows whose columns are kept for new ones: about as many
// windows are created as dropped per watermark.
const SPARE = 16;

// How many of the latest live windows a new window takes its room from.
const RECENT = 16;

/** The live windows of a pane engine. */
export class PaneIndex<K, ACC> {
  readonly #lateness: number;
  #windows = new Map<number | string, PaneWindow<K, ACC>>();
  /** The live windows by end (ties in creation order). */
  order: PaneWindow<K, ACC>[] = [];
  /**
   * How many windows at the front of `order` the sweep fired already (at
   * most): a window inserted since only moves them back.
   */
  swept = 0;
  /** How many panes the last window dropped had (set by the sweep). */
  room = 0;
  // Columns of dropped windows, for new ones (a dropped window's are
  // never read again).
  #spare: PaneColumns[] = [];
  // The windows of the last two assigned arrays (null: late). Assigners
  // hand out the same array for the records of one slide, and the windows
  // of an array only change when the watermark moves (see forget).
  #lastAssigned: TimeWindow[] | null = null;
  #lastResolved: (PaneWindow<K, ACC> | null)[] = [];
  #prevAssigned: TimeWindow[] | null = null;
  #prevResolved: (PaneWindow<K, ACC> | null)[] = [];

  constructor(allowedLatenessMs: number) {
    this.#lateness = allowedLatenessMs;
  }

  /**
   * The live windows of `assigned`, created where missing; null for a late
   * one (past its cleanup time at `watermark`). The result is shared: do
   * not modify it.
   */
  resolve(
    assigned: TimeWindow[],
    watermark: number,
  ): (PaneWindow<K, ACC> | null)[] {
    if (assigned === this.#lastAssigned) return this.#lastResolved;
    return this.#resolveOther(assigned, watermark);
  }

  // resolve() past its first test: kept apart so that the test, run per
  // record, is small enough to inline.
  #resolveOther(
    assigned: TimeWindow[],
    watermark: number,
  ): (PaneWindow<K, ACC> | null)[] {
    let resolved: (PaneWindow<K, ACC> | null)[];
    if (assigned === this.#prevAssigned) {
      resolved = this.#prevResolved;
    } else {
      resolved = [];
      for (const window of assigned) {
        resolved.push(this.#windowOf(window, watermark));
      }
    }
    this.#prevAssigned = this.#lastAssigned;
    this.#prevResolved = this.#lastResolved;
    this.#lastAssigned = assigned;
    this.#lastResolved = resolved;
    return resolved;
  }

  /** Forgets the remembered arrays: the watermark moved. */
  forget(): void {
    this.#lastAssigned = null;
    this.#prevAssigned = null;
  }

  #windowOf(window: TimeWindow, watermark: number): PaneWindow<K, ACC> | null {
    const key = boundsKey(window);
    const found = this.#windows.get(key);
    if (found !== undefined) return found.cleanup <= watermark ? null : found;
    // Windows of one stream hold about as many keys: room for as many
    // panes as the last window dropped or the largest of the oldest live
    // one and the latest few had, in the columns of a dropped window if one
    // is spare, so that columns seldom grow and are seldom made. The oldest
    // window may have been cut short by the stream's start while the
    // watermark stands; the latest ones include complete windows (a record
    // lands in fewer windows than looked at here), and looking at a few
    // keeps this bounded however many windows wait.
    const order = this.order;
    let room = this.room;
    if (order.length > 0 && order[0].size > room) room = order[0].size;
    for (let i = Math.max(0, order.length - RECENT); i < order.length; i++) {
      if (order[i].size > room) room = order[i].size;
    }
    const created = new PaneWindow<K, ACC>(
      window,
      this.#lateness,
      room,
      this.#spare.pop(),
    );
    if (created.cleanup <= watermark) {
      this.#spare.push(created);
      return null;
    }
    this.#windows.set(key, created);
    let at = order.length;
    while (at > 0 && order[at - 1].window.end > window.end) at--;
    if (at === order.length) order.push(created);
    else order.splice(at, 0, created);
    return created;
  }

  /** Drops the windows marked `dropped`, keeping a few of their columns. */
  sweepDropped(): void {
    for (const w of this.order) {
      if (!w.dropped) continue;
      this.#windows.delete(boundsKey(w.window));
      if (this.#spare.length < SPARE) this.#spare.push(w);
    }
    this.order = this.order.filter((w) => !w.dropped);
  }

  /** Replaces every window (each with distinct bounds). */
  reset(windows: PaneWindow<K, ACC>[]): void {
    this.#windows = new Map();
    for (const w of windows) this.#windows.set(boundsKey(w.window), w);
    this.order = windows.sort((a, b) => a.window.end - b.window.end);
    // Restored windows may be due whatever their end (see restorePanes).
    this.swept = 0;
    this.forget();
  }
}
