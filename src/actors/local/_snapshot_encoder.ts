// How the local runtime copies the state a subtask hands out at a
// checkpoint: encoded once, in its stored form, before processing goes
// on; a group of keyed state that did not change since the previous
// checkpoint is the same array, and its encoding is reused (incremental
// checkpoints).

import type { Encoded } from "../_codec.ts";
import { partForm, partsPlaceholder } from "../_snapshot_parts.ts";
import { encodeSnapshot } from "../snapshot_encoding.ts";

/** Encodes subtasks' snapshots and the parts they hand out. */
export class SnapshotEncoder {
  // The parts the snapshot being taken handed out, and the encoding of
  // every part array still in use.
  #parts: Encoded[] = [];
  readonly #partEncodings = new WeakMap<object, Encoded>();

  /** The `snapshotParts` hook of actor `actorId`'s subtask. */
  partsOf(
    actorId: string,
  ): (groups: readonly (readonly unknown[])[]) => unknown {
    return (groups) => {
      if (groups.length === 0) return [];
      const indices: number[] = [];
      for (const group of groups) {
        let encoded = this.#partEncodings.get(group);
        if (encoded === undefined) {
          encoded = encodeSnapshot(actorId, partForm(group), []);
          this.#partEncodings.set(group, encoded);
        }
        indices.push(this.#parts.push(encoded) - 1);
      }
      return partsPlaceholder(indices);
    };
  }

  /**
   * Encodes a subtask's snapshot with the parts it handed out since the
   * last call.
   *
   * @throws {TypeError} If the snapshot is `undefined` or holds a function
   * or a symbol, naming the actor.
   */
  encode(actorId: string, snapshot: unknown): Encoded {
    const parts = this.#parts;
    this.#parts = [];
    return encodeSnapshot(actorId, snapshot, parts);
  }
}
