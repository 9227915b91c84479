/**
 * {@linkcode JobSettings}: what a job file decides about how it runs, and
 * how the command line's flags override it.
 *
 * @module
 */

import {
  describeValue,
  requireNonNegativeInteger,
  requirePositiveInteger,
  requireWatermarkRecovery,
} from "../time/validate.ts";
import type { ErrorPolicy } from "../runtime/dead_letter.ts";
import {
  DEFAULT_ERROR_POLICY,
  requireErrorPolicy,
} from "../runtime/dead_letter.ts";

/**
 * How a job runs, set by its job file (`export const settings = {...}`)
 * and overridden, one by one, by the command line's flags
 * (`--parallelism`, `--checkpoint-interval-ms`, `--watermark-recovery`,
 * `--error-policy`).
 *
 * @example A job file that keeps event time across restores
 * ```ts ignore
 * import type { JobContext, JobSettings } from "@weir/weir";
 *
 * export const settings: JobSettings = { parallelism: 4, watermarkRecovery: "persist" };
 * export default function job({ env }: JobContext): void { ... }
 * ```
 */
export interface JobSettings {
  /**
   * The default parallelism of the job's operators.
   * @default {1}
   */
  readonly parallelism?: number;
  /**
   * Processing time between checkpoints; 0 disables periodic checkpoints
   * (Ctrl-C still takes a final one).
   * @default {1000}
   */
  readonly checkpointIntervalMs?: number;
  /**
   * What happens to event time on a restore (see `StreamEnvironmentOptions`).
   * @default {"replay"}
   */
  readonly watermarkRecovery?: "persist" | "replay";
  /**
   * What happens to a record whose processing throws: `"dead-letter"`
   * sets it aside in the job's dead-letter log and goes on, `"fail"`
   * restarts from the last checkpoint and quarantines the record if it
   * fails again (see `StreamEnvironmentOptions`).
   * @default {"dead-letter"}
   */
  readonly errorPolicy?: ErrorPolicy;
}

/** Where a setting came from. */
export type SettingOrigin = "job file" | "command line" | "default";

/** The settings a job runs with, each with where it came from. */
export interface ResolvedJobSettings {
  /** The job's default parallelism. */
  readonly parallelism: number;
  /** Processing time between checkpoints. */
  readonly checkpointIntervalMs: number;
  /** What happens to event time on a restore. */
  readonly watermarkRecovery: "persist" | "replay";
  /** What happens to a record whose processing throws. */
  readonly errorPolicy: ErrorPolicy;
  /** Where each came from. */
  readonly origins: Readonly<Record<keyof JobSettings, SettingOrigin>>;
}

const DEFAULTS: Required<JobSettings> = {
  parallelism: 1,
  checkpointIntervalMs: 1_000,
  watermarkRecovery: "replay",
  errorPolicy: DEFAULT_ERROR_POLICY,
};

/** Options of {@linkcode resolveJobSettings}. */
export interface ResolveJobSettingsOptions {
  /** The settings given on the command line. */
  readonly flags?: JobSettings;
  /**
   * The job file, for errors.
   * @default {"the job"}
   */
  readonly jobFile?: string;
}

/**
 * Resolves the settings a job runs with: a flag given on the command line
 * wins over the job file's setting, which wins over the default.
 *
 * @param file The job file's `settings` export (`undefined` if none).
 * @param options The command line's flags, and the job file's name.
 * @returns The settings and their origins.
 * @throws {TypeError} If the job file's `settings` is not an object, or
 * names a setting that does not exist (it is refused, never ignored).
 * @throws {RangeError} If a setting is out of range.
 *
 * @example
 * ```ts
 * import { resolveJobSettings } from "./job_settings.ts";
 * import assert from "node:assert/strict";
 *
 * const resolved = resolveJobSettings({ parallelism: 4 }, { flags: { parallelism: 2 } });
 * assert.equal(resolved.parallelism, 2);
 * assert.equal(resolved.origins.parallelism, "command line");
 * assert.equal(resolved.watermarkRecovery, "replay");
 * ```
 */
export function resolveJobSettings(
  file: unknown,
  options: ResolveJobSettingsOptions = {},
): ResolvedJobSettings {
  const flags = options.flags ?? {};
  const action = options.jobFile === undefined
    ? "run the job"
    : `run the job file '${options.jobFile}'`;
  if (file !== undefined && (typeof file !== "object" || file === null)) {
    throw new TypeError(
      `Cannot ${action} as its 'settings' export must be an object: current value is ${
        describeValue(file)
      }`,
    );
  }
  const own = (file ?? {}) as Record<string, unknown>;
  for (const key of Object.keys(own)) {
    if (!(key in DEFAULTS)) {
      throw new TypeError(
        `Cannot ${action} as 'settings.${key}' must be one of ${
          Object.keys(DEFAULTS).join(", ")
        }: current value is ${describeValue(own[key])}`,
      );
    }
  }
  const origins = {} as Record<keyof JobSettings, SettingOrigin>;
  const pick = <K extends keyof JobSettings>(key: K): unknown => {
    if (flags[key] !== undefined) {
      origins[key] = "command line";
      return flags[key];
    }
    if (own[key] !== undefined) {
      origins[key] = "job file";
      return own[key];
    }
    origins[key] = "default";
    return DEFAULTS[key];
  };
  const param = (key: keyof JobSettings) =>
    origins[key] === "job file" ? `settings.${key}` : key;
  const parallelism = requirePositiveInteger(pick("parallelism"), {
    action,
    param: param("parallelism"),
  });
  const checkpointIntervalMs = requireNonNegativeInteger(
    pick("checkpointIntervalMs"),
    { action, param: param("checkpointIntervalMs") },
  );
  const watermarkRecovery = requireWatermarkRecovery(
    pick("watermarkRecovery"),
    { action, param: param("watermarkRecovery") },
  );
  const errorPolicy = requireErrorPolicy(pick("errorPolicy"), {
    action,
    param: param("errorPolicy"),
  });
  return {
    parallelism,
    checkpointIntervalMs,
    watermarkRecovery,
    errorPolicy,
    origins,
  };
}

/**
 * One line saying what a job runs with and where each setting came from,
 * as the command line prints it at start.
 *
 * @param settings Resolved settings.
 * @returns E.g. `parallelism 2 (job file), checkpoints every 1000 ms
 * (default), watermarkRecovery "replay" (default), errorPolicy
 * "dead-letter" (default)`.
 */
export function describeJobSettings(settings: ResolvedJobSettings): string {
  const { origins } = settings;
  const every = settings.checkpointIntervalMs === 0
    ? "no periodic checkpoints"
    : `checkpoints every ${settings.checkpointIntervalMs} ms`;
  return [
    `parallelism ${settings.parallelism} (${origins.parallelism})`,
    `${every} (${origins.checkpointIntervalMs})`,
    `watermarkRecovery "${settings.watermarkRecovery}" (${origins.watermarkRecovery})`,
    `errorPolicy "${settings.errorPolicy}" (${origins.errorPolicy})`,
  ].join(", ");
}
