/**
 * The dashboard's health panel, as served; `drawHealth()` in
 * `dashboard.js` redraws the same markup from each poll of
 * `GET /jobs/:job/health`: change both together.
 *
 * @module
 */

import {
  type HealthMetric,
  type JobHealth,
  jobHealth,
  type OperatorHealth,
} from "../health.ts";
import type { JobHandle } from "../job_handle.ts";
import { durationText, escapeHtml } from "./html.ts";

/**
 * The health panel: the job's status badge and, per operator, its status,
 * lag, drift, late ratio, windows and the causes the diagnosis names there
 * with their fixes (`unknown` when the health cannot be computed).
 *
 * @param handle The job.
 * @param now The current processing time, epoch milliseconds.
 * @returns The panel's HTML.
 */
export function healthSection(handle: JobHandle, now: number): string {
  let health: JobHealth | null;
  try {
    health = jobHealth(handle, now);
  } catch {
    health = null;
  }
  const status = health?.status ?? "unknown";
  return `<section data-testid="health">
<h3>Health ${badge("health-status", status)}</h3>
<ul id="health-operators" class="health">${
    health === null
      ? "<li>Health is unavailable.</li>"
      : health.operators.map((o) => operatorHealth(o, health!)).join("")
  }</ul>
</section>`;
}

function badge(testId: string | null, status: string): string {
  const id = testId === null
    ? ""
    : ` id="${testId}" data-testid="${testId}" data-status="${status}"`;
  return `<span class="badge ${status}"${id}>${status}</span>`;
}

function operatorHealth(o: OperatorHealth, health: JobHealth): string {
  const causes = health.diagnosis.filter((d) => d.operator === o.operator);
  const metric = (label: string, m: HealthMetric, text: string) =>
    `<span class="metric ${m.status}">${label} ${text}</span>`;
  const late = o.lateRecordRatio.value;
  const windows = o.windows.value;
  return `<li data-testid="operator-health" data-operator="${
    escapeHtml(o.operator)
  }" data-status="${o.status}">${badge(null, o.status)} <b>${
    escapeHtml(o.name)
  }</b> <small>${escapeHtml(o.operator)}</small>: ${
    [
      metric("lag", o.watermarkLagMs, formatLag(o.watermarkLagMs.value!)),
      metric(
        "drift",
        o.driftRate,
        o.driftRate.value === null ? "&#8212;" : o.driftRate.value.toFixed(2),
      ),
      metric(
        "late",
        o.lateRecordRatio,
        late === null ? "&#8212;" : `${(late * 100).toFixed(2)}%`,
      ),
      metric("windows", o.windows, windows === null ? "&#8212;" : `${windows}`),
    ].join(" · ")
  }${
    causes.length === 0
      ? ""
      : `<ul>${
        causes.map((d) =>
          `<li data-testid="diagnosis" data-cause="${d.cause}"><b>${d.cause}</b>${
            d.subtask === undefined ? "" : ` (subtask ${d.subtask})`
          }: ${escapeHtml(d.evidence)}<br><em>Fix:</em> ${
            escapeHtml(d.fix)
          }</li>`
        ).join("")
      }</ul>`
  }</li>`;
}

function formatLag(ms: number): string {
  if (ms === Infinity) return "no watermark yet";
  if (ms === -Infinity) return "ended";
  return durationText(ms);
}
