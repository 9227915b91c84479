/**
 * {@linkcode ActorFailure}: why an actor of the KV runtime is stopped, and
 * when it is tried again. Its retry delay doubles with each failure in a
 * row, up to a minute (Flink's exponential-delay restart strategy), and a
 * failure never stops the job: health reports the actor as stuck.
 *
 * @module
 */

import { RecordFailedError } from "../runtime/dead_letter.ts";

/** The longest retry delay of a failing actor, in milliseconds. */
export const MAX_RETRY_DELAY_MS = 60_000;

/**
 * How long an actor must run without failing after a retry before its
 * next failure counts as a first one again (Flink's
 * `reset-backoff-threshold`), in milliseconds.
 */
export const BACKOFF_RESET_MS = 60_000;

/** One actor's failures in a row, as plain data (kept in KV too). */
export interface ActorFailure {
  /**
   * The last error (its class name and message); for a record that
   * failed, what its processing threw.
   */
  readonly error: { readonly name: string; readonly message: string };
  /**
   * The record the actor failed on, when its processing threw under
   * `errorPolicy: "fail"` (a `RecordFailedError`): the retry quarantines it.
   */
  readonly record?: {
    /** The operator whose code threw. */
    readonly operator: string;
    /** Its subtask. */
    readonly subtask: number;
    /** Where the record was in the subtask's input. */
    readonly position: string;
    /** The record's dead-letter id. */
    readonly letter: string;
    /** Where it failed, whatever its content (`RecordFailedError.site`). */
    readonly site?: string;
    /**
     * The last failures in a row at that site: from 2 on, the retry
     * quarantines the site, as the record that failed there is not
     * recognised by its content (it changes from one run to the next).
     */
    readonly atSite?: number;
  };
  /** Failures in a row. */
  readonly failures: number;
  /** Processing time of the first failure in a row, epoch ms. */
  readonly since: number;
  /** Processing time from which the actor is tried again, epoch ms. */
  readonly retryAt: number;
  /** The delay before that try, in ms: doubled per failure, at most a minute. */
  readonly delayMs: number;
  /** The worker that saw the last failure. */
  readonly worker: string;
  /**
   * Processing time at which a step went through after the retry: the
   * actor runs again (it is no longer stuck), and its failures in a row
   * end once it has run for `BACKOFF_RESET_MS` after `retryAt`.
   */
  readonly resumedAt?: number;
}

/** Options of {@linkcode nextActorFailure}. */
export interface NextActorFailureOptions {
  /** Processing time now, epoch ms. */
  readonly now: number;
  /** The delay after a first failure, in ms. */
  readonly firstDelayMs: number;
  /** The worker that saw it. */
  readonly worker: string;
}

/**
 * An actor's failures after one more: the delay doubles from the previous
 * one (`firstDelayMs` for a first failure), up to
 * {@linkcode MAX_RETRY_DELAY_MS}.
 *
 * @param previous The actor's failures in a row so far, if any.
 * @param error What it failed with.
 * @param options The time, the first delay and the worker.
 * @returns The new failures in a row.
 *
 * @example Delays double, then stay at a minute
 * ```ts
 * import { nextActorFailure } from "./actor_failure.ts";
 * import assert from "node:assert/strict";
 *
 * const options = { now: 0, firstDelayMs: 10_000, worker: "w1" };
 * let failure = nextActorFailure(undefined, new Error("x"), options);
 * const delays = [failure.delayMs];
 * for (let i = 0; i < 4; i++) {
 *   failure = nextActorFailure(failure, new Error("x"), options);
 *   delays.push(failure.delayMs);
 * }
 * assert.deepEqual(delays, [10_000, 20_000, 40_000, 60_000, 60_000]);
 * ```
 */
export function nextActorFailure(
  previous: ActorFailure | undefined,
  error: unknown,
  options: NextActorFailureOptions,
): ActorFailure {
  const delayMs = Math.min(
    MAX_RETRY_DELAY_MS,
    previous === undefined ? options.firstDelayMs : 2 * previous.delayMs,
  );
  const failed = error instanceof RecordFailedError ? error : undefined;
  const letter = failed?.letter;
  const site = failed?.site;
  const atSite = site !== undefined && previous?.record?.site === site
    ? (previous.record.atSite ?? 1) + 1
    : 1;
  return {
    // For a record, what its processing threw (the letter's error).
    error: letter !== undefined
      ? { name: letter.error.name, message: letter.error.message }
      : error instanceof Error
      ? { name: error.name, message: error.message }
      : { name: typeof error, message: String(error) },
    ...(letter === undefined ? {} : {
      record: {
        operator: letter.operator,
        subtask: letter.subtask,
        position: letter.position,
        letter: letter.id,
        site,
        atSite,
      },
    }),
    failures: (previous?.failures ?? 0) + 1,
    since: previous?.since ?? options.now,
    retryAt: options.now + delayMs,
    delayMs,
    worker: options.worker,
  };
}
