/**
 * A source vertex's subtask snapshots, taken at one parallelism, turned
 * into snapshots for another: read positions, generators and merged
 * watermarks follow their partitions, by name.
 *
 * @module
 */

import type { SourceSubtaskSnapshot } from "../source_subtask.ts";
import { describeValue } from "../../time/validate.ts";
import { requireSnapshots } from "./load.ts";
import {
  checkRescaleOptions,
  rescaleChains,
  type RescaleOptions,
} from "./subtask_snapshots.ts";

/** One partition's merged watermark in a source snapshot. */
type MergedOutput = NonNullable<
  SourceSubtaskSnapshot["multiplexer"]
>["outputs"][number];

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
 * are redistributed as by `rescaleSubtaskSnapshots`, each as its kind in
 * `options.kinds` says.
 *
 * @param old The old snapshots, by old subtask index; at least one.
 * @param options The vertex, its new parallelism, the key groups, the
 * chain's state kinds and `partitions`: each new reader's partition names.
 * @returns One snapshot per new subtask, by new subtask index.
 * @throws {RangeError} If `options.parallelism` is not from 1 to
 * `options.maxParallelism`, `old` is empty, `options.partitions` does not
 * hold one entry per new subtask, a partition is in two old snapshots, or
 * the new readers' partitions are not exactly the old ones.
 * @throws {TypeError} If `options.partitions` is missing, a snapshot is
 * not a source's `{ reader, chain }`, a reader snapshot is not
 * `{ partitions, positions, cursor }`, or a chain cannot be redistributed.
 *
 * @example Four partitions read by two subtasks, then by one
 * ```ts
 * import { rescaleSourceSnapshots } from "./source_snapshots.ts";
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
  checkRescaleOptions(old, options, action);
  old.forEach((snapshot, i) => requireSource(snapshot, action, i));
  requireSnapshots(old, action);
  return rescaleSources(old, options, action);
}

/**
 * {@linkcode rescaleSourceSnapshots} on snapshots already checked by
 * `requireSnapshots`.
 *
 * @param old The old snapshots, by old subtask index.
 * @param options The vertex, its new parallelism, the key groups, the
 * kinds of its chain's operators and `partitions`.
 * @param action What is being done, for messages.
 * @returns One snapshot per new subtask, by new subtask index.
 */
export function rescaleSources(
  old: readonly SourceSubtaskSnapshot[],
  options: RescaleOptions,
  action = `rescale the source subtasks of vertex '${options.vertexId}'`,
): SourceSubtaskSnapshot[] {
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

/** Throws unless a snapshot has a chain (a source's); `requireSnapshots` checks the chain. */
function requireSource(snapshot: unknown, action: string, index: number) {
  if (
    typeof snapshot !== "object" || snapshot === null || !("chain" in snapshot)
  ) {
    throw new TypeError(
      `Cannot ${action} as 'old[${index}].chain' must be a subtask snapshot { operators, ended }: current value is ${
        describeValue((snapshot as { chain?: unknown } | null)?.chain)
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
