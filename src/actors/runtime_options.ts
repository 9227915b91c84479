/**
 * {@linkcode checkRuntimeOptions}: the one check of a runtime's
 * {@linkcode RuntimeOptions}, so that the local and the KV runtime refuse
 * the same values with the same messages, and never read one differently.
 *
 * @module
 */

import {
  requireBoolean,
  requireNonNegativeInteger,
  requireWatermarkRecovery,
} from "../time/validate.ts";
import {
  type ErrorPolicy,
  requireErrorPolicy,
} from "../runtime/dead_letter.ts";
import type { RuntimeOptions } from "./actor_runtime.ts";

/** The {@linkcode RuntimeOptions} a runtime reads, checked and with defaults. */
export interface CheckedRuntimeOptions {
  /** Processing time between checkpoints; 0: none but triggered ones. */
  readonly checkpointIntervalMs: number;
  /** The highest checkpoint id already stored (0: none). */
  readonly lastCheckpointId: number;
  /** Whether snapshots keep event-time progress (`watermarkRecovery: "persist"`). */
  readonly persist: boolean;
  /** What happens to a record whose processing throws. */
  readonly errorPolicy: ErrorPolicy;
  /** Whether to simulate processing time; `undefined`: as the clock allows. */
  readonly simulate: boolean | undefined;
  /** Whether state of operators the job no longer has may be dropped. */
  readonly allowNonRestoredState: boolean;
}

/**
 * Checks the options every runtime takes, the same way on each, naming the
 * field and its value in the message.
 *
 * @param options The options a runtime is created with.
 * @param action The action in the message, e.g. `"create KvRuntime"`.
 * @returns The options with their defaults.
 * @throws {RangeError} If `checkpointIntervalMs` or `lastCheckpointId` is
 * not a non-negative safe integer, or `watermarkRecovery` or `errorPolicy`
 * is an unknown string.
 * @throws {TypeError} If a field has the wrong type (`simulate` or
 * `allowNonRestoredState` not a boolean).
 */
export function checkRuntimeOptions(
  options: RuntimeOptions,
  action: string,
): CheckedRuntimeOptions {
  const checkpointIntervalMs = requireNonNegativeInteger(
    options.checkpointIntervalMs ?? 0,
    { action, param: "checkpointIntervalMs" },
  );
  const lastCheckpointId = requireNonNegativeInteger(
    options.lastCheckpointId ?? 0,
    { action, param: "lastCheckpointId" },
  );
  const persist = requireWatermarkRecovery(
    options.watermarkRecovery ?? "replay",
    { action, param: "watermarkRecovery" },
  ) === "persist";
  const errorPolicy = requireErrorPolicy(
    options.errorPolicy ?? "dead-letter",
    { action, param: "errorPolicy" },
  );
  const simulate = optionalBoolean(options.simulate, action, "simulate");
  const allowNonRestoredState = optionalBoolean(
    options.allowNonRestoredState,
    action,
    "allowNonRestoredState",
  ) ?? false;
  return {
    checkpointIntervalMs,
    lastCheckpointId,
    persist,
    errorPolicy,
    simulate,
    allowNonRestoredState,
  };
}

function optionalBoolean(
  value: unknown,
  action: string,
  param: string,
): boolean | undefined {
  if (value === undefined) return undefined;
  return requireBoolean(value, { action, param });
}
