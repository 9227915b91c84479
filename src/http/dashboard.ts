/**
 * The dashboard: one self-contained HTML page with every job's subtasks,
 * watermarks, timeline and checkpoints, kept live by polling the JSON API;
 * and the timeline image it shows.
 *
 * @module
 */

import { Hono } from "hono";
import type { SubtaskStatus } from "../actors/actor_runtime.ts";
import { HttpError } from "./errors.ts";
import {
  type HealthMetric,
  type JobHealth,
  jobHealth,
  type OperatorHealth,
} from "./health.ts";
import type { CheckpointRecord, JobHandle, ServiceOptions } from "./service.ts";
import { renderTimelineSvg } from "./timeline.ts";
import { escapeHtml, formatTime } from "./_html.ts";
import { readDeadLetters } from "./_dead_letters.ts";
import {
  DEAD_LETTER_SCRIPT,
  DEAD_LETTER_STYLE,
  deadLetterPanel,
} from "./_dead_letter_panel.ts";

// The timeline draws at most this many of the latest samples, so a long
// history costs the same as a short one.
const MAX_TIMELINE_SAMPLES = 600;

/**
 * The dashboard page, to mount at `/` (`app.route("/", dashboardRoutes(options))`).
 *
 * `GET /` answers one HTML page with inline CSS and JavaScript and no
 * external resources. It lists the jobs and shows the one named by `?job=`
 * (the first job without it): a table per operator with one row per subtask
 * (input and output watermark as an ISO time and epoch milliseconds,
 * idle/active, lag, records in and out, late records dropped, mailbox
 * depth), a health panel (the job's status badge, and per operator its
 * status, lag, drift, late ratio, windows and the causes the diagnosis
 * names there with their fixes; see `jobHealth` in `health.ts`), a dead
 * letters panel (how many records the error policy set aside, the 5 most
 * recent newest first, a link to `/jobs/:job/dead-letters`), the
 * timeline image (`/jobs/:job/timeline.svg`, see
 * {@linkcode timelineRoute}) and the checkpoint history. The page is
 * complete when served; its script then polls `GET /jobs/:job` every
 * second (reading `operators[].subtasks`, with `±Infinity` sent as
 * strings, as `jobs.ts` answers), `GET /jobs/:job/health` every two
 * seconds, `GET /jobs/:job/checkpoints` every five seconds
 * (`{ checkpoints }`) and reloads the timeline every two, and keeps the
 * values it has when a poll fails.
 *
 * For browser tests, every element showing a watermark has a `data-testid`
 * (`input-watermark`, `output-watermark`) and a `data-value` with the
 * epoch milliseconds (`-Infinity` before the first watermark); rows are
 * `data-testid="subtask-row"` with `data-subtask` set to the actor id, the
 * timeline is `img[data-testid="timeline"]`, the checkpoint table
 * `data-testid="checkpoints"`, the health badge `data-testid="health-status"`
 * with `data-status` (`ok`, `warn`, `bad`), each operator's entry
 * `data-testid="operator-health"` with `data-operator` and `data-status`,
 * each cause `data-testid="diagnosis"` with `data-cause`, the dead-letter
 * count `data-testid="dead-letter-count"` with `data-count`, each letter
 * `data-testid="dead-letter-row"` with `data-reason`, `main` counts
 * successful polls in
 * `data-polls`, and the timeline gets `data-frame` once a reloaded image
 * has been decoded.
 *
 * An unknown `?job=` answers 404 with the page and the job list. The page
 * is read-only, so it needs no token.
 *
 * @param options The service's jobs.
 * @returns A hono app with `GET /`.
 *
 * @example Serving the page
 * ```ts
 * import { Hono } from "hono";
 * import { dashboardRoutes } from "./dashboard.ts";
 * import { ManualClock } from "../time/clock.ts";
 * import assert from "node:assert/strict";
 *
 * const options = { jobs: new Map(), streams: new Map(), clock: new ManualClock() };
 * const app = new Hono().route("/", dashboardRoutes(options));
 * const response = await app.request("/");
 * assert.match(await response.text(), /No jobs are running/);
 * ```
 */
