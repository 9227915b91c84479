/**
 * The dashboard's "Dead letters" panel: how many records the job's error
 * policy set aside, and the most recent of them (operator, position,
 * reason, error), with a link to `GET /jobs/:job/dead-letters`.
 *
 * The page renders it with {@linkcode deadLetterPanel}; its script redraws
 * it with `drawDeadLetters(body)` ({@linkcode DEAD_LETTER_SCRIPT}) from each
 * poll of `GET /jobs/:job`. Both draw the same markup: change them together.
 *
 * @module
 */

import type { DeadLetterBrief, DeadLetterSummary } from "./_dead_letters.ts";
import { escapeHtml, formatTime } from "./_html.ts";

const COLUMNS = ["Set aside at", "Operator", "Position", "Reason", "Error"];

/** The panel's CSS, for the page's `<style>`. */
export const DEAD_LETTER_STYLE = `
.dead-letters td { overflow-wrap: anywhere; }
.dead-letters h3 a { font-size: .8rem; font-weight: normal; margin-left: .5rem; }
`;

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

/**
 * The panel's part of the page's script (ES5, no template literals): it
 * defines `drawDeadLetters(body)`, which redraws the panel from a
 * `GET /jobs/:job` body (`deadLetters`, `recentDeadLetters` oldest first)
 * and keeps it as it is when the body has no count. It uses the script's
 * `el`, `num` and `time`.
 */
export const DEAD_LETTER_SCRIPT = `
  var DEAD_LETTER_COLUMNS = ${JSON.stringify(COLUMNS)};
  function drawDeadLetters(body) {
    var badge = document.getElementById("dead-letter-count");
    var list = document.getElementById("dead-letter-list");
    if (!badge || !list || !body || typeof body.deadLetters !== "number") return;
    var count = body.deadLetters;
    badge.textContent = count === 0 ? "none" : String(count);
    badge.className = "badge " + (count === 0 ? "ok" : "bad");
    badge.setAttribute("data-count", String(count));
    var recent = Array.isArray(body.recentDeadLetters) ? body.recentDeadLetters.slice().reverse() : [];
    if (recent.length === 0) return list.replaceChildren();
    var table = el("table", null, { "data-testid": "dead-letter-table" });
    var head = el("tr");
    DEAD_LETTER_COLUMNS.forEach(function (c) { head.appendChild(el("th", c)); });
    table.appendChild(el("thead")).appendChild(head);
    var rows = table.appendChild(el("tbody"));
    recent.forEach(function (l) {
      var tr = rows.appendChild(el("tr", null, { "data-testid": "dead-letter-row", "data-reason": String(l.reason) }));
      tr.appendChild(el("td", time(num(l.at))));
      tr.appendChild(el("td", String(l.operator))).appendChild(el("small", "subtask " + l.subtask));
      tr.appendChild(el("td", String(l.position)));
      tr.appendChild(el("td", String(l.reason)));
      var error = tr.appendChild(el("td"));
      error.appendChild(el("b", String(l.error && l.error.name)));
      error.appendChild(document.createTextNode(": " + String(l.error && l.error.message)));
    });
    var hint = recent.length < count
      ? "The " + recent.length + " most recent of " + count + ", newest first."
      : "Newest first.";
    list.replaceChildren(el("p", hint, { "class": "hint" }), table);
  }
`;
