/**
 * A vertex's subtask snapshots, taken at one parallelism, turned into
 * snapshots for another: each operator of the chain redistributed as its
 * state kind says, and the valve kept only where it is exact.
 *
 * @module
 */

import type { SubtaskSnapshot } from "../subtask.ts";
import {
  describeValue,
  requireNonNegativeInteger,
  requirePositiveInteger,
} from "../../time/validate.ts";
import type { StateKind } from "./state_kind.ts";
import { redistributeState } from "./redistribute.ts";
import { requireSnapshots } from "./load.ts";
import { samePlainData } from "./plain_data.ts";

/** Where a vertex's snapshots go: its new parallelism and inputs. */
export interface RescaleOptions {
  /** The vertex id, for messages. */
  readonly vertexId: string;
  /** The new number of subtasks, from 1 to `maxParallelism`. */
  readonly parallelism: number;
  /** The number of key groups: the job's, as in the checkpoint's fingerprint. */
  readonly maxParallelism: number;
  /**
   * The state kind of each operator of the chain, in order (for a source,
   * of its chain, whose first operator is the source's pass-through), as
   * the operators declare it: how each one's state is split.
   * @default {none: only operators without state can be redistributed}
   */
  readonly kinds?: readonly (StateKind | undefined)[];
  /**
   * How many upstream subtasks feed each new subtask (ignored for sources,
   * which have one input).
   * @default {as many as in the snapshots}
   */
  readonly numInputChannels?: number;
  /**
   * Sources only: the partition names of each new subtask's reader, by new
   * subtask index, as the new readers report them.
   */
  readonly partitions?: readonly (readonly string[])[];
}

/**
 * Turns the snapshots of a vertex's subtasks into one snapshot per subtask
 * of a new parallelism, operator by operator of the chain, each as its
 * state kind (`options.kinds`) says: see {@linkcode StateKind}.
 *
 * The valve (persist mode) is kept only when the number of input channels
 * is unchanged and every old subtask holds the same valve (the all-to-all
 * case); otherwise it is dropped and event time is rebuilt from the next
 * watermarks, which the restored operators never let go back. No input
 * channel is ended: a checkpoint is only taken while every subtask runs.
 *
 * At the same parallelism and number of inputs the snapshots come back
 * unchanged (copies of the arrays, the operators' state shared). Cost: one
 * pass over the state, one hash per window.
 *
 * @param old The old snapshots, by old subtask index; at least one.
 * @param options The vertex, its new parallelism and inputs, the key
 * groups, the operators' state kinds.
 * @returns One snapshot per new subtask, by new subtask index; operator
 * state is shared with `old`, not copied.
 * @throws {RangeError} If `options.parallelism` is not from 1 to
 * `options.maxParallelism`, `old` is empty, or sink states name different
 * outputs.
 * @throws {TypeError} If a snapshot is not a subtask snapshot, the chains
 * differ in length, or an operator's state does not have its kind's shape.
 *
 * @example Two old windows, keyed "a" and "b", spread over three subtasks
 * ```ts
 * import { rescaleSubtaskSnapshots } from "./subtask_snapshots.ts";
 * import assert from "node:assert/strict";
 *
 * const windows = (key: string) => ({
 *   slots: [{ id: 0, key, start: 0, end: 1_000, contents: 1 }], nextId: 1,
 *   timers: { currentWatermark: 500, eventTime: [0, 999], processingTime: [] },
 *   numLateRecordsDropped: 0,
 * });
 * const old = ["a", "b"].map((key) => ({ operators: [windows(key)], ended: [false] }));
 * const rescaled = rescaleSubtaskSnapshots(old, {
 *   vertexId: "sum-2", parallelism: 3, maxParallelism: 128, kinds: ["windows"],
 * });
 * const slots = rescaled.flatMap((s) => (s.operators[0] as ReturnType<typeof windows>).slots);
 * assert.deepEqual(slots.map((slot) => slot.key).sort(), ["a", "b"]);
 * ```
 */