export function dashboardRoutes(options: ServiceOptions): Hono {
  const routes = new Hono();
  routes.get("/", async function dashboard(c) {
    const names = [...options.jobs.keys()];
    const requested = c.req.query("job");
    const name = requested ?? names[0];
    const handle = name === undefined ? undefined : options.jobs.get(name);
    const body = handle === undefined
      ? missing(requested)
      : await jobSection(handle, options.clock.now());
    return c.html(
      page(names, handle?.name ?? null, body, options.clock.now()),
      handle === undefined && requested !== undefined ? 404 : 200,
      { "Cache-Control": "no-store" },
    );
  });
  return routes;
}

/**
 * The timeline image of a job, to mount at `/`
 * (`app.route("/", timelineRoute(options))`): `GET /jobs/:job/timeline.svg`
 * answers `image/svg+xml` drawn by {@linkcode renderTimelineSvg} from the
 * job's latest watermark samples (`JobHandle.history()`, at most 600).
 *
 * It is a separate app because it lives under `/jobs`, next to the JSON
 * API, while the page lives at `/`.
 *
 * @param options The service's jobs.
 * @returns A hono app with `GET /jobs/:job/timeline.svg`.
 * @throws {HttpError} `NOT_FOUND` (404) from the route when no job has that
 * name; the app's `onError` answers it.
 *
 * @example Drawing a job's timeline
 * ```ts ignore
 * const app = new Hono().route("/", timelineRoute(options));
 * app.onError(onError);
 * const response = await app.request("/jobs/clicks/timeline.svg");
 * assert.equal(response.headers.get("Content-Type"), "image/svg+xml; charset=utf-8");
 * ```
 */
export function timelineRoute(options: ServiceOptions): Hono {
  const routes = new Hono();
  routes.get("/jobs/:job/timeline.svg", function timeline(c) {
    const name = c.req.param("job");
    const handle = options.jobs.get(name);
    if (handle === undefined) {
      throw new HttpError(
        "NOT_FOUND",
        `Cannot draw the timeline of job '${name}' as no job of that name is running`,
      );
    }
    const svg = renderTimelineSvg({
      samples: handle.history().slice(-MAX_TIMELINE_SAMPLES),
    });
    return c.body(svg, 200, {
      "Content-Type": "image/svg+xml; charset=utf-8",
      "Cache-Control": "no-store",
    });
  });
  return routes;
}

const COLUMNS = [
  "Subtask",
  "Input watermark",
  "Output watermark",
  "Status",
  "Lag",
  "Records in",
  "Records out",
  "Late records",
  "Mailbox",
];

function missing(requested: string | undefined): string {
  if (requested === undefined) {
    return `<main id="job" data-polls="0"><p data-testid="no-jobs">No jobs are running.</p></main>`;
  }
  return `<main id="job" data-polls="0"><p data-testid="error">No job named &#8220;${
    escapeHtml(requested)
  }&#8221; is running.</p></main>`;
}

async function jobSection(handle: JobHandle, now: number): Promise<string> {
  let checkpoints: CheckpointRecord[] | null;
  try {
    checkpoints = await handle.checkpoints();
  } catch {
    checkpoints = null;
  }
  const job = escapeHtml(handle.name);
  const path = `/jobs/${escapeHtml(encodeURIComponent(handle.name))}`;
  const deadLetters = await readDeadLetters(handle, 5);
  return `<main id="job" data-job="${job}" data-polls="0">
<h2>Job <span data-testid="job-name">${job}</span></h2>
${healthSection(handle, now)}
${deadLetterPanel(deadLetters, path)}
<section>
<h3>Subtasks</h3>
<div id="subtasks" data-testid="subtasks">${
    subtaskTables(
      handle.status(),
      new Map(handle.graph.vertices.map((v) => [v.id, v.name])),
    )
  }</div>
</section>
<section>
<h3>Timeline</h3>
<p class="hint">Processing time across, event time up: one line per subtask&#8217;s output watermark.</p>
<img id="timeline" data-testid="timeline" src="${path}/timeline.svg" alt="Watermarks of job ${job} over processing time" width="800" height="400">
</section>
<section>
<h3>Checkpoints</h3>
<table data-testid="checkpoints">
<thead><tr><th>ID</th><th>Created at</th><th>Duration</th><th>Size</th></tr></thead>
<tbody id="checkpoint-rows">${checkpointRows(checkpoints)}</tbody>
</table>
</section>
</main>`;
}

function healthSection(handle: JobHandle, now: number): string {
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
  return formatDuration(ms);
}

