/**
 * {@linkcode AtomicConflictError}: a Deno KV commit failed a check.
 *
 * @module
 */

/**
 * A Deno KV commit returned `ok: false`: a check failed because an entry
 * changed since it was read. Nothing of the commit is visible. For a
 * storage, the usual cause is a lost lease: another instance owns the
 * actor now, so this one should drop its in-memory state and stop; for a
 * log, writers racing for its head.
 *
 * @example Branching on the code
 * ```ts
 * import { AtomicConflictError } from "./atomic_conflict_error.ts";
 * import assert from "node:assert/strict";
 *
 * const error = new AtomicConflictError("Cannot commit as a check failed");
 * assert.equal(error.code, "ATOMIC_CONFLICT");
 * ```
 */
export class AtomicConflictError extends Error {
  /** A stable code for programs to branch on. */
  readonly code = "ATOMIC_CONFLICT";

  /**
   * Creates the error.
   *
   * @param message What was being committed, and where.
   */
  constructor(message: string) {
    super(message);
    this.name = "AtomicConflictError";
  }
}
