/**
 * What a job does with a record whose processing throws (a key selector, a
 * map, a window function, a sink that refuses it): its error policy, and
 * the dead letter that describes a record set aside. Kafka Streams'
 * exception handlers and dead-letter topics are the anchor.
 *
 * @module
 */

/**
 * A job's answer to a record whose processing throws.
 *
 * - `"dead-letter"` (the default): the record, the operator, the error and
 *   the input position go to the job's durable dead-letter log, a loud line
 *   is logged, and the job goes on without the record.
 * - `"fail"`: Flink's behaviour, the job restarts from its last checkpoint;
 *   a record that fails again after that restore is quarantined (written to
 *   the dead-letter log as `"quarantined"`) instead of replayed forever.
 */
export type ErrorPolicy = "fail" | "dead-letter";

/** The error policies, for validation and `--help`. */
export const ERROR_POLICIES: readonly ErrorPolicy[] = ["fail", "dead-letter"];

/** A record a job set aside, as kept in its dead-letter log (plain data). */
export interface DeadLetter {
  /**
   * The dead letter's identity: the same record failing at the same operator
   * subtask and input position gets the same id, so a restore that
   * processes it again writes it once.
   */
  readonly id: string;
  /** The operator whose code threw: its uid or, without one, its name. */
  readonly operator: string;
  /** The operator's subtask index, from 0. */
  readonly subtask: number;
  /** The record itself (for a window function, `{ key, window }`). */
  readonly value: unknown;
  /** The record's event timestamp in epoch ms (`NaN` if it had none). */
  readonly timestamp: number;
  /** What was thrown. */
  readonly error: { readonly name: string; readonly message: string };
  /**
   * Where the record was in the operator subtask's input, for people:
   * e.g. `"partition 2, offset 17"` at a source, `"channel 1, record 230"`
   * downstream.
   */
  readonly position: string;
  /**
   * Why it was set aside: `"dead-letter"` by that policy, `"quarantined"`
   * by `"fail"` after it failed again after a restore.
   */
  readonly reason: "dead-letter" | "quarantined";
  /** Processing time at which it was set aside, epoch ms. */
  readonly at: number;
}
