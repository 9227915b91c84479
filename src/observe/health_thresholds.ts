/**
 * When a job's health numbers turn `warn` or `bad`
 * ({@linkcode HealthThresholds}), their defaults, and how long the
 * detectors watch before they call something stuck.
 *
 * @module
 */

/**
 * When a number turns `warn` or `bad`, and how far back trends are read.
 * Every field is optional in `jobHealth`; the defaults are
 * the thresholds of each field's doc.
 */
export interface HealthThresholds {
  /**
   * Watermark lag (processing time − watermark) from which an operator
   * warns, in milliseconds.
   * @default {30000}
   */
  readonly lagWarnMs: number;
  /**
   * Watermark lag from which an operator is bad, in milliseconds.
   * @default {300000}
   */
  readonly lagBadMs: number;
  /**
   * Drift rate (event time per processing time) below which an operator
   * warns; a healthy watermark keeps pace with the clock at about 1.0.
   * @default {0.5}
   */
  readonly driftWarn: number;
  /**
   * Drift rate at or below which an operator is bad: event time stands
   * still.
   * @default {0}
   */
  readonly driftBad: number;
  /**
   * Share of records dropped as late from which an operator warns.
   * @default {0.01}
   */
  readonly lateRatioWarn: number;
  /**
   * Share of records dropped as late from which an operator is bad.
   * @default {0.1}
   */
  readonly lateRatioBad: number;
  /**
   * Open windows (state) from which an operator warns.
   * @default {100000}
   */
  readonly windowsWarn: number;
  /**
   * Open windows from which an operator is bad.
   * @default {1000000}
   */
  readonly windowsBad: number;
  /**
   * How far back the drift rate and the state trends are read, in
   * milliseconds of processing time; at least half of it must be sampled.
   * @default {60000}
   */
  readonly lookbackMs: number;
  /**
   * How long a channel's watermark must stand still to be called stuck, in
   * milliseconds.
   * @default {10000}
   */
  readonly stallMs: number;
}

/** The default {@linkcode HealthThresholds}. */
export const DEFAULT_HEALTH_THRESHOLDS: Readonly<HealthThresholds> = Object
  .freeze({
    lagWarnMs: 30_000,
    lagBadMs: 300_000,
    driftWarn: 0.5,
    driftBad: 0,
    lateRatioWarn: 0.01,
    lateRatioBad: 0.1,
    windowsWarn: 100_000,
    windowsBad: 1_000_000,
    lookbackMs: 60_000,
    stallMs: 10_000,
  });

/**
 * The thresholds with defaults filled in, checked once.
 *
 * @param overrides Overrides of {@linkcode DEFAULT_HEALTH_THRESHOLDS}.
 * @returns Every threshold.
 * @throws {RangeError} If a threshold is negative or not a finite number.
 */
export function checkThresholds(
  overrides: Partial<HealthThresholds>,
): HealthThresholds {
  const limits: Record<string, unknown> = { ...DEFAULT_HEALTH_THRESHOLDS };
  for (const [name, value] of Object.entries(overrides)) {
    if (value !== undefined) limits[name] = value;
  }
  for (const [name, value] of Object.entries(limits)) {
    if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
      throw new RangeError(
        `Cannot compute job health as '${name}' must be a non-negative finite number: current value is ${value}`,
      );
    }
  }
  return limits as unknown as HealthThresholds;
}
