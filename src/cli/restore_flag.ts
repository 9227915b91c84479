/**
 * `--restore latest|none|<id>`: where a job restarts from, read from the
 * command line, and the store's refusal of a checkpoint id said as the
 * command line's.
 *
 * @module
 */

/** Where a job restarts from: its latest checkpoint, none, or one by id. */
export type Restore = "latest" | "none" | number;

/**
 * Reads `--restore`.
 *
 * @param value `latest`, `none` or a checkpoint id.
 * @returns What it asks for.
 * @throws {RangeError} If it is none of those.
 */
export function parseRestore(value: string): Restore {
  if (value === "latest" || value === "none") return value;
  const id = Number(value);
  if (!Number.isSafeInteger(id) || id < 1) {
    throw new RangeError(
      `Cannot start as '--restore' must be latest, none or a checkpoint id: current value is ${value}`,
    );
  }
  return id;
}

/** The store's refusal of a checkpoint id that names no complete checkpoint. */
const NO_SUCH_CHECKPOINT =
  /^Cannot load a checkpoint as 'id' (must name a complete checkpoint: current value is [\s\S]*)$/;

/**
 * An error of finding the checkpoint `--restore` asks for, as the command
 * line says it: a checkpoint id that names no complete checkpoint is
 * refused naming `--restore`, with the complete ones.
 *
 * @param error What finding the checkpoint threw.
 * @param restore The `--restore` given.
 * @returns The error naming the flag; any other error as it is.
 *
 * @example
 * ```ts
 * import { restoreFlagError } from "./restore_flag.ts";
 * import assert from "node:assert/strict";
 *
 * const error = new RangeError(
 *   "Cannot load a checkpoint as 'id' must name a complete checkpoint: current value is 9, but it has no manifest; the complete ones are 1, 2",
 * );
 * assert.equal(
 *   (restoreFlagError(error, 9) as Error).message,
 *   "Cannot start as '--restore' must name a complete checkpoint: current value is 9, but it has no manifest; the complete ones are 1, 2",
 * );
 * ```
 */
export function restoreFlagError(error: unknown, restore: Restore): unknown {
  const match = typeof restore === "number" && error instanceof RangeError &&
    NO_SUCH_CHECKPOINT.exec(error.message);
  return match
    ? new RangeError(`Cannot start as '--restore' ${match[1]}`, {
      cause: error,
    })
    : error;
}
