/**
 * A job's dead letters as `/jobs`, `/metrics` and the dashboard show them:
 * how many there are and the most recent, without their records.
 *
 * @module
 */

import type { DeadLetter } from "../runtime/dead_letter.ts";
import type { JobHandle } from "./job_handle.ts";

/** A dead letter without its record: what summaries and the dashboard show. */
export type DeadLetterBrief = Omit<DeadLetter, "value">;

/** How many letters a job's log holds, and the most recent of them. */
export interface DeadLetterSummary {
  /** How many letters the log holds. */
  readonly count: number;
  /** The most recent letters, oldest first, without their records. */
  readonly recent: readonly DeadLetterBrief[];
}

type Log = NonNullable<ReturnType<NonNullable<JobHandle["deadLetters"]>>>;

// Per log, the last summary read. Letters are only ever added (a letter
// written again is kept as it was), so while the count stands still the
// most recent letters do too: a poll then costs a keys-only listing, not a
// read of every letter's record.
const lastRead = new WeakMap<Log, DeadLetterSummary>();

/**
 * Reads a job's dead-letter count and its `recent` most recent letters.
 *
 * @param handle The job.
 * @param recent How many of the most recent letters to return; 0 reads
 * only the count.
 * @returns The summary, or `null` when the job keeps no dead-letter log or
 * it could not be read (logged).
 */
export async function readDeadLetters(
  handle: Pick<JobHandle, "name" | "deadLetters">,
  recent: number,
): Promise<DeadLetterSummary | null> {
  let log: Log | undefined;
  try {
    log = handle.deadLetters?.();
    if (log === undefined) return null;
    const count = await log.count();
    if (recent === 0 || count === 0) return { count, recent: [] };
    const last = lastRead.get(log);
    if (
      last?.count === count && last.recent.length >= Math.min(recent, count)
    ) {
      return { count, recent: last.recent.slice(-recent) };
    }
    const letters = (await log.list(recent)).map(brief);
    const summary = { count, recent: letters };
    lastRead.set(log, summary);
    return summary;
  } catch (error) {
    console.error(
      `weir http: could not read the dead letters of job '${handle.name}':`,
      error,
    );
    return null;
  }
}

/** The letter without its record. */
export function brief(letter: DeadLetter): DeadLetterBrief {
  const { value: _, ...rest } = letter;
  return rest;
}
