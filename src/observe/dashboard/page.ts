/**
 * The dashboard page as served: the job list and the job shown, with its
 * culprit line (what holds event time back), health, dead letters,
 * subtasks, lag chart, timeline and checkpoints. Its styles and
 * script are static files (`dashboard.css`, `dashboard.js`) that the page
 * loads from the service that serves it, never from elsewhere.
 *
 * @module
 */

import type { SubtaskStatus } from "../../actors/actor_runtime.ts";
import type { PartitionState } from "../../runtime/partition_state.ts";
import type { DiagnosableJob } from "../health.ts";
import type { CheckpointRecord, JobHandle } from "../job_handle.ts";
import { checkpointSummaryText } from "./checkpoint_summary.ts";
import { readDeadLetters } from "../dead_letters.ts";
import { culpritHtml, jobCulprit } from "./culprit.ts";
import { deadLetterPanel } from "./dead_letter_panel.ts";
import { healthSection } from "./health_panel.ts";
import { bytesText, durationText, escapeHtml, formatTime } from "./html.ts";
import { subtaskTables } from "./subtask_tables.ts";

/**
 * The whole page: the list of `jobs` and the one named `requested` (the
 * first job without it), or a note that it is not running.
 *
 * @param jobs The running jobs by name.
 * @param requested The job asked for (`?job=`), if any.
 * @param now The current processing time, epoch milliseconds.
 * @returns The page's HTML.
 */
export async function dashboardPage(
  jobs: ReadonlyMap<string, JobHandle>,
  requested: string | undefined,
  now: number,
): Promise<string> {
  const names = [...jobs.keys()];
  const name = requested ?? names[0];
  const handle = name === undefined ? undefined : jobs.get(name);
  const body = handle === undefined
    ? missing(requested)
    : await jobSection(handle, now);
  return page(names, handle?.name ?? null, body, now);
}

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
${culpritSection(handle, now)}
${healthSection(handle, now)}
${deadLetterPanel(deadLetters, path)}
<section>
<h3>Subtasks</h3>
<p class="hint">The highlighted row holds its operator&#8217;s watermark back (the lowest of its active subtasks).</p>
<div id="subtasks" data-testid="subtasks">${
    subtaskTables(
      handle.status(),
      new Map(handle.graph.vertices.map((v) => [v.id, v.name])),
      (id) => (handle as DiagnosableJob).sourcePartitions?.(id) ?? [],
      partitionStates(handle),
    )
  }</div>
</section>
<section>
<h3>Lag</h3>
<p class="hint">How far each subtask&#8217;s watermark is behind processing time: a line that climbs is a stall; shaded spans are idle.</p>
<img id="lag-chart" data-testid="lag-chart" src="${path}/lag.svg" class="chart" alt="Watermark lag of job ${job} over processing time" width="800" height="300">
</section>
<section>
<h3>Timeline</h3>
<p class="hint">Processing time across, event time up: one line per subtask&#8217;s output watermark.</p>
<img id="timeline" data-testid="timeline" src="${path}/timeline.svg" class="chart" alt="Watermarks of job ${job} over processing time" width="800" height="400">
</section>
<section>
<h3>Checkpoints</h3>
<p id="checkpoint-summary" class="hint" data-testid="checkpoint-summary">${
    escapeHtml(checkpointSummaryText(handle.checkpointStats?.()))
  }</p>
<div class="scroll">
<table data-testid="checkpoints">
<thead><tr><th>ID</th><th>Created at</th><th>Duration</th><th>Size</th></tr></thead>
<tbody id="checkpoint-rows">${checkpointRows(checkpoints)}</tbody>
</table>
</div>
</section>
</main>`;
}

/** A source subtask's partitions, or `null` when the runtime cannot know them. */
function partitionStates(
  handle: JobHandle,
): (status: SubtaskStatus) => readonly PartitionState[] | null {
  const sources = new Set(
    handle.graph.vertices.filter((v) => v.source !== undefined).map((v) =>
      v.id
    ),
  );
  return (status) => {
    if (!sources.has(status.operator)) return [];
    return handle.sourcePartitionStates?.(status.id) ?? null;
  };
}

function culpritSection(handle: JobHandle, now: number): string {
  try {
    return `<section data-testid="summary">${
      culpritHtml(jobCulprit(handle, now))
    }</section>`;
  } catch {
    return `<section data-testid="summary"><div class="culprit" id="culprit-box"><p id="culprit" data-testid="culprit" data-cause="unknown">What holds event time back is unavailable.</p></div></section>`;
  }
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
      c.durationMs === undefined ? "&#8212;" : durationText(c.durationMs)
    }</td><td>${
      c.sizeBytes === undefined ? "&#8212;" : bytesText(c.sizeBytes)
    }</td></tr>`
  ).join("");
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
<link rel="stylesheet" href="/dashboard.css">
</head>
<body>
<header><h1>weir</h1><span id="live" data-testid="live-status">served ${
    formatTime(now)
  }</span></header>
<nav aria-label="Jobs"><h2>Jobs</h2><ul data-testid="job-list">${
    items || "<li>none</li>"
  }</ul></nav>
${body}
<script src="/dashboard.js"></script>
<script src="/dashboard_live.js"></script>
</body>
</html>`;
}
