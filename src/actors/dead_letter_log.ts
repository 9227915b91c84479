/**
 * A job's durable dead-letter log: the records its error policy set aside,
 * readable back (`GET /jobs/:job/dead-letters`).
 *
 * @module
 */

import type { DeadLetter } from "../runtime/dead_letter.ts";
import type { ActorStorage } from "./storage.ts";
import { keptLetter } from "./_kept_letter.ts";

/**
 * The dead letters of one job in an {@linkcode ActorStorage}, e.g.
 * `new KvStorage(kv, [...jobKeyPrefix(job), "dead-letters"])`.
 *
 * A letter is stored under its `id`, so writing one again (a restore that
 * processes the record again) changes nothing: the log holds each set-aside
 * record once. Whatever the record held, its letter can be written: a value
 * storage cannot encode (an object whose getter throws, a function) is kept
 * as a description (`"<unencodable: …> …"`), one over 16,384 characters of
 * JSON is cut short, and so is an error message over 2,048 characters.
 */
export class DeadLetterLog {
  readonly #storage: ActorStorage;

  /**
   * Opens the log kept in `storage` (nothing is read yet).
   *
   * @param storage Where the letters live; nothing else may be kept there.
   */
  constructor(storage: ActorStorage) {
    this.#storage = storage;
  }

  /**
   * Writes letters, all or none; a letter already there is kept as it was.
   *
   * @param letters The letters to write.
   * @returns The letters that were not in the log yet (each once, in the
   * order given): what a runtime counts and reports as newly set aside.
   */
  async append(letters: readonly DeadLetter[]): Promise<DeadLetter[]> {
    if (letters.length === 0) return [];
    const known = await this.#storage.getMany(letters.map((l) => [l.id]));
    // A letter given twice in one call (a restart re-produced it) is one.
    const fresh = new Map<string, DeadLetter>();
    letters.forEach((letter, i) => {
      if (known[i] === undefined && !fresh.has(letter.id)) {
        fresh.set(letter.id, letter);
      }
    });
    if (fresh.size > 0) {
      await this.#storage.atomic(
        [...fresh.values()].map((letter) => ({
          type: "put" as const,
          key: [letter.id],
          value: keptLetter(letter),
        })),
      );
    }
    return [...fresh.values()];
  }

  /**
   * The letters in the order they were set aside (oldest first).
   *
   * @param limit The most recent letters to return.
   */
  async list(limit = Infinity): Promise<DeadLetter[]> {
    const entries = await this.#storage.list<DeadLetter>([]);
    const letters = entries.map(([, letter]) => letter)
      .sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : 1));
    return limit < letters.length ? letters.slice(-limit) : letters;
  }

  /** How many letters the log holds. */
  async count(): Promise<number> {
    return (await this.#storage.list([], { keysOnly: true })).length;
  }
}
