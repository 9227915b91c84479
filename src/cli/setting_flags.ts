/**
 * The command line's flags for a job's settings (`--parallelism`,
 * `--checkpoint-interval-ms`, `--watermark-recovery`, `--error-policy`):
 * read from the arguments, given again to the worker processes a
 * supervisor starts, and refused by the modes whose job has settings of
 * its own.
 *
 * @module
 */

import type { JobSettings } from "../api/job_settings.ts";
import { ERROR_POLICIES, type ErrorPolicy } from "../runtime/dead_letter.ts";
import { DEFAULT_MAX_PARALLELISM } from "../runtime/key_groups.ts";

/** The command-line flags that give `settings` again (for worker processes). */
export function settingFlags(settings: JobSettings): string[] {
  const flags: string[] = [];
  if (settings.parallelism !== undefined) {
    flags.push("--parallelism", String(settings.parallelism));
  }
  if (settings.checkpointIntervalMs !== undefined) {
    flags.push(
      "--checkpoint-interval-ms",
      String(settings.checkpointIntervalMs),
    );
  }
  if (settings.watermarkRecovery !== undefined) {
    flags.push("--watermark-recovery", settings.watermarkRecovery);
  }
  if (settings.errorPolicy !== undefined) {
    flags.push("--error-policy", settings.errorPolicy);
  }
  return flags;
}

/** Reads the settings flags; the job file's settings stay where none is given. */
export function parseSettingFlags(values: {
  parallelism?: string;
  "checkpoint-interval-ms"?: string;
  "watermark-recovery"?: string;
  "error-policy"?: string;
}): JobSettings {
  // Checked here as the environment would, so the error names the flag
  // rather than the setting (the job runs at the default maxParallelism).
  const number = (
    flag: string,
    value: string | undefined,
    min: number,
    max: number,
    rule: string,
  ) => {
    if (value === undefined) return undefined;
    const n = Number(value);
    if (value.trim() === "" || !Number.isSafeInteger(n) || n < min || n > max) {
      throw new RangeError(
        `Cannot start as '--${flag}' must be ${rule}: current value is ${value}`,
      );
    }
    return n;
  };
  const recovery = values["watermark-recovery"];
  if (
    recovery !== undefined && recovery !== "persist" && recovery !== "replay"
  ) {
    throw new RangeError(
      `Cannot start as '--watermark-recovery' must be persist or replay: current value is ${recovery}`,
    );
  }
  const policy = values["error-policy"];
  if (
    policy !== undefined &&
    !(ERROR_POLICIES as readonly string[]).includes(policy)
  ) {
    throw new RangeError(
      `Cannot start as '--error-policy' must be ${
        ERROR_POLICIES.join(" or ")
      }: current value is ${policy}`,
    );
  }
  return {
    parallelism: number(
      "parallelism",
      values.parallelism,
      1,
      DEFAULT_MAX_PARALLELISM,
      `an integer from 1 to ${DEFAULT_MAX_PARALLELISM}`,
    ),
    checkpointIntervalMs: number(
      "checkpoint-interval-ms",
      values["checkpoint-interval-ms"],
      0,
      Number.MAX_SAFE_INTEGER,
      "a non-negative integer",
    ),
    watermarkRecovery: recovery,
    errorPolicy: policy as ErrorPolicy | undefined,
  };
}

/**
 * Refuses the settings flags in a mode whose job has settings of its own
 * (`demo`, `durable`): a flag that would be silently ignored is an error,
 * naming it.
 *
 * @param values The flags as parsed.
 * @param mode The mode, e.g. `"demo"`.
 * @throws {RangeError} If a settings flag is given: the first one.
 */
export function refuseSettingFlags(
  values: {
    parallelism?: string;
    "checkpoint-interval-ms"?: string;
    "watermark-recovery"?: string;
    "error-policy"?: string;
  },
  mode: string,
): void {
  const flags = [
    "parallelism",
    "checkpoint-interval-ms",
    "watermark-recovery",
    "error-policy",
  ] as const;
  for (const flag of flags) {
    const value = values[flag];
    if (value === undefined) continue;
    throw new RangeError(
      `Cannot start as '--${flag}' does not apply to the ${mode} mode: current value is ${value} (its job has settings of its own; give a job file to choose them)`,
    );
  }
}
