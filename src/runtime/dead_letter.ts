/**
 * What a job does with a record whose processing throws (a key selector, a
 * map, a window function, a sink that refuses it): its error policy, and
 * the dead letter that describes a record set aside. Kafka Streams'
 * exception handlers and dead-letter topics are the anchor.
 *
 * @module
 */

import { describeValue, type Subject } from "../time/validate.ts";

/**
 * A job's answer to a record whose processing throws.
 *
 * - `"dead-letter"` (the default): the record, the operator, the error and
 *   the input position go to the job's durable dead-letter log, a loud line
 *   is logged, and the job goes on without the record.
 * - `"fail"`: Flink's behaviour, the job restarts from its last checkpoint;
 *   a record that fails again after that restore is quarantined (written to
 *   the dead-letter log as `"quarantined"`) instead of replayed forever. If
 *   the record cannot be recognised (its content changed: a timestamp or a
 *   value that depends on processing time, such as ingestion time or a map
 *   adding `Date.now()` or a random id), the next failure at the same
 *   operator subtask before the job makes progress is.
 */
export type ErrorPolicy = "fail" | "dead-letter";

/** The error policies, for validation and `--help`. */
export const ERROR_POLICIES: readonly ErrorPolicy[] = ["fail", "dead-letter"];

/** A record a job set aside, as kept in its dead-letter log (plain data). */
export interface DeadLetter {
  /**
   * The dead letter's identity: the same record failing at the same operator
   * subtask gets the same id, so a restore that processes it again writes
   * it once.
   *
   * At a source subtask a record's partition offset is part of its id.
   * Downstream the id hashes the operator, the subtask, the timestamp and
   * the value (the record's content), and its position in a channel is
   * for people only: after a restore an upstream source may interleave its
   * partitions in another order (by fetch timing), so the same record may
   * come at another channel position, and must not get a second letter.
   * Known limit: two records with the same value and timestamp at one
   * downstream operator subtask (identical readings, a window that fails
   * twice on the same key) share one id, so the log, which keeps one
   * letter per id, keeps one of them and `/metrics` counts one. Nothing is
   * lost but the count: they were the same record in content.
   */
  readonly id: string;
  /** The operator whose code threw: its uid or, without one, its name. */
  readonly operator: string;
  /** The operator's subtask index, from 0. */
  readonly subtask: number;
  /**
   * The record itself (for a window function, `{ key, window }`). As kept
   * in the dead-letter log, one the store cannot encode (an object whose
   * getter throws, a function) is a description,
   * `"<unencodable: TypeError: …> …"`, and one whose JSON is over 16,384
   * characters is cut short, as text.
   */
  readonly value: unknown;
  /** The record's event timestamp in epoch ms (`NaN` if it had none). */
  readonly timestamp: number;
  /** What was thrown (its name and message, each cut at 2,048 characters). */
  readonly error: { readonly name: string; readonly message: string };
  /**
   * Where the record was in the operator subtask's input, for people:
   * e.g. `"partition 2, offset 17"` at a source, `"channel 1, record 230"`
   * downstream.
   */
  readonly position: string;
  /**
   * Why it was set aside: `"dead-letter"` by that policy, `"quarantined"`
   * by `"fail"` after it failed again after a restore (or, for a record
   * whose content changes from one run to the next, after a record failed
   * twice at the same operator subtask before the job made progress).
   */
  readonly reason: "dead-letter" | "quarantined";
  /** Processing time at which it was set aside, epoch ms. */
  readonly at: number;
}

/**
 * A record's processing threw under the `"fail"` error policy, and its
 * strike is not quarantined: the subtask stops at that record (it throws
 * this out of `Subtask.receive`, `SourceSubtask.poll` or whatever step
 * processed the record). The runtime restarts the job from its last
 * checkpoint and, from then on, quarantines {@linkcode strike} (passes it
 * in the subtasks' `quarantine`), so the record that failed twice is set
 * aside instead of replayed forever (Flink's restart, with Kafka Streams'
 * dead-letter idea for the second time).
 *
 * The subtask's state after this error is undefined (the failed record's
 * batch is half processed): a runtime must restore it from a checkpoint.
 */
export class RecordFailedError extends Error {
  /** A stable code for programs to branch on. */
  readonly code = "RECORD_FAILED";
  /**
   * The record that failed, as the dead letter `"fail"` writes when it
   * quarantines it (`reason: "quarantined"`, set on a copy).
   */
  readonly letter: DeadLetter;
  /**
   * What to quarantine so that the record is set aside if it fails again:
   * its content identity (the operator, the subtask, the timestamp and the
   * value, hashed), not its position. After a restore the same record may
   * come at another position (a source subtask interleaves its partitions
   * by fetch timing, so a position downstream may name another record),
   * and still has this strike. When it is quarantined at a source, its
   * dead letter keeps the `id` of the partition offset it came at.
   */
  readonly strike: string;
  /**
   * Where the record failed, whatever its content: `"site:"`, the
   * operator's key (its uid or positional id), `"|"` and the subtask. A
   * record whose timestamp or value depends on processing time (ingestion
   * time, a map adding `Date.now()` or a random id) comes back after a
   * restore with another strike and fails again; the runtime then
   * quarantines its site when the same operator subtask fails again
   * before the job made progress (the local runtime: after a restart from
   * the same checkpoint; the KV runtime: in a row), and every record that
   * fails there is set aside as `"quarantined"` until it does.
   */
  readonly site: string;

  /**
   * Creates the error; its message names the operator, the subtask, the
   * position and what was thrown.
   *
   * @param letter The record that failed, as a dead letter.
   * @param strike Its content identity (see {@linkcode strike}).
   * @param options `cause`: what the user's code threw; `site`: where it
   * failed (see {@linkcode site}), by default from the letter's operator
   * and subtask.
   */
  constructor(
    letter: DeadLetter,
    strike: string,
    options?: { cause?: unknown; site?: string },
  ) {
    super(
      `Cannot process the record at ${letter.position} of operator '${letter.operator}' subtask ${letter.subtask} as its processing threw ${letter.error.name}: ${letter.error.message}; the job restarts from its last checkpoint and sets the record aside if it fails again (dead letter ${letter.id})`,
      options,
    );
    this.name = "RecordFailedError";
    this.letter = letter;
    this.strike = strike;
    this.site = options?.site ?? `site:${letter.operator}|${letter.subtask}`;
  }
}

/** The policy a job has when none is given: a record never stops a job. */
export const DEFAULT_ERROR_POLICY: ErrorPolicy = "dead-letter";

/**
 * Checks an `errorPolicy` option; returns it typed.
 *
 * @throws {RangeError} If it is a string other than a policy.
 * @throws {TypeError} If it is not a string.
 */
export function requireErrorPolicy(
  value: unknown,
  subject: Subject,
): ErrorPolicy {
  if ((ERROR_POLICIES as readonly unknown[]).includes(value)) {
    return value as ErrorPolicy;
  }
  const message = `Cannot ${subject.action} as '${subject.param}' must be ${
    ERROR_POLICIES.map((p) => JSON.stringify(p)).join(" or ")
  }: current value is ${describeValue(value)}`;
  throw typeof value === "string"
    ? new RangeError(message)
    : new TypeError(message);
}
