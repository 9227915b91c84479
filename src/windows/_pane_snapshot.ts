// The pane engine's state as the general engine's snapshot format
// (WindowOperatorSnapshot): slots in incremental groups, timers as
// (id, timestamp) pairs, and the way back.

import {
  CHANGED,
  CLEAN,
  FIRE,
  PaneWindow,
  REGISTERED,
} from "./_pane_window.ts";
import { cleanupTime } from "./lateness.ts";
import { TimeWindow } from "./time_window.ts";
import { TimerService, type TimerServiceSnapshot } from "./timer_service.ts";
import type { WindowSlotSnapshot } from "./window_operator_snapshot.ts";

/**
 * The slots of a pane engine in groups, with SnapshotGroups' contract: a
 * group none of whose panes changed (or went) since the last call is the
 * very array of that call. A changed group lists its slots in id order.
 */
export class PaneGroups<K, ACC> {
  readonly #partitionOf: (key: K) => number;
  #snapshots = new Map<number, WindowSlotSnapshot<K, ACC>[]>();
  readonly #changed = new Set<number>();

  constructor(partitionOf: ((key: K) => number) | undefined) {
    this.#partitionOf = partitionOf ?? (() => 0);
  }

  /** Notes that a pane of group `part` went. */
  readonly removed = (part: number): void => {
    this.#changed.add(part);
  };

  /** Forgets every group (after a restore: all panes are new). */
  clear(): void {
    this.#snapshots = new Map();
    this.#changed.clear();
  }

  /** The panes of `windows` as slots, one array per non-empty group. */
  groups(
    windows: Iterable<PaneWindow<K, ACC>>,
  ): WindowSlotSnapshot<K, ACC>[][] {
    const changed = this.#changed;
    // Per group, the (window, pane) pairs, as two parallel lists.
    const members = new Map<number, [PaneWindow<K, ACC>[], number[]]>();
    for (const w of windows) {
      const parts = w.parts;
      const bits = w.bits;
      // Its panes' CHANGED goes (see PaneWindow.marked).
      w.marked = false;
      for (let p = 0; p < w.size; p++) {
        let part: number;
        if (p >= parts.length) {
          part = this.#partitionOf(w.keys[p]);
          parts.push(part);
          changed.add(part);
        } else {
          part = parts[p];
          if ((bits[p] & CHANGED) !== 0) changed.add(part);
        }
        bits[p] &= ~CHANGED;
        const list = members.get(part);
        if (list === undefined) members.set(part, [[w], [p]]);
        else {
          list[0].push(w);
          list[1].push(p);
        }
      }
    }
    const previous = this.#snapshots;
    const next = new Map<number, WindowSlotSnapshot<K, ACC>[]>();
    for (const part of [...members.keys()].sort((a, b) => a - b)) {
      const kept = changed.has(part) ? undefined : previous.get(part);
      next.set(part, kept ?? slotsOf(...members.get(part)!));
    }
    this.#snapshots = next;
    changed.clear();
    return [...next.values()];
  }
}

// The slots of the given panes, in id order.
function slotsOf<K, ACC>(
  windows: PaneWindow<K, ACC>[],
  panes: number[],
): WindowSlotSnapshot<K, ACC>[] {
  const slots: WindowSlotSnapshot<K, ACC>[] = [];
  for (let i = 0; i < panes.length; i++) {
    const w = windows[i];
    const p = panes[i];
    const slot: WindowSlotSnapshot<K, ACC> = {
      id: w.ids[p],
      key: w.keys[p],
      start: w.window.start,
      end: w.window.end,
    };
    const contents = w.contents[p];
    if (contents !== undefined) slot.contents = contents;
    slots.push(slot);
  }
  return slots.sort((a, b) => a.id - b.id);
}

/**
 * The pending timers of `windows` as the general engine would list them:
 * (id, timestamp) pairs in firing order (timestamp, then id).
 */
export function timerPairs<K, ACC>(
  windows: Iterable<PaneWindow<K, ACC>>,
  allowedLatenessMs: number,
): number[] {
  const pairs: [number, number][] = [];
  for (const w of windows) {
    for (let p = 0; p < w.size; p++) {
      const b = w.bits[p];
      if (allowedLatenessMs === 0) {
        if ((b & (FIRE | CLEAN)) !== 0) pairs.push([w.maxTimestamp, w.ids[p]]);
        continue;
      }
      if ((b & FIRE) !== 0) pairs.push([w.maxTimestamp, w.ids[p]]);
      if ((b & CLEAN) !== 0) pairs.push([w.cleanup, w.ids[p]]);
    }
  }
  pairs.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const flat: number[] = [];
  for (const [timestamp, id] of pairs) flat.push(id, timestamp);
  return flat;
}

