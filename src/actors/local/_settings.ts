// The local runtime's options, checked once at construction (STYLE rule
// 22): the hot path trusts what comes out.

import { requireWatermarkRecovery } from "../../time/validate.ts";
import type { ErrorPolicy } from "../../runtime/dead_letter.ts";
import { requireErrorPolicy } from "../../runtime/dead_letter.ts";
import type { RuntimeOptions } from "../actor_runtime.ts";

/** The checked options the local runtime's parts are built from. */
export interface LocalSettings {
  /** Elements a mailbox holds before its producers pause. */
  readonly capacity: number;
  /** Whether snapshots keep event-time progress. */
  readonly persist: boolean;
  readonly errorPolicy: ErrorPolicy;
}

/**
 * Checks the options a `LocalRuntime` is created with.
 *
 * @throws {RangeError} If `mailboxCapacity` is not a positive safe
 * integer, or `watermarkRecovery` or `errorPolicy` is unknown.
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
  const persist = requireWatermarkRecovery(
    options.watermarkRecovery ?? "replay",
    { action, param: "watermarkRecovery" },
  ) === "persist";
  const errorPolicy = requireErrorPolicy(
    options.errorPolicy ?? "dead-letter",
    { action, param: "errorPolicy" },
  );
  return { capacity, persist, errorPolicy };
}
