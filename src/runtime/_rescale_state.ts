// How one operator's state, taken by each subtask of the old parallelism,
// becomes the state of each subtask of the new one (Flink's key-group and
// operator-state redistribution). Used by rescale.ts; the kind of state is
// recognised by its shape, since a checkpoint stores plain data only:
//
//   null                         stateless operators (map, filter...)
//   { slots, nextId, timers... } the window operator: keyed by key group
//   { keyedState, eventTimers,   the keyed process operator: keyed by key
//     processingTimers, ... }    group
//   { generator, emitter }       timestamps and watermarks
//   { currentWatermark }         the process operator
//   [tx, ...] / { transactions } a two-phase sink writer's pending transactions
//
// Anything else is refused rather than guessed at.

import type {
  WindowOperatorSnapshot,
  WindowSlotSnapshot,
} from "../windows/mod.ts";
import type { KeyedProcessSnapshot } from "./operators/keyed_process.ts";
import { describeValue } from "../time/_validate.ts";
import { keyGroupOf, subtaskForKeyGroup } from "./key_groups.ts";

/** Where the state comes from and where it goes, for the redistribution and its messages. */
export interface StateTarget {
  /** E.g. "operator 1 of vertex 'window-3'", for messages. */
  readonly where: string;
  /** The new number of subtasks. */
  readonly parallelism: number;
  /** The number of key groups. */
  readonly maxParallelism: number;
}

type Window = WindowOperatorSnapshot<unknown, unknown>;
type Keyed = KeyedProcessSnapshot<unknown, unknown>;
type Kind =
  | "none"
  | "windows"
  | "keyed"
  | "generator"
  | "watermark"
  | "list"
  | "object";

/**
 * Redistributes one operator's state over `target.parallelism` subtasks.
 *
 * @param states The operator's state in each old subtask, by old index.
 * @param target The new parallelism, the key groups, and names for messages.
 * @returns One state per new subtask, by new index.
 * @throws {TypeError} If a state has a shape that cannot be redistributed,
 * or the old subtasks' states differ in kind.
 * @throws {RangeError} If sink states name different outputs.
 */
export function redistributeState(
  states: readonly unknown[],
  target: StateTarget,
): unknown[] {
  const kind = kindOfAll(states, target.where);
  const n = target.parallelism;
  switch (kind) {
    case "none":
      return new Array(n).fill(null);
    case "windows":
      return redistributeWindows(states as Window[], target);
    case "keyed":
      return redistributeKeyed(states as (Keyed | null)[], target);
    case "watermark":
      // The process operator's watermark is only what its context shows
      // until the next watermark arrives; the lowest one is never ahead.
      return Array.from({ length: n }, () => ({
        currentWatermark: minOf(
          states,
          (s: { currentWatermark: number }) => s.currentWatermark,
        ),
      }));
    case "generator":
      // A generator's state belongs to the records its subtask saw; after a
      // change of parallelism other records arrive, so the generator starts
      // afresh (as in replay mode) and the emitter keeps the lowest
      // watermark, so nothing goes back downstream.
      return Array.from({ length: n }, () => ({
        generator: null,
        emitter: {
          currentWatermark: minOf(
            states,
            (s: { emitter: { currentWatermark: number } }) =>
              s.emitter.currentWatermark,
          ),
          idle: false,
        },
      }));
    case "list":
    case "object":
      return redistributeTransactions(states, kind, target);
  }
}

/**
 * Whether dropping an operator's state loses nothing but event-time
 * progress, which the records that follow rebuild: no state (stateless
 * operators), a process operator's watermark, or a timestamps and
 * watermarks operator's generator and emitter. Windows, keyed state, sink
 * transactions and any other state are kept.
 *
 * @param state One subtask's state of the operator.
 * @returns `true` if the state may be dropped without losing records.
 */
export function onlyEventTime(state: unknown): boolean {
  const kind = kindOf(state);
  return kind === "none" || kind === "watermark" || kind === "generator";
}

/**
 * Whether two values of plain data (numbers with `±Infinity`, strings,
 * booleans, null, arrays, objects) are equal, field by field.
 */
export function samePlainData(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== "object" || typeof b !== "object") return false;
  if (a === null || b === null || Array.isArray(a) !== Array.isArray(b)) {
    return false;
  }
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) =>
    Object.hasOwn(b, k) &&
    samePlainData(
      (a as Record<string, unknown>)[k],
      (b as Record<string, unknown>)[k],
    )
  );
}

