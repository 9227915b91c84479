/**
 * Keyed state over another parallelism (Flink's redistribution by key
 * group): a window operator's windows and a keyed process operator's keys,
 * each with its timers, go to the subtask that owns the key's group in the
 * new contiguous ranges.
 *
 * @module
 */

import type {
  WindowOperatorSnapshot,
  WindowSlotSnapshot,
} from "../../windows/mod.ts";
import type { KeyedProcessSnapshot } from "../operators/keyed_process.ts";
import { keyGroupOf, subtaskForKeyGroup } from "../key_groups.ts";

/** Where state goes: the new parallelism and the key groups. */
export interface KeyGroupTarget {
  /** The new number of subtasks. */
  readonly parallelism: number;
  /** The number of key groups. */
  readonly maxParallelism: number;
}

type Window = WindowOperatorSnapshot<unknown, unknown>;
type Keyed = KeyedProcessSnapshot<unknown, unknown>;

/**
 * The lowest of `read` over the states that are not `null` or `undefined`;
 * `-Infinity` if none.
 *
 * @param states The old subtasks' states.
 * @param read The number to take from one state.
 * @returns The lowest, or `-Infinity`.
 */
export function minOf<S>(
  states: readonly unknown[],
  read: (s: S) => number,
): number {
  let min = Infinity;
  for (const state of states) {
    if (state !== null && state !== undefined) {
      min = Math.min(min, read(state as S));
    }
  }
  return min === Infinity ? -Infinity : min;
}

/**
 * A window operator's state: each (key, window) goes to the subtask that
 * owns its key group, with ids renumbered densely there, old subtask by old
 * subtask; its timers follow it and the timers of no live window are
 * dropped. The timer service's watermark is the lowest of the old ones; the
 * late-record counter is kept whole by subtask 0.
 *
 * @param states The old subtasks' states (`null` or `undefined` for none).
 * @param target The new parallelism and the key groups.
 * @returns One state per new subtask.
 */
export function redistributeWindows(
  states: readonly (Window | null | undefined)[],
  target: KeyGroupTarget,
): Window[] {
  const { parallelism, maxParallelism } = target;
  const slots: WindowSlotSnapshot<unknown, unknown>[][] = Array.from(
    { length: parallelism },
    () => [],
  );
  const eventTime: number[][] = Array.from({ length: parallelism }, () => []);
  const processingTime: number[][] = Array.from(
    { length: parallelism },
    () => [],
  );
  let dropped = 0;
  for (const state of states) {
    if (state === null || state === undefined) continue;
    // Old id -> [new subtask, new id] of this old subtask's windows.
    const moved = new Map<number, [number, number]>();
    for (const slot of state.slots) {
      const group = keyGroupOf(slot.key, maxParallelism);
      const owner = subtaskForKeyGroup(group, maxParallelism, parallelism);
      moved.set(slot.id, [owner, slots[owner].length]);
      slots[owner].push({ ...slot, id: slots[owner].length });
    }
    moveTimers(state.timers.eventTime, moved, eventTime);
    moveTimers(state.timers.processingTime, moved, processingTime);
    dropped += state.numLateRecordsDropped;
  }
  // In the usual all-to-all exchange every old subtask saw the same
  // watermarks before the barrier, so the minimum is their common value;
  // otherwise the lowest is the one no window has passed yet.
  const watermark = minOf(states, (s: Window) => s.timers.currentWatermark);
  return slots.map((own, i) => ({
    slots: own,
    nextId: own.length,
    timers: {
      currentWatermark: watermark,
      eventTime: eventTime[i],
      processingTime: processingTime[i],
    },
    // A counter for metrics: kept whole, by the first subtask.
    numLateRecordsDropped: i === 0 ? dropped : 0,
  }));
}

/**
 * A keyed process operator's state: each key's state and timers go to the
 * subtask that owns its key group, old subtask by old subtask in their
 * snapshot order; each new subtask's timers are then sorted by timestamp
 * (stably, so ties keep that order), as a snapshot lists them. The
 * watermark is the lowest, as for windows.
 *
 * @param states The old subtasks' states (`null` or `undefined` for none).
 * @param target The new parallelism and the key groups.
 * @returns One state per new subtask.
 */
export function redistributeKeyed(
  states: readonly (Keyed | null | undefined)[],
  target: KeyGroupTarget,
): Keyed[] {
  const { parallelism, maxParallelism } = target;
  const ownerOf = (key: unknown) =>
    subtaskForKeyGroup(
      keyGroupOf(key, maxParallelism),
      maxParallelism,
      parallelism,
    );
  const spread = <E extends [unknown, unknown]>(
    read: (state: Keyed) => readonly E[],
  ): E[][] => {
    const into: E[][] = Array.from({ length: parallelism }, () => []);
    for (const state of states) {
      if (state === null || state === undefined) continue;
      for (const entry of read(state)) into[ownerOf(entry[0])].push(entry);
    }
    return into;
  };
  const byTimestamp = (a: [unknown, number], b: [unknown, number]) =>
    a[1] - b[1];
  const keyedState = spread((s) => s.keyedState);
  const eventTimers = spread((s) => s.eventTimers);
  const processingTimers = spread((s) => s.processingTimers);
  const watermark = minOf(states, (s: Keyed) => s.currentWatermark);
  return keyedState.map((own, i) => ({
    keyedState: own,
    eventTimers: eventTimers[i].sort(byTimestamp),
    processingTimers: processingTimers[i].sort(byTimestamp),
    currentWatermark: watermark,
  }));
}

/** Appends the flattened (id, timestamp) pairs of moved windows to their new subtasks. */
function moveTimers(
  pairs: readonly number[],
  moved: ReadonlyMap<number, [number, number]>,
  into: number[][],
): void {
  for (let i = 0; i < pairs.length; i += 2) {
    const to = moved.get(pairs[i]);
    if (to !== undefined) into[to[0]].push(to[1], pairs[i + 1]);
  }
}
