/**
 * The dashboard's "Dead letters" panel: how many records the job's error
 * policy set aside, and the most recent of them (operator, position,
 * reason, error), with a link to `GET /jobs/:job/dead-letters`.
 *
 * The page renders it with {@linkcode deadLetterPanel}; its script redraws
 * it with `drawDeadLetters(body)` (in `dashboard.js`) from each poll of
 * `GET /jobs/:job`. Both draw the same markup: change them together.
 *
 * @module
 */

import type { DeadLetterBrief, DeadLetterSummary } from "../dead_letters.ts";
import { escapeHtml, formatTime } from "./html.ts";

const COLUMNS = ["Set aside at", "Operator", "Position", "Reason", "Error"];

/**
 * The panel as served: a badge with the count (`none` when the log is
 * empty, `unavailable` without a readable log) and, when there are
 * letters, the most recent of them, newest first.
 *
 * @param summary The job's dead letters (`readDeadLetters`), or `null`.
 * @param jobPath The job's escaped URL path, `/jobs/<job>`.
 * @returns The panel's HTML.
 */
export function deadLetterPanel(
  summary: DeadLetterSummary | null,
  jobPath: string,
): string {
  const count = summary?.count ?? null;
  const [status, text] = count === null
    ? ["unknown", "unavailable"]
    : count === 0
    ? ["ok", "none"]
    : ["bad", String(count)];
  return `<section class="dead-letters" data-testid="dead-letters">
<h3>Dead letters <span id="dead-letter-count" class="badge ${status}" data-testid="dead-letter-count" data-count="${
    count ?? ""
  }">${text}</span><a href="${jobPath}/dead-letters" data-testid="dead-letter-link">all, as JSON</a></h3>
<div id="dead-letter-list">${
    summary === null ? "" : letterTable(summary.recent, summary.count)
  }</div>
</section>`;
}

function letterTable(
  recent: readonly DeadLetterBrief[],
  count: number,
): string {
  if (recent.length === 0) return "";
  const head = COLUMNS.map((c) => `<th>${c}</th>`).join("");
  const rows = [...recent].reverse().map((l) =>
    `<tr data-testid="dead-letter-row" data-reason="${
      escapeHtml(l.reason)
    }"><td>${formatTime(l.at)}</td><td>${
      escapeHtml(l.operator)
    }<small>subtask ${l.subtask}</small></td><td>${
      escapeHtml(l.position)
    }</td><td>${escapeHtml(l.reason)}</td><td><b>${
      escapeHtml(l.error.name)
    }</b>: ${escapeHtml(l.error.message)}</td></tr>`
  ).join("");
  return `<p class="hint">${
    hint(recent.length, count)
  }</p><table data-testid="dead-letter-table"><thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table>`;
}

function hint(shown: number, count: number): string {
  return shown < count
    ? `The ${shown} most recent of ${count}, newest first.`
    : "Newest first.";
}
