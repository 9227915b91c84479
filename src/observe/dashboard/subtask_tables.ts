/**
 * The dashboard's subtask tables, as served; `drawSubtasks()` in
 * `dashboard.js` redraws the same markup from each poll of
 * `GET /jobs/:job`: change both together. The partitions under a source
 * subtask come with the served page only, and the script keeps them.
 *
 * @module
 */

import type { SubtaskStatus } from "../../actors/actor_runtime.ts";
import type { PartitionState } from "../../runtime/partition_state.ts";
import { holdingPartition } from "./culprit.ts";
import { durationText, escapeHtml, watermarkHtml } from "./html.ts";

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

/**
 * One table per operator, one row per subtask: input and output
 * watermark, status, lag, records in and out, late records, mailbox.
 *
 * @param statuses Every subtask's status, grouped by operator in order.
 * @param names Each operator's readable name, by vertex id.
 * @param partitions The partitions a source subtask reads, by actor id.
 * @param states Each partition of a source subtask with its status and
 * watermark, listed under it (the one holding it back highlighted); `[]`
 * for other subtasks, `null` for a source subtask whose partitions' states
 * are not known (a KV runtime).
 * @returns The tables' HTML, each in a horizontal scroll wrapper.
 */
export function subtaskTables(
  statuses: readonly SubtaskStatus[],
  names: ReadonlyMap<string, string>,
  partitions: (actorId: string) => readonly string[] = () => [],
  states: (status: SubtaskStatus) => readonly PartitionState[] | null =
    () => [],
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
  return [...byOperator].map(([operator, rows]) => {
    const lowest = holding(rows);
    return `<div class="scroll"><table class="operator" data-testid="operator-table" data-operator="${
      escapeHtml(operator)
    }">${caption(operator, names.get(operator))}${head}<tbody>${
      rows.map((s) => subtaskRow(s, s === lowest, partitions(s.id), states(s)))
        .join("")
    }</tbody></table></div>`;
  }).join("\n");
}

function caption(operator: string, name: string | undefined): string {
  if (name === undefined || name === operator) {
    return `<caption>${escapeHtml(operator)}</caption>`;
  }
  return `<caption>${escapeHtml(name)} <small>${
    escapeHtml(operator)
  }</small></caption>`;
}

/**
 * The active subtask with the lowest output watermark, when it is below
 * another active one's: the one holding the operator's watermark back.
 */
function holding(rows: readonly SubtaskStatus[]): SubtaskStatus | null {
  const live = rows.filter((s) => !s.idle && s.outputWatermark < Infinity);
  if (live.length < 2) return null;
  const lowest = live.reduce((a, b) =>
    b.outputWatermark < a.outputWatermark ? b : a
  );
  return live.some((s) => s.outputWatermark > lowest.outputWatermark)
    ? lowest
    : null;
}

function subtaskRow(
  s: SubtaskStatus,
  lowest: boolean,
  partitions: readonly string[],
  states: readonly PartitionState[] | null,
): string {
  const late = s.gauges.numLateRecordsDropped;
  const names = partitions.map(escapeHtml).join(", ");
  return `<tr data-testid="subtask-row" data-subtask="${escapeHtml(s.id)}"${
    lowest ? ` class="lowest" data-lowest="true"` : ""
  }${names === "" ? "" : ` data-partitions="${names}"`}>` +
    `<td>${s.subtask}${
      names === ""
        ? ""
        : `<small data-testid="partitions">reads ${names}</small>`
    }${partitionList(states)}</td>` +
    watermarkCell("input-watermark", s.inputWatermark) +
    watermarkCell("output-watermark", s.outputWatermark) +
    `<td data-testid="subtask-status">${s.idle ? "idle" : "active"}${
      s.paused ? " (paused)" : ""
    }${s.worker ? ` on ${escapeHtml(s.worker)}` : ""}</td>` +
    `<td data-testid="lag">${durationText(s.watermarkLagMs)}</td>` +
    `<td class="n">${s.recordsIn}</td><td class="n">${s.recordsOut}</td>` +
    `<td class="n">${late === undefined ? "&#8212;" : late}</td>` +
    `<td class="n">${s.mailboxDepth}</td></tr>`;
}

/**
 * Each partition's status and own watermark, the one holding the subtask
 * back (its active partition with the lowest watermark) highlighted when
 * another partition is ahead of it.
 */
function partitionList(states: readonly PartitionState[] | null): string {
  if (states === null) {
    return `<small data-testid="partition-states">partition statuses not known</small>`;
  }
  if (states.length === 0) return "";
  const held = holdingPartition(states);
  const ahead = held !== null &&
    states.some((p) => p.status === "active" && p.watermark > held.watermark);
  return `<ul class="partitions" data-testid="partition-states">${
    states.map((p) =>
      `<li data-testid="partition" data-partition="${
        escapeHtml(p.name)
      }" data-status="${p.status}" data-value="${p.watermark}"${
        ahead && p === held ? ` class="lowest" data-lowest="true"` : ""
      }>${escapeHtml(p.name)}: ${p.status}${
        p.status === "finished" ? "" : `, ${watermarkHtml(p.watermark)}`
      }</li>`
    ).join("")
  }</ul>`;
}

function watermarkCell(testId: string, ms: number): string {
  return `<td data-testid="${testId}" data-value="${ms}">${
    watermarkHtml(ms)
  }</td>`;
}