function subtaskTables(
  statuses: readonly SubtaskStatus[],
  names: ReadonlyMap<string, string>,
): string {
  const byOperator = new Map<string, SubtaskStatus[]>();
  for (const status of statuses) {
    const rows = byOperator.get(status.operator) ?? [];
    rows.push(status);
    byOperator.set(status.operator, rows);
  }
  const head = `<thead><tr>${
    COLUMNS.map((c) => `<th>${c}</th>`).join("")
  }</tr></thead>`;
  return [...byOperator].map(([operator, rows]) =>
    `<table class="operator" data-testid="operator-table" data-operator="${
      escapeHtml(operator)
    }">${caption(operator, names.get(operator))}${head}<tbody>${
      rows.map(subtaskRow).join("")
    }</tbody></table>`
  ).join("\n");
}

function caption(operator: string, name: string | undefined): string {
  if (name === undefined || name === operator) {
    return `<caption>${escapeHtml(operator)}</caption>`;
  }
  return `<caption>${escapeHtml(name)} <small>${
    escapeHtml(operator)
  }</small></caption>`;
}

function subtaskRow(s: SubtaskStatus): string {
  const late = s.gauges.numLateRecordsDropped;
  return `<tr data-testid="subtask-row" data-subtask="${escapeHtml(s.id)}">` +
    `<td>${s.subtask}</td>` +
    watermarkCell("input-watermark", s.inputWatermark) +
    watermarkCell("output-watermark", s.outputWatermark) +
    `<td data-testid="subtask-status">${s.idle ? "idle" : "active"}${
      s.paused ? " (paused)" : ""
    }${s.worker ? ` on ${escapeHtml(s.worker)}` : ""}</td>` +
    `<td data-testid="lag">${formatDuration(s.watermarkLagMs)}</td>` +
    `<td class="n">${s.recordsIn}</td><td class="n">${s.recordsOut}</td>` +
    `<td class="n">${late === undefined ? "&#8212;" : late}</td>` +
    `<td class="n">${s.mailboxDepth}</td></tr>`;
}

function watermarkCell(testId: string, ms: number): string {
  return `<td data-testid="${testId}" data-value="${ms}">${
    formatWatermark(ms)
  }</td>`;
}

function checkpointRows(checkpoints: CheckpointRecord[] | null): string {
  if (checkpoints === null) {
    return `<tr><td colspan="4">Checkpoints are unavailable.</td></tr>`;
  }
  if (checkpoints.length === 0) {
    return `<tr><td colspan="4">No checkpoint yet.</td></tr>`;
  }
  // Newest first: the one a restore would use is on top.
  return [...checkpoints].reverse().map((c) =>
    `<tr data-testid="checkpoint-row"><td class="n">${c.id}</td><td>${
      formatTime(c.createdAt)
    }</td><td>${
      c.durationMs === undefined ? "&#8212;" : formatDuration(c.durationMs)
    }</td><td>${
      c.sizeBytes === undefined ? "&#8212;" : formatBytes(c.sizeBytes)
    }</td></tr>`
  ).join("");
}

// These formatters (and formatTime in _html.ts) have twins in SCRIPT below,
// which redraws the same markup from JSON: change both together.
function formatWatermark(ms: number): string {
  if (ms === -Infinity) return `<span class="none">none yet</span>`;
  if (ms === Infinity) return `<span class="none">end of input</span>`;
  if (!Number.isFinite(ms)) return "&#8212;";
  return `${formatTime(ms)}<small>${ms}</small>`;
}

function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return "&#8212;";
  if (Math.abs(ms) < 1_000) return `${Math.round(ms)} ms`;
  return `${(ms / 1_000).toFixed(3)} s`;
}

function formatBytes(n: number): string {
  if (n < 1_024) return `${n} B`;
  if (n < 1_048_576) return `${(n / 1_024).toFixed(1)} KiB`;
  return `${(n / 1_048_576).toFixed(1)} MiB`;
}

