// The snapshot of a reader that reads its partitions in turn, each from a
// position: shared by the collection and scripted readers, which take the
// same snapshot and must check a restored one the same way.

import { describeValue, requireIndex } from "../../time/validate.ts";

/** A reader's progress as plain data (superjson-serialisable). */
export interface PositionsSnapshot {
  /** The reader's partition names, in order. */
  partitions: string[];
  /** How much of each partition has been read, from 0 to its length. */
  positions: number[];
  /** The index of the partition the next poll tries first. */
  cursor: number;
}

/** What a restored snapshot must fit: the reader restoring it. */
export interface PositionsReader {
  /** The action for messages, e.g. "restore a reader of CollectionSource". */
  readonly action: string;
  /** The reader's partition names, in order. */
  readonly partitions: readonly string[];
  /** The length of each partition: the largest position it may be at. */
  readonly lengths: readonly number[];
}

/**
 * Copies a reader's progress into a snapshot.
 *
 * @param partitions The reader's partition names.
 * @param positions How much of each partition has been read.
 * @param cursor The partition the next poll tries first.
 * @returns Fresh arrays: later reads do not change the snapshot.
 */
export function snapshotPositions(
  partitions: readonly string[],
  positions: readonly number[],
  cursor: number,
): PositionsSnapshot {
  return { partitions: [...partitions], positions: [...positions], cursor };
}

/**
 * Checks a snapshot before a reader restores it: it must name the reader's
 * partitions in order (same parallelism and subtask), with one position per
 * partition from 0 to that partition's length and a cursor below the number
 * of partitions (0 when there are none).
 *
 * @param state What `snapshotPositions` returned, after a round trip.
 * @param reader The restoring reader's partitions and their lengths.
 * @returns The positions and cursor, checked.
 * @throws {TypeError} If `state` is not `{ partitions, positions, cursor }`,
 *   or a position or the cursor is not a number.
 * @throws {RangeError} If the partitions differ, the positions do not match
 *   the partitions in number, or a position or the cursor is out of range.
 */
export function checkPositionsSnapshot(
  state: unknown,
  reader: PositionsReader,
): { positions: number[]; cursor: number } {
  const { action, partitions, lengths } = reader;
  const snapshot = state as Partial<PositionsSnapshot> | null;
  if (
    typeof snapshot !== "object" || snapshot === null ||
    !Array.isArray(snapshot.partitions) || !Array.isArray(snapshot.positions)
  ) {
    throw new TypeError(
      `Cannot ${action} as 'state' must be { partitions, positions, cursor }: current value is ${
        describeValue(state)
      }`,
    );
  }
  if (
    snapshot.partitions.length !== partitions.length ||
    snapshot.partitions.some((name, p) => name !== partitions[p])
  ) {
    throw new RangeError(
      `Cannot ${action} as 'state.partitions' must be this reader's partitions ${
        describeValue(partitions)
      } (same parallelism and subtask): current value is ${
        describeValue(snapshot.partitions)
      }`,
    );
  }
  if (snapshot.positions.length !== partitions.length) {
    throw new RangeError(
      `Cannot ${action} as 'state.positions' must have one entry per partition (${partitions.length}): current value is ${
        describeValue(snapshot.positions)
      }`,
    );
  }
  const positions = snapshot.positions.map((position, p) =>
    requireIndex(position, lengths[p] + 1, {
      action,
      param: `state.positions[${p}]`,
    })
  );
  const cursor = requireIndex(snapshot.cursor, Math.max(lengths.length, 1), {
    action,
    param: "state.cursor",
  });
  return { positions, cursor };
}
