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
 * Per subtask, labelled `job`, `operator` and `subtask`: input and output
 * watermark (`weir_subtask_input_watermark_ms`, `..._output_watermark_ms`),
 * `weir_subtask_watermark_lag_ms`, `weir_subtask_idle` and
 * `weir_subtask_paused` (0 or 1), `weir_subtask_records_in_total`,
 * `..._records_out_total`, `weir_subtask_late_records_dropped_total` (window
 * subtasks only) and `weir_subtask_mailbox_depth`; per job,
 * `weir_checkpoint_duration_ms` of the last checkpoint whose duration is
 * known, `weir_checkpoints_completed` (those listed) and
 * `weir_dead_letters_total`, the records the job's error policy set aside
 * (the letters its dead-letter log holds; left out for a job that keeps no
 * log or whose log could not be read); and every gauge a subtask
 * registered as `weir_gauge{job,operator,subtask,name}`.
 *
 * Health (see `jobHealth` in `observe/health.ts`, default thresholds): per
 * operator, `weir_operator_health{job,operator,metric}` is 0 (ok), 1 (warn)
 * or 2 (bad) for each `metric` of `watermark_lag`, `drift_rate`,
 * `late_record_ratio` and `state_size`, with the raw values
 * `weir_operator_watermark_lag_ms`, `weir_operator_watermark_drift_rate`,
 * `weir_operator_late_record_ratio` and `weir_operator_windows` (each
 * left out while unknown); per job, `weir_job_health{job}` (the worst
 * operator) and `weir_job_diagnosis{job,operator,cause}`: how many
 * diagnoses name that cause at that operator (one per subtask concerned).
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
