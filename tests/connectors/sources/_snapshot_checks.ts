// The restore checks that every source reader with a positions snapshot
// `{ partitions, positions, cursor }` must pass (the collection and scripted
// readers share them through src/connectors/sources/_positions.ts).

import assert from "node:assert/strict";
import type { Source } from "../../../src/runtime/source.ts";

/**
 * Asserts that subtask 0 of 2 of `source` rejects snapshots that are not its
 * own: not an object, another subtask's, a position past the end of its first
 * partition, too few positions, or a cursor out of range. Each error names
 * the parameter.
 *
 * @param source A source with at least 2 partitions.
 * @param pastEnd A position past the end of subtask 0's first partition.
 */
export function assertRejectsForeignSnapshots(
  source: Source<unknown>,
  pastEnd: number,
): void {
  const reader = source.createReader(0, 2);
  assert.ok(
    reader.partitions.length > 0,
    "subtask 0 of 2 must read a partition",
  );
  const restore = (state: unknown) => () => reader.restoreState(state);
  const own = (positions: number[], cursor = 0) =>
    restore({ partitions: [...reader.partitions], positions, cursor });
  // Valid positions for the partitions after the first.
  const others = reader.partitions.slice(1).map(() => 0);
  assert.throws(restore(null), { name: "TypeError", message: /'state'/ });
  assert.throws(restore("x"), { name: "TypeError", message: /'state'/ });
  assert.throws(restore(source.createReader(1, 2).snapshotState()), {
    name: "RangeError",
    message: /'state\.partitions'/,
  });
  assert.throws(own([pastEnd, ...others]), {
    name: "RangeError",
    message: new RegExp(`'state\\.positions\\[0\\]'.*${pastEnd}`),
  });
  assert.throws(own([]), {
    name: "RangeError",
    message: /'state\.positions'/,
  });
  assert.throws(own([0, ...others], reader.partitions.length), {
    name: "RangeError",
    message: /'state\.cursor'/,
  });
}
