// The checks of a stream environment's options, in the order their errors
// take precedence, and the empty plan they give.

import {
  requireNonEmptyString,
  requireNonNegativeInteger,
  requirePositiveInteger,
  requireWatermarkRecovery,
} from "../time/validate.ts";
import { DEFAULT_MAX_PARALLELISM } from "../runtime/key_groups.ts";
import type { ErrorPolicy } from "../runtime/dead_letter.ts";
import {
  DEFAULT_ERROR_POLICY,
  requireErrorPolicy,
} from "../runtime/dead_letter.ts";
import { CheckpointStore } from "../actors/checkpoint_store.ts";
import type { Plan } from "./_plan.ts";
import type { StreamEnvironmentOptions } from "./stream_environment_options.ts";

/** A stream environment's options, checked and with their defaults. */
export interface CheckedEnvironmentOptions {
  /** The job's empty plan. */
  readonly plan: Plan;
  readonly parallelism: number;
  readonly checkpointIntervalMs: number;
  readonly watermarkRecovery: "persist" | "replay";
  readonly checkpoints: CheckpointStore | null;
  readonly errorPolicy: ErrorPolicy;
}

/**
 * Checks the options of a stream environment.
 *
 * @throws {RangeError} If a number is out of range.
 * @throws {TypeError} If `jobName` is not a string.
 */
export function checkEnvironmentOptions(
  options: StreamEnvironmentOptions,
): CheckedEnvironmentOptions {
  const action = "create StreamEnvironment";
  const maxParallelism = requirePositiveInteger(
    options.maxParallelism ?? DEFAULT_MAX_PARALLELISM,
    { action, param: "maxParallelism" },
  );
  const parallelism = requirePositiveInteger(options.parallelism ?? 1, {
    action,
    param: "parallelism",
  });
  if (parallelism > maxParallelism) {
    throw new RangeError(
      `Cannot ${action} as 'parallelism' must be at most maxParallelism ${maxParallelism}: current value is ${parallelism}`,
    );
  }
  const plan: Plan = {
    jobName: requireNonEmptyString(options.jobName, {
      action,
      param: "jobName",
    }),
    nodes: [],
    maxParallelism,
    autoWatermarkIntervalMs: requireNonNegativeInteger(
      options.autoWatermarkIntervalMs ?? 200,
      { action, param: "autoWatermarkIntervalMs" },
    ),
    counter: 0,
  };
  const checkpointIntervalMs = requireNonNegativeInteger(
    options.checkpointIntervalMs ?? 0,
    { action, param: "checkpointIntervalMs" },
  );
  const watermarkRecovery = requireWatermarkRecovery(
    options.watermarkRecovery ?? "replay",
    { action, param: "watermarkRecovery" },
  );
  const checkpoints = options.checkpointStorage
    ? new CheckpointStore(options.checkpointStorage, {
      retain: options.retainedCheckpoints ?? 3,
    })
    : null;
  const errorPolicy = requireErrorPolicy(
    options.errorPolicy ?? DEFAULT_ERROR_POLICY,
    { action, param: "errorPolicy" },
  );
  return {
    plan,
    parallelism,
    checkpointIntervalMs,
    watermarkRecovery,
    checkpoints,
    errorPolicy,
  };
}
