// One live window of the pane engine (see _pane_engine.ts) and its panes,
// one per key, kept as columns instead of one object per (key, window): a
// pane is a position in the arrays, found by one Map get.

import { cleanupTime } from "./lateness.ts";
import type { TimeWindow } from "./time_window.ts";

// A pane's timers and flags, as bits, in the terms of the general engine
// with EventTimeTrigger. With allowed lateness 0 the fire and the cleanup
// timer are one (id, maxTimestamp) pair, pending if either bit is set.
/** The trigger's timer at the window's maxTimestamp is pending. */
export const FIRE = 1;
/** The cleanup timer at the window's cleanup time is pending. */
export const CLEAN = 2;
/** The cleanup timer was registered once (the general engine's cleanupRegistered). */
export const REGISTERED = 4;
/** Cleaned up in the current sweep: the pane goes once the sweep ends. */
export const GONE = 8;

/** One live window and its panes, in pane-creation (id) order. */
export class PaneWindow<K, ACC> {
  /** The window. */
  readonly window: TimeWindow;
  /** `window.maxTimestamp()`: the fire timer's time and the results' timestamp. */
  readonly maxTimestamp: number;
  /** When its panes are dropped; `Infinity` when beyond the safe range (no timer). */
  readonly cleanup: number;
  /** The pane of each key. */
  index = new Map<K, number>();
  /** Per pane: its key. */
  keys: K[] = [];
  /** Per pane: its contents (absent only in a restored, empty slot). */
  contents: (ACC | undefined)[] = [];
  /** Per pane: the id timers and snapshots know it by. */
  ids: number[] = [];
  /** Per pane: FIRE, CLEAN, REGISTERED, GONE. */
  bits: number[] = [];
  /** Per pane: its snapshot group, -1 before its first snapshot. */
  parts: number[] = [];
  /** Per pane: whether it changed since the last snapshot. */
  changed: boolean[] = [];
  /** Whether a pane may have its fire timer pending: set with FIRE. */
  due = false;
  /** Whether the window left the engine. */
  dropped = false;

  constructor(window: TimeWindow, allowedLatenessMs: number) {
    this.window = window;
    this.maxTimestamp = window.maxTimestamp();
    this.cleanup = cleanupTime(window, allowedLatenessMs, true);
  }

  /** The number of panes. */
  get size(): number {
    return this.ids.length;
  }

  /** Appends an empty pane for `key` with `id`; returns its position. */
  add(key: K, id: number): number {
    const at = this.ids.length;
    this.keys.push(key);
    this.contents.push(undefined);
    this.ids.push(id);
    this.bits.push(0);
    this.parts.push(-1);
    this.changed.push(true);
    this.index.set(key, at);
    return at;
  }

  /** Drops the last pane (a new pane whose add threw). */
  pop(): void {
    this.index.delete(this.keys.pop()!);
    this.contents.pop();
    this.ids.pop();
    this.bits.pop();
    this.parts.pop();
    this.changed.pop();
  }

  /**
   * Drops the panes marked GONE, keeping the others in order.
   *
   * @param removed Called with the snapshot group of each dropped pane that
   * had one.
   */
  sweepGone(removed: (part: number) => void): void {
    const bits = this.bits;
    const n = bits.length;
    let kept = 0;
    for (let p = 0; p < n; p++) {
      if ((bits[p] & GONE) === 0) kept++;
      else if (this.parts[p] >= 0) removed(this.parts[p]);
    }
    if (kept === n) return;
    if (kept === 0) {
      this.index = new Map();
      this.keys = [];
      this.contents = [];
      this.ids = [];
      this.bits = [];
      this.parts = [];
      this.changed = [];
      return;
    }
    let to = 0;
    this.index.clear();
    for (let p = 0; p < n; p++) {
      if ((bits[p] & GONE) !== 0) continue;
      this.keys[to] = this.keys[p];
      this.contents[to] = this.contents[p];
      this.ids[to] = this.ids[p];
      this.bits[to] = bits[p];
      this.parts[to] = this.parts[p];
      this.changed[to] = this.changed[p];
      this.index.set(this.keys[to], to);
      to++;
    }
    this.keys.length = to;
    this.contents.length = to;
    this.ids.length = to;
    this.bits.length = to;
    this.parts.length = to;
    this.changed.length = to;
  }
}
