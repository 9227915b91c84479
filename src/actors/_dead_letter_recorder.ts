// What a runtime does with the letters its subtasks set aside: writes them
// to the job's dead-letter log, counts the new ones, and says so loudly in
// its log (rate-limited), the same in the local and the KV runtime.

import type { Clock } from "../time/mod.ts";
import type { DeadLetter } from "../runtime/dead_letter.ts";
import type { DeadLetterLog } from "./dead_letter_log.ts";

// Letters per append: one append is one atomic batch, which must stay
// within Deno KV's limits of one commit (1000 mutations, 800 KiB) whatever
// a flood of poison records brings.
const LETTERS_PER_APPEND = 50;
// Lines per minute of processing time: a flood of poison records must not
// drown the log (or the disk) in lines; the rest is summed up.
const LINES_PER_WINDOW = 10;
const WINDOW_MS = 60_000;

/** Options of a {@linkcode DeadLetterRecorder}. */
export interface DeadLetterRecorderOptions {
  /** The job, for the lines' pointer to `GET /jobs/<job>/dead-letters`. */
  readonly job: string;
  /** The job's dead-letter log. */
  readonly log: DeadLetterLog;
  /** Processing time, for the rate limit. */
  readonly clock: Clock;
  /** Where lines go. */
  readonly print: (line: string) => void;
}

/**
 * Writes a runtime's dead letters to the job's log and reports them.
 *
 * The log keeps each letter once (its id is deterministic), so writing the
 * letters of records processed again after a restore changes nothing;
 * only letters new to the log are counted and logged.
 */
export class DeadLetterRecorder {
  readonly #options: DeadLetterRecorderOptions;
  #count = 0;
  #windowStart = -Infinity;
  #lines = 0;
  #unlogged = 0;

  /** @param options The job, its log, the clock and where lines go. */
  constructor(options: DeadLetterRecorderOptions) {
    this.#options = options;
  }

  /** The log written to. */
  get log(): DeadLetterLog {
    return this.#options.log;
  }

  /** Letters this recorder wrote that were new to the log. */
  get count(): number {
    return this.#count;
  }

  /**
   * Writes letters to the log (in batches, each idempotent), then counts and
   * logs those that were new.
   *
   * @param letters Letters set aside, oldest first.
   */
  async write(letters: readonly DeadLetter[]): Promise<void> {
    for (let i = 0; i < letters.length; i += LETTERS_PER_APPEND) {
      const fresh = await this.#options.log.append(
        letters.slice(i, i + LETTERS_PER_APPEND),
      );
      this.#count += fresh.length;
      for (const letter of fresh) this.#report(letter);
    }
  }

  #report(letter: DeadLetter): void {
    const { clock, print, job } = this.#options;
    const now = clock.now();
    const where = `(dead-letter log: GET /jobs/${job}/dead-letters)`;
    if (now - this.#windowStart >= WINDOW_MS) {
      if (this.#unlogged > 0) {
        print(
          `weir: set aside ${this.#unlogged} more records of job '${job}' in the last minute without a line each ${where}`,
        );
      }
      this.#windowStart = now;
      this.#lines = 0;
      this.#unlogged = 0;
    }
    if (this.#lines >= LINES_PER_WINDOW) {
      this.#unlogged++;
      return;
    }
    this.#lines++;
    const what = letter.reason === "quarantined"
      ? 'quarantined a record after a restart (errorPolicy "fail": it failed before, or its operator subtask failed again before the job made progress)'
      : "set aside a record";
    print(
      `weir: ${what} of ${letter.operator} subtask ${letter.subtask} at ${letter.position}: ${letter.error.name}: ${letter.error.message} ${where}`,
    );
  }
}
