// Argument checks of the operators' constructors. Values are
// rendered with String(), as in the runtime's other messages.

import type { Subject } from "../../time/validate.ts";

/**
 * Checks a function argument; returns it typed.
 *
 * @param value The argument.
 * @param subject The action and the parameter's name, for the message.
 * @returns `value`.
 * @throws {TypeError} If `value` is not a function.
 */
export function requireFunction<F>(value: F, subject: Subject): F {
  if (typeof value !== "function") {
    throw new TypeError(
      `Cannot ${subject.action} as '${subject.param}' must be a function: current value is ${
        String(value)
      }`,
    );
  }
  return value;
}
