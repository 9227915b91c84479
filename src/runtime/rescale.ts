/**
 * Rescaling: the snapshots of a vertex's subtasks, taken at one
 * parallelism, turned into snapshots for another (Flink's redistribution of
 * keyed state by key group and of operator state), so that a checkpoint can
 * be restored at a different parallelism.
 *
 * @module
 */

import type { SubtaskSnapshot } from "./subtask.ts";
import type { SourceSubtaskSnapshot } from "./source_subtask.ts";
import { redistributeState, samePlainData } from "./_rescale_state.ts";
import {
  describeValue,
  requireNonNegativeInteger,
  requirePositiveInteger,
} from "../time/_validate.ts";

/** One partition's merged watermark in a source snapshot. */
type MergedOutput = NonNullable<
  SourceSubtaskSnapshot["multiplexer"]
>["outputs"][number];

/** Where a vertex's snapshots go: its new parallelism and inputs. */
export interface RescaleOptions {
  /** The vertex id, for messages. */
  readonly vertexId: string;
  /** The new number of subtasks, from 1 to `maxParallelism`. */
  readonly parallelism: number;
  /** The number of key groups: the job's, as in the checkpoint's fingerprint. */
  readonly maxParallelism: number;
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
 * of a new parallelism, operator by operator of the chain.
 *
 * - Keyed state (a window operator's windows, contents, trigger state and
 *   timers) goes by key group: each (key, window) lands on the subtask that
 *   owns `keyGroupOf(key)` in the new contiguous ranges, with its timers;
 *   ids are renumbered densely per subtask and timers of no live window are
 *   dropped. The timer service's watermark is the minimum over the old
 *   subtasks: with an all-to-all exchange they all saw the same watermarks
 *   before the barrier, so this is their common value; otherwise it is the
 *   one that no restored window has passed. The late-record counter is kept
 *   whole by subtask 0.
 * - A process operator's watermark is the minimum too. A timestamps and
 *   watermarks operator's generator starts afresh (the records it will see
 *   differ, so its old state belongs to no new subtask) while its emitter
 *   keeps the minimum watermark, so nothing goes back downstream.
 * - A two-phase sink's pending transactions (an array of them, or an
 *   object whose `transactions` is one, as `KvTableSink` and
 *   `KvAppendSink` write) all go to subtask 0, which commits them again on
 *   restore; their commits are idempotent and keyed by the transaction, not
 *   by who commits it. The other subtasks start with no state (`null`).
 *   Stateless operators stay `null`.
 * - The valve (persist mode) is kept only when the number of input channels
 *   is unchanged and every old subtask holds the same valve (the all-to-all
 *   case); otherwise it is dropped and event time is rebuilt from the next
 *   watermarks, which the restored operators never let go back. No input
 *   channel is ended: a checkpoint is only taken while every subtask runs.
 *
 * At the same parallelism and number of inputs the snapshots come back
 * unchanged (copies of the arrays, the operators' state shared). Cost: one
 * pass over the state, one hash per window.
 *
 * @param old The old snapshots, by old subtask index; at least one.
 * @param options The vertex, its new parallelism and inputs, the key groups.
 * @returns One snapshot per new subtask, by new subtask index; operator
 * state is shared with `old`, not copied.
 * @throws {RangeError} If `options.parallelism` is not from 1 to
 * `options.maxParallelism`, `old` is empty, or sink states name different
 * outputs.
 * @throws {TypeError} If a snapshot is not a subtask snapshot, the chains
 * differ in length, or an operator's state has a shape that cannot be
 * redistributed.
 *
 * @example Two old windows, keyed "a" and "b", spread over three subtasks
 * ```ts
 * import { rescaleSubtaskSnapshots } from "./rescale.ts";
 * import assert from "node:assert/strict";
 *
 * const windows = (key: string) => ({
 *   slots: [{ id: 0, key, start: 0, end: 1_000, contents: 1 }], nextId: 1,
 *   timers: { currentWatermark: 500, eventTime: [0, 999], processingTime: [] },
 *   numLateRecordsDropped: 0,
 * });
 * const old = ["a", "b"].map((key) => ({ operators: [windows(key)], ended: [false] }));
 * const rescaled = rescaleSubtaskSnapshots(old, { vertexId: "sum-2", parallelism: 3, maxParallelism: 128 });
 * const slots = rescaled.flatMap((s) => (s.operators[0] as ReturnType<typeof windows>).slots);
 * assert.deepEqual(slots.map((slot) => slot.key).sort(), ["a", "b"]);
 * ```
 */
export function rescaleSubtaskSnapshots(
  old: readonly SubtaskSnapshot[],
  options: RescaleOptions,
): SubtaskSnapshot[] {
  const action = `rescale the subtasks of vertex '${options.vertexId}'`;
  checkOptions(old, options, action);
  old.forEach((snapshot, i) => requireSubtaskSnapshot(snapshot, action, i));
  return rescaleChains(old, options, true);
}

/**
 * Turns the snapshots of a source vertex's subtasks into one snapshot per
 * subtask of a new parallelism: read positions follow their partitions.
 *
 * The readers' positions are merged by partition name across the old
 * subtasks, and each new subtask gets a reader snapshot in the readers'
 * `{ partitions, positions, cursor }` shape (the collection, scripted and KV
 * log readers') with its own partitions, their positions and cursor 0. In
 * persist mode each partition's generator state and merged watermark follow
 * its partition too, and the emitter resumes at the minimum of the old
 * emitters' watermarks, active, so the watermark never goes back (the
 * periodic and alignment schedules restart); the chain's valve is dropped
 * (its one input is the emitter, which resumes anew). The chained operators
 * are redistributed as by {@linkcode rescaleSubtaskSnapshots}.
 *
 * @param old The old snapshots, by old subtask index; at least one.
 * @param options The vertex, its new parallelism, the key groups and
 * `partitions`: each new reader's partition names.
 * @returns One snapshot per new subtask, by new subtask index.
 * @throws {RangeError} If `options.parallelism` is not from 1 to
 * `options.maxParallelism`, `old` is empty, `options.partitions` does not
 * hold one entry per new subtask, a partition is in two old snapshots, or
 * the new readers' partitions are not exactly the old ones.
 * @throws {TypeError} If `options.partitions` is missing, a reader
 * snapshot is not `{ partitions, positions, cursor }`, or a chain cannot be
 * redistributed.
 *
 * @example Four partitions read by two subtasks, then by one
 * ```ts
 * import { rescaleSourceSnapshots } from "./rescale.ts";
 * import assert from "node:assert/strict";
 *
 * const chain = { operators: [null], ended: [false] };
 * const old = [
 *   { reader: { partitions: ["p-0", "p-2"], positions: [5, 7], cursor: 1 }, chain },
 *   { reader: { partitions: ["p-1", "p-3"], positions: [6, 8], cursor: 0 }, chain },
 * ];
 * const [only] = rescaleSourceSnapshots(old, {
 *   vertexId: "src-1", parallelism: 1, maxParallelism: 128,
 *   partitions: [["p-0", "p-1", "p-2", "p-3"]],
 * });
 * assert.deepEqual(only.reader, { partitions: ["p-0", "p-1", "p-2", "p-3"], positions: [5, 6, 7, 8], cursor: 0 });
 * ```
 */
export function rescaleSourceSnapshots(
  old: readonly SourceSubtaskSnapshot[],
  options: RescaleOptions,
): SourceSubtaskSnapshot[] {
  const action = `rescale the source subtasks of vertex '${options.vertexId}'`;
  checkOptions(old, options, action);
  const partitions = options.partitions;
  if (!Array.isArray(partitions)) {
    throw new TypeError(
      `Cannot ${action} as 'options.partitions' must list each new reader's partition names: current value is ${
        describeValue(partitions)
      }`,
    );
  }
  if (partitions.length !== options.parallelism) {
    throw new RangeError(
      `Cannot ${action} as 'options.partitions' must have one entry per new subtask (${options.parallelism}): current value has ${partitions.length}`,
    );
  }
  // Partition name -> [position, generator state, merged watermark] over
  // all old readers.
  const byName = new Map<string, [number, unknown, MergedOutput | null]>();
  old.forEach((snapshot, i) => {
    requireSubtaskSnapshot(snapshot?.chain, action, i, ".chain");
    const reader = requirePositions(snapshot.reader, action, i);
    reader.partitions.forEach((name, p) => {
      if (byName.has(name)) {
        throw new RangeError(
          `Cannot ${action} as each partition must be in one old snapshot: current value has '${name}' in old subtask ${i} and an earlier one`,
        );
      }
      byName.set(name, [
        reader.positions[p],
        snapshot.generators?.[p] ?? null,
        snapshot.multiplexer?.outputs.find((o) => o.id === name) ?? null,
      ]);
    });
  });
  const owned = new Set(partitions.flat());
  const missing = [...byName.keys()].filter((name) => !owned.has(name));
  const added = [...owned].filter((name) => !byName.has(name));
  if (missing.length > 0 || added.length > 0) {
    throw new RangeError(
      `Cannot ${action} as the new readers must read exactly the checkpoint's partitions ${
        describeValue([...byName.keys()])
      }: current value lacks ${describeValue(missing)} and adds ${
        describeValue(added)
      }`,
    );
  }
  const persisted = old.every((s) => s.generators !== undefined);
  const emitted = old.every((s) => s.emitter !== undefined);
  const merged = emitted && old.every((s) => s.multiplexer !== undefined);
  const watermark = Math.min(
    ...old.map((s) => s.emitter?.currentWatermark ?? Infinity),
  );
  const chains = rescaleChains(
    old.map((s) => s.chain),
    { ...options, numInputChannels: 1 },
    false,
  );
  // Dead letters' offsets follow their partitions too.
  const offsets: Record<string, number> = Object.assign(
    {},
    ...old.map((s) => s.offsets ?? {}),
  );
  return chains.map((chain, i) => {
    const names = [...partitions[i]];
    const snapshot: {
      -readonly [F in keyof SourceSubtaskSnapshot]: SourceSubtaskSnapshot[F];
    } = {
      reader: {
        partitions: names,
        positions: names.map((name) => byName.get(name)![0]),
        cursor: 0,
      },
      offsets: Object.fromEntries(names.map((n) => [n, offsets[n] ?? 0])),
      chain,
    };
    if (persisted) snapshot.generators = names.map((n) => byName.get(n)![1]);
    if (emitted) {
      snapshot.emitter = { currentWatermark: watermark, idle: false };
    }
    // Each partition's merged watermark and idleness follow it, so that it
    // agrees with its generator (an idle one marks idle only once). A
    // partition that had ended is not among them: the new reader reports
    // its end again.
    if (merged) {
      snapshot.multiplexer = {
        outputs: names.flatMap((n) => {
          const output = byName.get(n)![2];
          return output === null ? [] : [{ ...output }];
        }),
        combinedWatermark: watermark,
        combinedIdle: false,
        underlyingIdle: false,
      };
    }
    return snapshot;
  });
}

/** The chains' operators redistributed; the valve kept where it is exact. */
function rescaleChains(
  old: readonly SubtaskSnapshot[],
  options: RescaleOptions,
  mayKeepValve: boolean,
): SubtaskSnapshot[] {
  const n = options.parallelism;
  const inputs = options.numInputChannels ?? old[0].ended.length;
  const sameInputs = old.every((s) => s.ended.length === inputs);
  const length = old[0].operators.length;
  old.forEach((snapshot, i) => {
    if (snapshot.operators.length !== length) {
      throw new TypeError(
        `Cannot rescale the subtasks of vertex '${options.vertexId}' as every old snapshot must hold ${length} operator states: current value in old subtask ${i} holds ${snapshot.operators.length}`,
      );
    }
  });
  if (old.length === n && sameInputs && mayKeepValve) {
    return old.map((s) => ({ ...s, operators: [...s.operators] }));
  }
  const operators: unknown[][] = Array.from({ length: n }, () => []);
  for (let k = 0; k < length; k++) {
    const states = old.map((s) => s.operators[k]);
    const spread = old.length === n ? states : redistributeState(states, {
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

function checkOptions(
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

function requireSubtaskSnapshot(
  snapshot: unknown,
  action: string,
  index: number,
  field = "",
): void {
  const s = snapshot as Partial<SubtaskSnapshot> | null;
  if (
    typeof s !== "object" || s === null || !Array.isArray(s.operators) ||
    !Array.isArray(s.ended)
  ) {
    throw new TypeError(
      `Cannot ${action} as 'old[${index}]${field}' must be a subtask snapshot { operators, ended }: current value is ${
        describeValue(snapshot)
      }`,
    );
  }
}

function requirePositions(
  state: unknown,
  action: string,
  index: number,
): { partitions: string[]; positions: number[] } {
  const s = state as { partitions?: unknown; positions?: unknown } | null;
  if (
    typeof s !== "object" || s === null || !Array.isArray(s.partitions) ||
    !Array.isArray(s.positions) ||
    s.partitions.length !== s.positions.length ||
    !s.partitions.every((name) => typeof name === "string") ||
    !s.positions.every((p) => typeof p === "number")
  ) {
    throw new TypeError(
      `Cannot ${action} as 'old[${index}].reader' must be a reader snapshot { partitions, positions, cursor } to be split by partition: current value is ${
        describeValue(state)
      }`,
    );
  }
  return s as { partitions: string[]; positions: number[] };
}