export function rescaleSubtaskSnapshots(
  old: readonly SubtaskSnapshot[],
  options: RescaleOptions,
): SubtaskSnapshot[] {
  const action = `rescale the subtasks of vertex '${options.vertexId}'`;
  checkRescaleOptions(old, options, action);
  requireSnapshots(old, action);
  return rescaleChains(old, options, true);
}

/**
 * The chains' operators redistributed, the valve kept where it is exact;
 * `old` already checked by `requireSnapshots`.
 *
 * @param old The old chains, by old subtask index.
 * @param options The vertex, its new parallelism and inputs, the kinds.
 * @param mayKeepValve Whether the valve may be kept (not for a source's
 * chain, whose one input is the emitter, which resumes anew).
 * @returns One chain snapshot per new subtask.
 */
export function rescaleChains(
  old: readonly SubtaskSnapshot[],
  options: RescaleOptions,
  mayKeepValve: boolean,
): SubtaskSnapshot[] {
  const n = options.parallelism;
  const inputs = options.numInputChannels ?? old[0].ended.length;
  const sameInputs = old.every((s) => s.ended.length === inputs);
  const length = old[0].operators.length;
  if (old.length === n && sameInputs && mayKeepValve) {
    return old.map((s) => ({ ...s, operators: [...s.operators] }));
  }
  const operators: unknown[][] = Array.from({ length: n }, () => []);
  for (let k = 0; k < length; k++) {
    const states = old.map((s) => s.operators[k]);
    const spread = old.length === n
      ? states
      : redistributeState(states, options.kinds?.[k], {
        where: `operator ${k} of vertex '${options.vertexId}'`,
        parallelism: n,
        maxParallelism: options.maxParallelism,
      });
    spread.forEach((state, i) => operators[i].push(state));
  }
  // Equal valves (every all-to-all input) describe every new subtask's
  // inputs as well; otherwise no old valve does.
  const valve = old[0].valve;
  const keep = mayKeepValve && sameInputs && valve !== undefined &&
    old.every((s) => samePlainData(s.valve, valve));
  return operators.map((states) => {
    const snapshot: SubtaskSnapshot = {
      operators: states,
      ended: new Array<boolean>(inputs).fill(false),
    };
    if (keep) {
      (snapshot as { valve?: SubtaskSnapshot["valve"] }).valve = {
        ...valve,
        watermarks: [...valve.watermarks],
        statuses: [...valve.statuses],
        aligned: [...valve.aligned],
      };
    }
    return snapshot;
  });
}

/**
 * Checks a rescale's options and that there is at least one old snapshot.
 *
 * @param old The old snapshots.
 * @param options The options.
 * @param action What is being done, for messages.
 * @throws {RangeError} If `options.parallelism` is not from 1 to
 * `options.maxParallelism`, or `old` is empty.
 * @throws {TypeError} If a number is not an integer.
 */
export function checkRescaleOptions(
  old: readonly unknown[],
  options: RescaleOptions,
  action: string,
): void {
  const max = requirePositiveInteger(options.maxParallelism, {
    action,
    param: "options.maxParallelism",
  });
  const n = requirePositiveInteger(options.parallelism, {
    action,
    param: "options.parallelism",
  });
  if (n > max) {
    throw new RangeError(
      `Cannot ${action} as 'options.parallelism' must be at most 'options.maxParallelism' (${max}): current value is ${n}`,
    );
  }
  if (options.numInputChannels !== undefined) {
    requireNonNegativeInteger(options.numInputChannels, {
      action,
      param: "options.numInputChannels",
    });
  }
  if (!Array.isArray(old) || old.length === 0) {
    throw new RangeError(
      `Cannot ${action} as 'old' must hold the snapshot of at least one old subtask: current value is ${
        describeValue(old)
      }`,
    );
  }
}