function page(
  names: string[],
  current: string | null,
  body: string,
  now: number,
): string {
  const items = names.map((name) =>
    `<li><a href="/?job=${escapeHtml(encodeURIComponent(name))}"${
      name === current ? ` aria-current="page"` : ""
    }>${escapeHtml(name)}</a></li>`
  ).join("");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>weir${current === null ? "" : ` · ${escapeHtml(current)}`}</title>
<style>${STYLE}</style>
</head>
<body>
<header><h1>weir</h1><span id="live" data-testid="live-status">served ${
    formatTime(now)
  }</span></header>
<nav aria-label="Jobs"><h2>Jobs</h2><ul data-testid="job-list">${
    items || "<li>none</li>"
  }</ul></nav>
${body}
<script>${SCRIPT}</script>
</body>
</html>`;
}

const STYLE = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 0; color: #222; background: #fafafa; }
header { display: flex; align-items: baseline; gap: 1rem; padding: .5rem 1rem; background: #1f3a5f; color: #fff; }
header h1 { margin: 0; font-size: 1.3rem; }
#live { font-size: .8rem; opacity: .85; }
nav { padding: .5rem 1rem; border-bottom: 1px solid #ddd; }
nav h2 { display: inline; font-size: .9rem; margin-right: .5rem; }
nav ul { display: inline; list-style: none; padding: 0; margin: 0; }
nav li { display: inline; margin-right: .75rem; }
nav a[aria-current] { font-weight: bold; }
main { padding: 0 1rem 2rem; }
h2 { font-size: 1.2rem; }
h3 { font-size: 1rem; margin: 1.2rem 0 .4rem; }
table { border-collapse: collapse; background: #fff; margin-bottom: .8rem; }
caption { text-align: left; font-weight: 600; padding: .2rem 0; }
th, td { border: 1px solid #ddd; padding: .2rem .5rem; text-align: left; vertical-align: top; }
th { background: #f0f3f7; font-weight: 600; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
td small { display: block; color: #777; font-variant-numeric: tabular-nums; }
td[data-testid$="watermark"] { font-variant-numeric: tabular-nums; white-space: nowrap; }
.none { color: #999; font-style: italic; }
.hint { color: #666; font-size: .85rem; margin: 0 0 .4rem; }
img#timeline { max-width: 100%; height: auto; border: 1px solid #ddd; background: #fff; }
.badge { display: inline-block; padding: 0 .45rem; border-radius: .6rem; font-size: .8rem; font-weight: 600; color: #fff; background: #888; }
.badge.ok { background: #2e7d32; } .badge.warn { background: #b26a00; } .badge.bad { background: #c62828; }
ul.health { list-style: none; padding: 0; margin: 0; }
ul.health > li { margin: .3rem 0; }
ul.health ul { margin: .2rem 0 .4rem 1.2rem; padding: 0; font-size: .9rem; }
.metric.warn { color: #b26a00; font-weight: 600; } .metric.bad { color: #c62828; font-weight: 600; }
${DEAD_LETTER_STYLE}`;

// The page's script. Plain ES5-style JavaScript, no template literals, so
// it can live in this template string; it builds DOM nodes with
// textContent, never from HTML strings, so no job data is parsed as markup.
const SCRIPT = `
(function () {
  "use strict";
  var main = document.getElementById("job");
  if (!main || !main.dataset.job) return;
  var base = "/jobs/" + encodeURIComponent(main.dataset.job);
  var live = document.getElementById("live");
  var COLUMNS = ${JSON.stringify(COLUMNS)};

  function num(v) {
    if (typeof v === "number") return v;
    if (v === "Infinity" || v === "+Infinity") return Infinity;
    if (v === "-Infinity") return -Infinity;
    if (typeof v === "string" && v !== "") {
      var n = Number(v);
      if (!isNaN(n)) return n;
      var t = Date.parse(v);
      if (!isNaN(t)) return t;
    }
    return NaN;
  }
  function el(tag, text, attrs) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = text;
    for (var k in attrs || {}) node.setAttribute(k, attrs[k]);
    return node;
  }
  function time(ms) {
    var d = new Date(ms);
    return isNaN(d.getTime()) ? String(ms) : d.toISOString();
  }
  function duration(ms) {
    if (!isFinite(ms)) return "\\u2014";
    if (Math.abs(ms) < 1000) return Math.round(ms) + " ms";
    return (ms / 1000).toFixed(3) + " s";
  }
  function bytes(n) {
    if (n < 1024) return n + " B";
    if (n < 1048576) return (n / 1024).toFixed(1) + " KiB";
    return (n / 1048576).toFixed(1) + " MiB";
  }
  function watermarkCell(testId, value) {
    var ms = num(value);
    var td = el("td", null, { "data-testid": testId, "data-value": String(ms) });
    if (ms === -Infinity) td.appendChild(el("span", "none yet", { "class": "none" }));
    else if (ms === Infinity) td.appendChild(el("span", "end of input", { "class": "none" }));
    else if (isNaN(ms)) td.textContent = "\\u2014";
    else {
      td.appendChild(document.createTextNode(time(ms)));
      td.appendChild(el("small", String(ms)));
    }
    return td;
  }
  function numberCell(value) {
    return el("td", value === undefined || value === null ? "\\u2014" : String(value), { "class": "n" });
  }
  // GET /jobs/:job answers { operators: [{ id, name, subtasks }] }; a bare
  // list of SubtaskStatus (or { subtasks }) is read too.
  function subtasksOf(body) {
    if (Array.isArray(body)) return body;
    if (!body || typeof body !== "object") return null;
    if (Array.isArray(body.operators)) {
      var list = [];
      body.operators.forEach(function (op) {
        (op.subtasks || []).forEach(function (s) {
          var copy = {};
          for (var k in s) copy[k] = s[k];
          copy.operator = op.id;
          copy.operatorName = op.name;
          list.push(copy);
        });
      });
      return list;
    }
    return Array.isArray(body.subtasks) ? body.subtasks : null;
  }
  function drawSubtasks(list) {
    var groups = [], byOperator = {}, names = {};
    list.forEach(function (s) {
      var operator = s.operator || String(s.id || "").split("/")[1] || "?";
      if (!byOperator[operator]) {
        byOperator[operator] = [];
        groups.push(operator);
      }
      byOperator[operator].push(s);
      if (s.operatorName) names[operator] = String(s.operatorName);
    });
    var container = document.getElementById("subtasks");
    var tables = groups.map(function (operator) {
      var table = el("table", null, { "class": "operator", "data-testid": "operator-table", "data-operator": operator });
      var caption = table.appendChild(el("caption", names[operator] || operator));
      if (names[operator] && names[operator] !== operator) {
        caption.appendChild(document.createTextNode(" "));
        caption.appendChild(el("small", operator));
      }
      var head = el("tr");
      COLUMNS.forEach(function (c) { head.appendChild(el("th", c)); });
      table.appendChild(el("thead")).appendChild(head);
      var body = table.appendChild(el("tbody"));
      byOperator[operator].forEach(function (s) {
        var tr = el("tr", null, { "data-testid": "subtask-row", "data-subtask": String(s.id) });
        tr.appendChild(el("td", String(s.subtask)));
        tr.appendChild(watermarkCell("input-watermark", s.inputWatermark));
        tr.appendChild(watermarkCell("output-watermark", s.outputWatermark));
        tr.appendChild(el("td", (s.idle ? "idle" : "active") + (s.paused ? " (paused)" : "") + (s.worker ? " on " + s.worker : ""), { "data-testid": "subtask-status" }));
        tr.appendChild(el("td", duration(num(s.watermarkLagMs)), { "data-testid": "lag" }));
        tr.appendChild(numberCell(s.recordsIn));
        tr.appendChild(numberCell(s.recordsOut));
        tr.appendChild(numberCell(s.gauges && s.gauges.numLateRecordsDropped));
        tr.appendChild(numberCell(s.mailboxDepth));
        body.appendChild(tr);
      });
      return table;
    });
    container.replaceChildren.apply(container, tables);
  }
  function drawCheckpoints(list) {
    var rows = document.getElementById("checkpoint-rows");
    if (list.length === 0) {
      var empty = el("tr");
      empty.appendChild(el("td", "No checkpoint yet.", { colspan: "4" }));
      rows.replaceChildren(empty);
      return;
    }
    rows.replaceChildren.apply(rows, list.slice().reverse().map(function (c) {
      var tr = el("tr", null, { "data-testid": "checkpoint-row" });
      tr.appendChild(el("td", String(c.id), { "class": "n" }));
      tr.appendChild(el("td", time(num(c.createdAt))));
      tr.appendChild(el("td", c.durationMs === undefined ? "\\u2014" : duration(num(c.durationMs))));
      tr.appendChild(el("td", c.sizeBytes === undefined ? "\\u2014" : bytes(num(c.sizeBytes))));
      return tr;
    }));
  }
  function lag(ms) {
    if (ms === Infinity) return "no watermark yet";
    if (ms === -Infinity) return "ended";
    return duration(ms);
  }
  function fixed(value, digits, suffix) {
    if (value === null || value === undefined) return "\u2014";
    var n = num(value);
    return isNaN(n) ? "\u2014" : n.toFixed(digits) + suffix;
  }
  // GET /jobs/:job/health answers { status, operators, diagnosis }.
  function drawHealth(body) {
    var badge = document.getElementById("health-status");
    var list = document.getElementById("health-operators");
    if (!badge || !list || !body || !Array.isArray(body.operators)) return;
    badge.textContent = String(body.status);
    badge.className = "badge " + body.status;
    badge.setAttribute("data-status", String(body.status));
    var diagnosis = Array.isArray(body.diagnosis) ? body.diagnosis : [];
    list.replaceChildren.apply(list, body.operators.map(function (o) {
      var li = el("li", null, { "data-testid": "operator-health", "data-operator": String(o.operator), "data-status": String(o.status) });
      li.appendChild(el("span", String(o.status), { "class": "badge " + o.status }));
      li.appendChild(document.createTextNode(" "));
      li.appendChild(el("b", String(o.name)));
      li.appendChild(document.createTextNode(" "));
      li.appendChild(el("small", String(o.operator)));
      li.appendChild(document.createTextNode(": "));
      var late = o.lateRecordRatio.value;
      var metrics = [
        ["lag", o.watermarkLagMs, lag(num(o.watermarkLagMs.value))],
        ["drift", o.driftRate, fixed(o.driftRate.value, 2, "")],
        ["late", o.lateRecordRatio, late === null ? "\u2014" : fixed(num(late) * 100, 2, "%")],
        ["windows", o.windows, o.windows.value === null ? "\u2014" : String(o.windows.value)]
      ];
      metrics.forEach(function (m, i) {
        if (i > 0) li.appendChild(document.createTextNode(" \u00b7 "));
        li.appendChild(el("span", m[0] + " " + m[2], { "class": "metric " + m[1].status }));
      });
      var causes = diagnosis.filter(function (d) { return d.operator === o.operator; });
      if (causes.length > 0) {
        var ul = li.appendChild(el("ul"));
        causes.forEach(function (d) {
          var item = ul.appendChild(el("li", null, { "data-testid": "diagnosis", "data-cause": String(d.cause) }));
          item.appendChild(el("b", String(d.cause)));
          item.appendChild(document.createTextNode((d.subtask === undefined ? "" : " (subtask " + d.subtask + ")") + ": " + d.evidence));
          item.appendChild(el("br"));
          item.appendChild(el("em", "Fix:"));
          item.appendChild(document.createTextNode(" " + d.fix));
        });
      }
      return li;
    }));
  }
${DEAD_LETTER_SCRIPT}
  function getJson(path) {
    return fetch(path, { headers: { Accept: "application/json" }, cache: "no-store" })
      .then(function (response) {
        if (!response.ok) throw new Error("HTTP " + response.status);
        return response.json();
      });
  }
  function pollStatus() {
    getJson(base).then(function (body) {
      var list = subtasksOf(body);
      if (!list) throw new Error("unknown response shape");
      drawSubtasks(list);
      drawDeadLetters(body);
      main.dataset.polls = String(Number(main.dataset.polls || "0") + 1);
      live.textContent = "live \\u00b7 updated " + new Date().toISOString();
    }).catch(function (error) {
      live.textContent = "live updates paused: " + error.message;
    }).then(function () { setTimeout(pollStatus, 1000); });
  }
  function pollHealth() {
    getJson(base + "/health").then(drawHealth).catch(function () {})
      .then(function () { setTimeout(pollHealth, 2000); });
  }
  function pollCheckpoints() {
    getJson(base + "/checkpoints").then(function (body) {
      var list = Array.isArray(body) ? body : body && body.checkpoints;
      if (Array.isArray(list)) drawCheckpoints(list);
    }).catch(function () {}).then(function () { setTimeout(pollCheckpoints, 5000); });
  }
  var frame = 0;
  function reloadTimeline() {
    var img = document.getElementById("timeline");
    var next = new Image();
    var n = ++frame;
    // Swapped in only once loaded, so the image never flickers; data-frame
    // tells tests that the browser decoded a reloaded timeline.
    next.onload = function () {
      img.src = next.src;
      img.dataset.frame = String(n);
    };
    next.src = base + "/timeline.svg?frame=" + n;
    setTimeout(reloadTimeline, 2000);
  }
  setTimeout(pollStatus, 1000);
  setTimeout(pollCheckpoints, 5000);
  setTimeout(pollHealth, 2000);
  setTimeout(reloadTimeline, 2000);
})();
`;
