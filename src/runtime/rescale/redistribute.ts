/**
 * How one operator's state, taken by each subtask of the old parallelism,
 * becomes the state of each subtask of the new one, as the operator's
 * declared {@linkcode StateKind} says (Flink's key-group and operator-state
 * redistribution). A state that does not have its kind's shape is refused,
 * naming the operator and the old subtask.
 *
 * @module
 */

import type { WindowOperatorSnapshot } from "../../windows/mod.ts";
import type { KeyedProcessSnapshot } from "../operators/keyed_process.ts";
import { describeValue } from "../../time/validate.ts";
import type { StateKind } from "./state_kind.ts";
import {
  minOf,
  redistributeKeyed,
  redistributeWindows,
} from "./keyed_state.ts";
import { samePlainData } from "./plain_data.ts";

/** Where the state comes from and where it goes, for the redistribution and its messages. */
export interface StateTarget {
  /** E.g. "operator 1 of vertex 'window-3'", for messages. */
  readonly where: string;
  /** The new number of subtasks. */
  readonly parallelism: number;
  /** The number of key groups. */
  readonly maxParallelism: number;
}

/** What each kind's state looks like, for messages. */
const SHAPES: Readonly<Record<StateKind, string>> = {
  stateless: "null (a stateless operator's)",
  windows: "a window operator's { slots, nextId, timers }",
  keyed:
    "a keyed process operator's { keyedState, eventTimers, processingTimers, currentWatermark }",
  watermark: "a process operator's { currentWatermark }",
  generator: "a timestamps and watermarks operator's { generator, emitter }",
  transactions:
    "a sink's pending transactions (a list, or an object with 'transactions')",
  source: "a source's reader state (split by the source, not the chain)",
  pinned: "null: an async operator's records in flight stay with their subtask",
};

/**
 * Redistributes one operator's state over `target.parallelism` subtasks.
 * Where every old subtask holds no state (`null` or `undefined`), every new
 * one holds `null`, whatever the kind.
 *
 * @param states The operator's state in each old subtask, by old index.
 * @param kind The kind the operator declares; `undefined` if none (then
 * only `null` states can be redistributed).
 * @param target The new parallelism, the key groups, and names for messages.
 * @returns One state per new subtask, by new index.
 * @throws {TypeError} If a state does not have its kind's shape.
 * @throws {RangeError} If sink states name different outputs.
 */
export function redistributeState(
  states: readonly unknown[],
  kind: StateKind | undefined,
  target: StateTarget,
): unknown[] {
  const n = target.parallelism;
  if (states.every((s) => s === null || s === undefined)) {
    return new Array(n).fill(null);
  }
  states.forEach((state, index) => requireShape(state, kind, target, index));
  switch (kind) {
    case "windows":
      return redistributeWindows(
        states as WindowOperatorSnapshot<unknown, unknown>[],
        target,
      );
    case "keyed":
      return redistributeKeyed(
        states as KeyedProcessSnapshot<unknown, unknown>[],
        target,
      );
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
    default:
      // Only "transactions" is left: every other kind threw in requireShape.
      return redistributeTransactions(states, target);
  }
}

/** Throws unless a non-null state has the shape of `kind`. */
function requireShape(
  state: unknown,
  kind: StateKind | undefined,
  target: StateTarget,
  index: number,
): void {
  if (state === null || state === undefined || hasShape(state, kind)) return;
  const must = kind === undefined
    ? "null, a window operator's, a keyed process operator's, a watermark operator's or a sink's pending transactions, whose operator declares its state kind"
    : SHAPES[kind];
  throw new TypeError(
    `Cannot redistribute the state of ${target.where} over another parallelism as it must be ${must}: current value in old subtask ${index} is ${
      describeValue(state)
    }`,
  );
}

function hasShape(state: unknown, kind: StateKind | undefined): boolean {
  if (typeof state !== "object" || state === null) return false;
  const s = state as Record<string, unknown>;
  switch (kind) {
    case "windows":
      return Array.isArray(s.slots) && typeof s.nextId === "number" &&
        typeof s.timers === "object" && s.timers !== null;
    case "keyed":
      return Array.isArray(s.keyedState) && Array.isArray(s.eventTimers) &&
        Array.isArray(s.processingTimers) &&
        typeof s.currentWatermark === "number";
    case "watermark":
      return typeof s.currentWatermark === "number";
    case "generator":
      return "generator" in s &&
        typeof (s.emitter as { currentWatermark?: unknown } | undefined)
            ?.currentWatermark === "number";
    case "transactions":
      return Array.isArray(state) || Array.isArray(s.transactions);
    default:
      return false;
  }
}

/**
 * A sink writer's state: its pending transactions, which only need
 * committing again (idempotently), whoever commits them. All of them go to
 * the first new subtask; the others start with none (null).
 */
function redistributeTransactions(
  states: readonly unknown[],
  target: StateTarget,
): unknown[] {
  const present = states.filter((s) => s !== null && s !== undefined);
  let merged: unknown;
  if (present.every((s) => Array.isArray(s))) {
    merged = (present as unknown[][]).flat(1);
  } else {
    const objects = present as Record<string, unknown>[];
    const [first] = objects;
    const rest = (o: Record<string, unknown>) => ({
      ...o,
      transactions: null,
    });
    objects.forEach((object, index) => {
      if (Array.isArray(object) || !samePlainData(rest(object), rest(first))) {
        throw new RangeError(
          `Cannot redistribute the state of ${target.where} over another parallelism as every old writer must write the same output: current value is ${
            describeValue(Array.isArray(object) ? object : rest(object))
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
