/**
 * {@linkcode encodeSnapshot}: a subtask's snapshot in its stored form, as
 * both runtimes take it at a checkpoint, refused with the actor's name
 * when it cannot be stored (rather than a bare `DataCloneError`, or an
 * `undefined` snapshot saved as if it were state).
 *
 * @module
 */

import { Encoded, encodeStructured } from "./_codec.ts";

/**
 * Encodes actor `actorId`'s snapshot, with the encoded parts it handed out
 * (incremental checkpoints; none by default).
 *
 * @param actorId The actor id, `job/operator/subtask`, for the message.
 * @param snapshot The subtask's snapshot.
 * @param parts The parts the snapshot refers to by index.
 * @returns The snapshot in its stored form.
 * @throws {TypeError} If the snapshot is `undefined` or holds a function
 * or a symbol, naming the actor.
 */
export function encodeSnapshot(
  actorId: string,
  snapshot: unknown,
  parts: readonly Encoded[] = [],
): Encoded {
  const head = `Cannot checkpoint actor '${actorId}' as its snapshot must be`;
  if (snapshot === undefined) {
    throw new TypeError(`${head} defined: current value is undefined`);
  }
  try {
    const encoded = encodeStructured(snapshot);
    return parts.length === 0
      ? encoded
      : new Encoded(encoded.bytes, undefined, parts);
  } catch (error) {
    throw new TypeError(
      `${head} structured-cloneable data (no functions or symbols): ${error}`,
    );
  }
}
