// The check of an `errorPolicy` option, the same for every runtime, the
// API and the job settings: an option that a runtime cannot honour is
// refused by name, never ignored (DESIGN "One actor-runtime contract").

import { ERROR_POLICIES, type ErrorPolicy } from "../runtime/dead_letter.ts";
import { describeValue, type Subject } from "../time/_validate.ts";

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
