// The local runtime's options, checked once at construction (a
// constructor validates its arguments): the hot path trusts what comes out.

import type { RuntimeOptions } from "../actor_runtime.ts";
import {
  type CheckedRuntimeOptions,
  checkRuntimeOptions,
} from "../runtime_options.ts";

/** The checked options the local runtime's parts are built from. */
export interface LocalSettings extends CheckedRuntimeOptions {
  /** Elements a mailbox holds before its producers pause. */
  readonly capacity: number;
}

/**
 * Checks the options a `LocalRuntime` is created with.
 *
 * @throws {RangeError} If `mailboxCapacity` is not a positive safe
 * integer, or a runtime option is out of range (`checkRuntimeOptions`).
 * @throws {TypeError} If a runtime option has the wrong type.
 */
export function localSettings(
  options: RuntimeOptions & { readonly mailboxCapacity?: number },
): LocalSettings {
  const action = "create LocalRuntime";
  const capacity = options.mailboxCapacity ?? 64;
  if (!Number.isSafeInteger(capacity) || capacity < 1) {
    throw new RangeError(
      `Cannot ${action} as 'mailboxCapacity' must be a positive safe integer: current value is ${capacity}`,
    );
  }
  return { ...checkRuntimeOptions(options, action), capacity };
}
