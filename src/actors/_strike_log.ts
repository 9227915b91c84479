// The records that failed once under the "fail" error policy: a record
// that fails again after the restart is quarantined instead of replayed
// forever. Kept durably
// next to the dead-letter log, so that a process restart (not only an
// in-process one) quarantines the record too.

import type { RecordFailedError } from "../runtime/dead_letter.ts";
import type { ActorStorage } from "./storage.ts";

/** What is kept of a strike: enough to say which record it was. */
export interface Strike {
  /**
   * The record's strike (`RecordFailedError.strike`): the same record at
   * the same operator subtask, wherever it comes in the input.
   */
  readonly id: string;
  /** The letter's id where it failed. */
  readonly letter: string;
  /** The operator whose code threw. */
  readonly operator: string;
  /** Its subtask. */
  readonly subtask: number;
  /** Where the record was in the subtask's input. */
  readonly position: string;
  /** What was thrown. */
  readonly error: { readonly name: string; readonly message: string };
  /** Processing time of the failure, epoch ms. */
  readonly at: number;
}

/** The strikes of one job in an {@linkcode ActorStorage} of their own. */
export class StrikeLog {
  readonly #storage: ActorStorage;

  /** @param storage Where the strikes live; nothing else may be kept there. */
  constructor(storage: ActorStorage) {
    this.#storage = storage;
  }

  /** The strikes of the records that failed once: the quarantine of a restart. */
  async ids(): Promise<Set<string>> {
    const keys = await this.#storage.list([], { keysOnly: true });
    return new Set(keys.map(([key]) => String(key[0])));
  }

  /**
   * Records that a record failed (idempotent: the same strike is kept
   * once).
   *
   * @param failure What the record's failure threw.
   */
  async add(failure: RecordFailedError): Promise<void> {
    const { letter } = failure;
    const strike: Strike = {
      id: failure.strike,
      letter: letter.id,
      operator: letter.operator,
      subtask: letter.subtask,
      position: letter.position,
      error: { name: letter.error.name, message: letter.error.message },
      at: letter.at,
    };
    await this.#storage.put([failure.strike], strike);
  }
}