/** The number of pending timers of `windows` (see {@linkcode timerPairs}). */
export function countTimers<K, ACC>(
  windows: Iterable<PaneWindow<K, ACC>>,
  allowedLatenessMs: number,
): number {
  let count = 0;
  for (const w of windows) {
    for (let p = 0; p < w.size; p++) {
      const b = w.bits[p];
      if (allowedLatenessMs === 0) count += (b & (FIRE | CLEAN)) !== 0 ? 1 : 0;
      else count += ((b & FIRE) !== 0 ? 1 : 0) + ((b & CLEAN) !== 0 ? 1 : 0);
    }
  }
  return count;
}

/** What {@linkcode restorePanes} rebuilt. */
export interface RestoredPanes<K, ACC> {
  /** The windows by their index key, each with its panes in id order. */
  windows: PaneWindow<K, ACC>[];
  /** The watermark. */
  watermark: number;
}

/**
 * Rebuilds the windows of a snapshot's slots, with each pane's timer bits
 * read from the snapshot's event-time timers (checked as TimerService
 * checks them). Timers of no slot, and processing-time timers, which the
 * default trigger never sets, are not kept.
 */
/**
 * Whether a snapshot holds only what panes can: no trigger state, no
 * processing-time timers, event-time timers only at a slot's maxTimestamp
 * or cleanup time, one slot per key and window. A snapshot of an operator
 * with another trigger may hold more; the general engine restores it.
 */
export function panesHold<K, ACC>(
  slots: readonly WindowSlotSnapshot<K, ACC>[],
  timers: TimerServiceSnapshot,
  allowedLatenessMs: number,
): boolean {
  // A malformed snapshot is for restorePanes to refuse.
  const { eventTime, processingTime } = timers ?? {};
  if (!Array.isArray(eventTime) || !Array.isArray(processingTime)) return true;
  if (processingTime.length > 0) return false;
  const times = new Map<number, [number, number]>();
  const keys = new Map<string, Set<K>>();
  for (const slot of slots) {
    if (slot.triggerState !== undefined) return false;
    const window = new TimeWindow(slot.start, slot.end);
    times.set(slot.id, [
      window.maxTimestamp(),
      cleanupTime(window, allowedLatenessMs, true),
    ]);
    const bounds = `${slot.start} ${slot.end}`;
    const inWindow = keys.get(bounds) ?? new Set<K>();
    if (inWindow.has(slot.key)) return false;
    keys.set(bounds, inWindow.add(slot.key));
  }
  for (let i = 0; i < eventTime.length; i += 2) {
    const pair = times.get(eventTime[i]);
    const time = eventTime[i + 1];
    if (pair === undefined || (time !== pair[0] && time !== pair[1])) {
      return false;
    }
  }
  return true;
}

/**
 * Panes from a snapshot that {@linkcode panesHold} accepts.
 */
export function restorePanes<K, ACC>(
  slots: readonly WindowSlotSnapshot<K, ACC>[],
  timers: TimerServiceSnapshot,
  allowedLatenessMs: number,
): RestoredPanes<K, ACC> {
  const pending = new TimerService();
  pending.restore(timers);
  const byBounds = new Map<string, PaneWindow<K, ACC>>();
  const sorted = [...slots].sort((a, b) => a.id - b.id);
  for (const slot of sorted) {
    const bounds = `${slot.start} ${slot.end}`;
    let w = byBounds.get(bounds);
    if (w === undefined) {
      w = new PaneWindow(
        new TimeWindow(slot.start, slot.end),
        allowedLatenessMs,
      );
      byBounds.set(bounds, w);
    }
    let bits = REGISTERED | CHANGED;
    if (pending.hasEventTimeTimer(slot.id, w.maxTimestamp)) {
      bits |= allowedLatenessMs === 0 ? FIRE | CLEAN : FIRE;
    }
    if (
      allowedLatenessMs > 0 && w.cleanup !== Infinity &&
      pending.hasEventTimeTimer(slot.id, w.cleanup)
    ) {
      bits |= CLEAN;
    }
    w.add(slot.key, slot.contents, slot.id, bits);
    w.due = true;
  }
  return {
    windows: [...byBounds.values()],
    watermark: pending.currentWatermark,
  };
}
