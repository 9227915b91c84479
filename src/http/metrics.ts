/**
 * `/metrics`: every job's subtasks in the Prometheus text exposition format.
 *
 * @module
 */

import { Hono } from "hono";
import { prometheusText } from "../observe/prometheus.ts";
import type { ServiceOptions } from "./service.ts";

/**
 * The route `/metrics`, to mount with `app.route("/metrics",
 * metricsRoutes(options))`: `GET /metrics` answers every job in the
 * Prometheus text exposition format (version 0.0.4).
 *
 * Names and units follow Prometheus's conventions (base units: seconds,
 * bytes; counters end in `_total`), and `promtool check metrics` passes on
 * the output. Every sample is labelled `job_name` (a scrape rewrites a
 * `job` label to `exported_job`).
 *
 * Per subtask, labelled `job_name`, `operator` and `subtask`:
 * `weir_subtask_input_watermark_seconds` and `..._output_watermark_seconds`
 * (seconds since the epoch), `weir_subtask_watermark_lag_seconds`,
 * `weir_subtask_idle` and `weir_subtask_paused` (0 or 1),
 * `weir_subtask_back_pressured_seconds_total` (time seen paused, sampled at
 * each scrape), `weir_subtask_pending_records` (the mailbox depth),
 * `weir_subtask_records_in_total`, `..._records_out_total` and
 * `weir_subtask_late_records_dropped_total` (window subtasks only); and
 * each gauge the subtask's operators or generators registered, under a
 * name of its own (`numWindows` as `weir_subtask_windows`,
 * `latenessP95Ms` as `weir_subtask_lateness_p95_seconds`: see
 * `gaugeMetric` in `observe/prometheus_gauges.ts`).
 *
 * Per job, labelled `job_name`: `weir_checkpoint_duration_seconds` and
 * `weir_checkpoint_size_bytes` of the last checkpoint for which they are
 * known, `weir_checkpoints_retained` (those listed now),
 * `weir_checkpoints_completed_total` and `weir_checkpoints_failed_total`
 * (counted by id from the first scrape: see `ScrapeMemory` in
 * `observe/prometheus_memory.ts`), and `weir_dead_letters_total`, the
 * records the job's error policy set aside (the letters its dead-letter
 * log holds; left out for a job that keeps no log or whose log could not
 * be read).
 *
 * Health (see `jobHealth` in `observe/health.ts`, default thresholds): per
 * operator, `weir_operator_health{job_name,operator,metric}` is 0 (ok), 1
 * (warn) or 2 (bad) for each `metric` of `watermark_lag`, `drift_rate`,
 * `late_record_ratio` and `state_size`, with the raw values
 * `weir_operator_watermark_lag_seconds`,
 * `weir_operator_watermark_drift_ratio`, `weir_operator_late_record_ratio`
 * and `weir_operator_windows` (each left out while unknown); per job,
 * `weir_job_health{job_name}` (the worst operator) and
 * `weir_job_diagnoses{job_name,operator,cause}`: how many diagnoses name
 * that cause at that operator (one per subtask concerned).
 *
 * Watermarks of `-Infinity` and `Infinity` are written `-Inf` and `+Inf`,
 * which Prometheus reads as floats. Label values escape `\`, `"` and line
 * feeds. The route is read-only and needs no token.
 *
 * @param options The jobs.
 * @returns The sub-app.
 *
 * @example Scraping
 * ```ts ignore
 * const app = new Hono().route("/metrics", metricsRoutes(options));
 * const text = await (await app.request("/metrics")).text();
 * ```
 */
export function metricsRoutes(options: ServiceOptions): Hono {
  const routes = new Hono();
  routes.get("/", async function scrape() {
    const text = await prometheusText(
      options.jobs.values(),
      options.clock.now(),
    );
    return new Response(text, {
      headers: { "Content-Type": "text/plain; version=0.0.4; charset=utf-8" },
    });
  });
  return routes;
}
