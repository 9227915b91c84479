// One live window of the pane engine (see _pane_engine.ts) and its panes,
// one per key, kept as columns instead of one object per (key, window): a
// pane is a position in the arrays, found by one Map get.

import { KeyRows } from "./_key_rows.ts";
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
/** Changed since the last snapshot. */
export const CHANGED = 16;

/** The typed columns of a pane window, handed on from a dropped one. */
export interface PaneColumns {
  /** See {@linkcode PaneWindow.ids}. */
  readonly ids: Float64Array;
  /** See {@linkcode PaneWindow.bits}; as long as `ids`. */
  readonly bits: Uint8Array;
}

// Columns for `length` panes, in one buffer: an allocation costs about a
// microsecond, whatever its length.
function columnsOf(length: number): PaneColumns {
  const buffer = new ArrayBuffer(length * 9);
  return {
    ids: new Float64Array(buffer, 0, length),
    bits: new Uint8Array(buffer, length * 8, length),
  };
}

/** One live window and its panes, in pane-creation (id) order. */
export class PaneWindow<K, ACC> {
  /** The window. */
  readonly window: TimeWindow;
  /** `window.maxTimestamp()`: the fire timer's time and the results' timestamp. */
  readonly maxTimestamp: number;
  /** When its panes are dropped; `Infinity` when beyond the safe range (no timer). */
  readonly cleanup: number;
  /** The pane of each key. */
  index: KeyRows<K>;
  /** Per pane: its key. */
  keys: K[] = [];
  /** Per pane: its contents (absent only in a restored, empty slot). */
  contents: (ACC | undefined)[] = [];
  /**
   * Per pane (the first `size` entries): the id timers and snapshots know
   * it by. Typed arrays keep the numeric columns out of the garbage
   * collector's young generation, which otherwise copies every live
   * pane's columns (up to twice) while its window waits for the watermark.
   */
  ids: Float64Array;
  /** Per pane (the first `size` entries): FIRE, CLEAN, REGISTERED, GONE, CHANGED. */
  bits: Uint8Array;
  /** The number of panes. */
  size = 0;
  /**
   * The snapshot groups of the first `parts.length` panes; those after
   * (created since the last snapshot) have none yet. Filled at snapshot
   * time, so creating a pane costs nothing here.
   */
  parts: number[] = [];
  /** A pane's bits once its cleanup timer is registered: REGISTERED, and CLEAN if finite. */
  readonly registered: number;
  /** Whether a pane may have its fire timer pending: set with FIRE. */
  due = false;
  /**
   * Whether every pane has FIRE and CHANGED set (none was fired or
   * snapshot yet), and `due` too: a record's add need not look at its
   * pane's bits. Cleared by whatever clears those bits.
   */
  marked = true;
  /** Whether the window left the engine. */
  dropped = false;

  /**
   * @param window The window.
   * @param allowedLatenessMs The operator's allowed lateness.
   * @param room Room for this many panes before the columns grow (e.g.
   * the pane count of a window before it).
   * @param spare The `ids` and `bits` columns of a dropped window to reuse
   * (their contents do not matter), if they have that room.
   */
  constructor(
    window: TimeWindow,
    allowedLatenessMs: number,
    room = 8,
    spare?: PaneColumns,
  ) {
    const columns = spare !== undefined && spare.ids.length >= room
      ? spare
      : columnsOf(Math.max(8, room));
    this.ids = columns.ids;
    this.bits = columns.bits;
    this.index = new KeyRows<K>(room);
    this.window = window;
    this.maxTimestamp = window.maxTimestamp();
    this.cleanup = cleanupTime(window, allowedLatenessMs, true);
    this.registered = REGISTERED | (this.cleanup === Infinity ? 0 : CLEAN);
  }

  /** Appends a pane; returns its position. */
  add(key: K, contents: ACC | undefined, id: number, bits: number): number {
    const at = this.size;
    if (at === this.ids.length) this.#grow();
    if ((bits & (FIRE | CHANGED)) !== (FIRE | CHANGED)) this.marked = false;
    this.keys.push(key);
    this.contents.push(contents);
    this.ids[at] = id;
    this.bits[at] = bits;
    this.index.set(key, at);
    this.size = at + 1;
    return at;
  }

  #grow(): void {
    const { ids, bits } = columnsOf(this.ids.length * 2);
    ids.set(this.ids);
    this.ids = ids;
    bits.set(this.bits);
    this.bits = bits;
  }

  /**
   * Drops the panes marked GONE, keeping the others in order.
   *
   * @param removed Called with the snapshot group of each dropped pane that
   * had one.
   */
  sweepGone(removed: (part: number) => void): void {
    const bits = this.bits;
    const parts = this.parts;
    const n = this.size;
    let kept = 0;
    for (let p = 0; p < n; p++) {
      if ((bits[p] & GONE) === 0) kept++;
      else if (p < parts.length) removed(parts[p]);
    }
    if (kept === n) return;
    if (kept === 0) {
      // A new index, not a cleared one: the window is about to go (and may
      // be kept as a spare for its columns), so its array goes now.
      this.index = new KeyRows<K>();
      this.keys = [];
      this.contents = [];
      this.size = 0;
      this.parts = [];
      return;
    }
    let to = 0;
    let partsTo = 0;
    this.index.clear();
    for (let p = 0; p < n; p++) {
      if ((bits[p] & GONE) !== 0) continue;
      this.keys[to] = this.keys[p];
      this.contents[to] = this.contents[p];
      this.ids[to] = this.ids[p];
      bits[to] = bits[p];
      if (p < parts.length) parts[partsTo++] = parts[p];
      this.index.set(this.keys[to], to);
      to++;
    }
    this.keys.length = to;
    this.contents.length = to;
    this.size = to;
    parts.length = partsTo;
  }
}