/** The one kind of every non-null state, or "none". */
function kindOfAll(states: readonly unknown[], where: string): Kind {
  let kind: Kind = "none";
  states.forEach((state, index) => {
    const own = kindOf(state);
    if (own === null) {
      throw new TypeError(
        `Cannot redistribute the state of ${where} over another parallelism as it must be null, a window operator's, a keyed process operator's, a watermark operator's or a sink's pending transactions: current value in old subtask ${index} is ${
          describeValue(state)
        }`,
      );
    }
    if (own === "none" || own === kind) return;
    if (kind !== "none") {
      throw new TypeError(
        `Cannot redistribute the state of ${where} over another parallelism as every old subtask must hold the same kind of state: current value in old subtask ${index} is ${own}, before it ${kind}`,
      );
    }
    kind = own;
  });
  return kind;
}

function kindOf(state: unknown): Kind | null {
  if (state === null || state === undefined) return "none";
  if (Array.isArray(state)) return "list";
  if (typeof state !== "object") return null;
  const s = state as Record<string, unknown>;
  if (
    Array.isArray(s.slots) && typeof s.nextId === "number" &&
    typeof s.timers === "object" && s.timers !== null
  ) return "windows";
  if (
    Array.isArray(s.keyedState) && Array.isArray(s.eventTimers) &&
    Array.isArray(s.processingTimers) && typeof s.currentWatermark === "number"
  ) return "keyed";
  const emitter = s.emitter as { currentWatermark?: unknown } | undefined;
  if ("generator" in s && typeof emitter?.currentWatermark === "number") {
    return "generator";
  }
  if (
    Object.keys(s).length === 1 && typeof s.currentWatermark === "number"
  ) return "watermark";
  if (Array.isArray(s.transactions)) return "object";
  return null;
}

/** The lowest of `read` over the non-null states; `-Infinity` if none. */
function minOf<S>(states: readonly unknown[], read: (s: S) => number): number {
  let min = Infinity;
  for (const state of states) {
    if (state !== null && state !== undefined) {
      min = Math.min(min, read(state as S));
    }
  }
  return min === Infinity ? -Infinity : min;
}

/**
 * Keyed state: each (key, window) goes to the subtask that owns its key
 * group, with ids renumbered densely there, old subtask by old subtask;
 * its timers follow it and the timers of no live window are dropped.
 */
function redistributeWindows(
  states: readonly (Window | null)[],
  target: StateTarget,
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
    if (state === null) continue;
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
 * Keyed process state: each key's state and timers go to the subtask that
 * owns its key group, old subtask by old subtask in their snapshot order;
 * each new subtask's timers are then sorted by timestamp (stably, so ties
 * keep that order), as a snapshot lists them. The watermark is the minimum,
 * as for windows.
 */
function redistributeKeyed(
  states: readonly (Keyed | null)[],
  target: StateTarget,
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
      if (state === null) continue;
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

/**
 * A sink writer's state: its pending transactions, which only need
 * committing again (idempotently), whoever commits them. All of them go to
 * the first new subtask; the others start with none (null).
 */
function redistributeTransactions(
  states: readonly unknown[],
  kind: "list" | "object",
  target: StateTarget,
): unknown[] {
  const present = states.filter((s) => s !== null && s !== undefined);
  let merged: unknown;
  if (kind === "list") {
    merged = (present as unknown[][]).flat(1);
  } else {
    const objects = present as Record<string, unknown>[];
    const [first] = objects;
    const rest = (o: Record<string, unknown>) => ({
      ...o,
      transactions: null,
    });
    objects.forEach((object, index) => {
      if (!samePlainData(rest(object), rest(first))) {
        throw new RangeError(
          `Cannot redistribute the state of ${target.where} over another parallelism as every old writer must write the same output: current value is ${
            describeValue(rest(object))
          }, not ${describeValue(rest(first))} (state ${index})`,
        );
      }
    });
    merged = {
      ...first,
      transactions: objects.flatMap((o) => o.transactions as unknown[]),
    };
  }
  return Array.from(
    { length: target.parallelism },
    (_, i) => i === 0 ? merged : null,
  );
}
