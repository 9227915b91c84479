/**
 * The health families of `/metrics`: `jobHealth`'s verdicts and the raw
 * values behind them, per operator and per job.
 *
 * @module
 */

import { healthRank, type JobHealth, jobHealth } from "./health.ts";
import type { JobHandle } from "./job_handle.ts";
import { family, type MetricFamily } from "./prometheus_exposition.ts";

/**
 * The health families, empty, in the order they are written: fill them
 * with {@linkcode addHealth}.
 *
 * @returns The families.
 */
export function healthFamilies(): MetricFamily[] {
  return [
    family(
      "weir_operator_health",
      "gauge",
      "Health of an operator's metric: 0 ok, 1 warn, 2 bad",
    ),
    family(
      "weir_operator_watermark_lag_seconds",
      "gauge",
      "Processing time minus the operator's lowest active output watermark, seconds",
    ),
    family(
      "weir_operator_watermark_drift_ratio",
      "gauge",
      "Watermark advance per unit of processing time over the last minute (about 1 when healthy)",
    ),
    family(
      "weir_operator_late_record_ratio",
      "gauge",
      "Records dropped as late over records received by the operator",
    ),
    family(
      "weir_operator_windows",
      "gauge",
      "Open windows (numWindows) of the operator",
    ),
    family(
      "weir_job_health",
      "gauge",
      "Health of the job (its worst operator): 0 ok, 1 warn, 2 bad",
    ),
    family(
      "weir_job_diagnoses",
      "gauge",
      "How many diagnoses name a cause at an operator (subtasks count apart)",
    ),
  ];
}

/**
 * Adds one job's health to the families of {@linkcode healthFamilies}.
 *
 * @param families The families, as `healthFamilies()` made them.
 * @param health The job's health.
 */
export function addHealth(families: MetricFamily[], health: JobHealth): void {
  const [status, lag, drift, late, windows, job, diagnosis] = families;
  for (const o of health.operators) {
    const labels = { job_name: health.job, operator: o.operator };
    const metrics = [
      ["watermark_lag", o.watermarkLagMs, lag, 0.001],
      ["drift_rate", o.driftRate, drift, 1],
      ["late_record_ratio", o.lateRecordRatio, late, 1],
      ["state_size", o.windows, windows, 1],
    ] as const;
    for (const [metric, { value, status: s }, raw, scale] of metrics) {
      status.samples.push([{ ...labels, metric }, healthRank(s)]);
      if (value !== null) raw.samples.push([labels, value * scale]);
    }
  }
  job.samples.push([{ job_name: health.job }, healthRank(health.status)]);
  // One series per operator and cause: two subtasks with the same cause
  // count 2 (a repeated label set is invalid exposition).
  const counts = new Map<string, [Record<string, string>, number]>();
  for (const d of health.diagnosis) {
    const key = JSON.stringify([d.operator, d.cause]);
    const entry = counts.get(key) ??
      [{ job_name: health.job, operator: d.operator, cause: d.cause }, 0];
    entry[1]++;
    counts.set(key, entry);
  }
  diagnosis.samples.push(...counts.values());
}

/**
 * A job's health; a handle that fails leaves it out of one scrape (logged).
 *
 * @param handle The job.
 * @param now Processing time, epoch milliseconds.
 * @returns The health, or `null`.
 */
export function healthOf(handle: JobHandle, now: number): JobHealth | null {
  try {
    return jobHealth(handle, now);
  } catch (error) {
    console.error(
      `weir http: metrics could not compute the health of job '${handle.name}':`,
      error,
    );
    return null;
  }
}
