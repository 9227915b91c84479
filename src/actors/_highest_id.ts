// A checkpoint store's highest id, as both runtimes read it before they
// number a checkpoint: checked once here, so that a store returning
// nonsense fails the same way in either.

/**
 * Checks what a store's `highestId()` returned.
 *
 * @returns The id: a non-negative safe integer.
 * @throws {RangeError} If it is anything else.
 */
export function checkedHighestId(id: unknown): number {
  if (typeof id !== "number" || !Number.isSafeInteger(id) || id < 0) {
    throw new RangeError(
      `Cannot number checkpoints as 'checkpointStore.highestId()' must return a non-negative safe integer: current value is ${id}`,
    );
  }
  return id;
}
