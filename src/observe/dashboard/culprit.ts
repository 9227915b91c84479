/**
 * The dashboard's first line: what holds the job's event time back, from
 * the health diagnosis, or that it advances. `drawCulprit()` in
 * `dashboard.js` redraws it from each read of `GET /jobs/:job/health`
 * with the same wording: change both together.
 *
 * @module
 */

import type { SubtaskStatus } from "../../actors/actor_runtime.ts";
import type { PartitionState } from "../../runtime/partition_state.ts";
import {
  type DiagnosableJob,
  type Diagnosis,
  type DiagnosisCause,
  type JobHealth,
  jobHealth,
} from "../health.ts";
import { durationText, escapeHtml } from "./html.ts";

// Why each cause holds event time, and what releases it, in a few words;
// the diagnosis's evidence and fix follow in full below the line.
const SHORT: Readonly<Record<DiagnosisCause, readonly [string, string]>> = {
  "silent-partition": [
    "one of its partitions is silent",
    "withIdleness would release it",
  ],
  "timestamps-in-seconds": [
    "its timestamps look like seconds",
    "multiplying them by 1000 would fix it",
  ],
  "back-pressure": [
    "it is back-pressured",
    "speeding up or scaling out the slow operator would release it",
  ],
  "generator-never-emits": [
    "its watermark generator emits no watermark",
    "a strategy that emits would release it",
  ],
  "window-never-fires": [
    "its windows never fire",
    "a smaller out-of-orderness bound would let them fire",
  ],
  "state-growth": [
    "its state grows while its watermark stands still",
    "see the fix below",
  ],
  "stuck-actor": ["it is stuck after a failure", "see the fix below"],
};

/** A plain-text culprit line and the diagnosis it came from, if any. */
export interface Culprit {
  /** The line, plain text. */
  readonly text: string;
  /** The diagnosis named, or `null` when nothing holds event time back. */
  readonly diagnosis: Diagnosis | null;
}

/**
 * What holds the job's event time back, in one line: the first cause of
 * the diagnosis (a silent partition names the partition holding the
 * source subtask back, its active partition with the lowest watermark,
 * when the runtime knows its partitions' states, or else the subtask and
 * the partitions it reads; how long its watermark has stood still; and
 * that `withIdleness` would release it), or else "event time is
 * advancing" with the lowest watermark's lag.
 *
 * @param health The job's health.
 * @param statuses Every subtask's status.
 * @param names Each operator's readable name, by vertex id.
 * @param partitions The partitions a subtask reads, by actor id.
 * @param stalledMs How long a subtask's output watermark has stood still.
 * @param states Each partition's state of a source subtask, by actor id,
 * or `undefined` when not known.
 * @returns The line and its diagnosis.
 */
export function culprit(
  health: JobHealth,
  statuses: readonly SubtaskStatus[],
  names: ReadonlyMap<string, string>,
  partitions: (actorId: string) => readonly string[],
  stalledMs: (actorId: string) => number | null,
  states: (actorId: string) => readonly PartitionState[] | undefined = () =>
    undefined,
): Culprit {
  const found = health.diagnosis[0];
  if (found !== undefined) {
    const [why, fix] = SHORT[found.cause];
    const status = statuses.find((s) =>
      s.operator === found.operator &&
      (found.subtask === undefined || s.subtask === found.subtask)
    );
    const operator = names.get(found.operator) ?? found.operator;
    const read = status === undefined ? [] : partitions(status.id);
    const held = found.cause === "silent-partition" && status !== undefined
      ? holdingPartition(states(status.id))
      : null;
    let where = (found.subtask === undefined
      ? operator
      : `subtask ${found.subtask} of ${operator}`) +
      (read.length === 0 ? "" : ` (partitions ${read.join(", ")})`);
    if (held !== null) {
      where = `partition ${held.name} of ${operator} (subtask ${
        status!.subtask
      })`;
    }
    const stalled = status === undefined ? null : stalledMs(status.id);
    const long = stalled === null || stalled < 1_000
      ? null
      : plain(durationText(stalled));
    // A named partition is silent for as long as its subtask stood still.
    const state = held !== null
      ? (long === null ? "it is silent" : `silent for ${long}`)
      : why +
        (long === null ? "" : ` (its watermark has stood still for ${long})`);
    return {
      text: `event time is held by ${where}: ${state}; ${fix}`,
      diagnosis: found,
    };
  }
  return { text: advancing(statuses, names, health.at), diagnosis: null };
}

/**
 * The culprit line of a running job, read from its health, status,
 * partitions and watermark history.
 *
 * @param handle The job.
 * @param now The current processing time, epoch milliseconds.
 * @returns The line and its diagnosis.
 */
export function jobCulprit(handle: DiagnosableJob, now: number): Culprit {
  return culprit(
    jobHealth(handle, now),
    handle.status(),
    new Map(handle.graph.vertices.map((v) => [v.id, v.name])),
    (id) => handle.sourcePartitions?.(id) ?? [],
    stalledFor(handle.history(), now),
    (id) => handle.sourcePartitionStates?.(id),
  );
}

/**
 * The partition holding a source subtask's watermark back: its active
 * partition with the lowest watermark, or `null` when none is active or
 * the states are not known.
 *
 * @param states The subtask's partitions, or `undefined`.
 * @returns The partition, or `null`.
 */
export function holdingPartition(
  states: readonly PartitionState[] | undefined,
): PartitionState | null {
  let lowest: PartitionState | null = null;
  for (const state of states ?? []) {
    if (state.status !== "active") continue;
    if (lowest === null || state.watermark < lowest.watermark) lowest = state;
  }
  return lowest;
}

function advancing(
  statuses: readonly SubtaskStatus[],
  names: ReadonlyMap<string, string>,
  now: number,
): string {
  const live = statuses.filter((s) => !s.idle && s.outputWatermark < Infinity);
  if (statuses.length > 0 && live.length === 0) {
    return statuses.every((s) => s.outputWatermark === Infinity)
      ? "event time reached the end of the input"
      : "every subtask is idle: event time waits for records";
  }
  const lowest = live.reduce<SubtaskStatus | null>(
    (min, s) =>
      min === null || s.outputWatermark < min.outputWatermark ? s : min,
    null,
  );
  if (lowest === null) return "event time is advancing";
  const where = `subtask ${lowest.subtask} of ${
    names.get(lowest.operator) ?? lowest.operator
  }`;
  if (lowest.outputWatermark === -Infinity) {
    return `no watermark yet: event time waits for ${where}`;
  }
  return `event time is advancing (lowest watermark: ${where}, ${
    plain(durationText(now - lowest.outputWatermark))
  } behind)`;
}

function plain(text: string): string {
  return text.replace("&#8212;", "—");
}

/**
 * How long each subtask's output watermark has stood still at its current
 * value, read from the watermark samples (oldest first), or `null` when it
 * moved at the last sample or was never sampled.
 *
 * @param history The job's watermark samples, oldest first.
 * @param now The current processing time, epoch milliseconds.
 * @returns A reader by actor id.
 */
export function stalledFor(
  history: ReadonlyArray<
    {
      at: number;
      subtasks: Readonly<Record<string, { outputWatermark: number }>>;
    }
  >,
  now: number,
): (actorId: string) => number | null {
  return function stalled(actorId: string): number | null {
    const last = history.at(-1)?.subtasks[actorId]?.outputWatermark;
    if (last === undefined) return null;
    let since: number | null = null;
    for (let i = history.length - 1; i >= 0; i--) {
      if (history[i].subtasks[actorId]?.outputWatermark !== last) break;
      since = history[i].at;
    }
    return since === null ? null : now - since;
  };
}

/**
 * The culprit line as HTML: `data-testid="culprit"` with `data-cause` (the
 * cause, or `none`), and the diagnosis's evidence and fix below it.
 *
 * @param line The culprit.
 * @returns The line's HTML.
 */
export function culpritHtml(line: Culprit): string {
  const cause = line.diagnosis?.cause ?? "none";
  const detail = line.diagnosis === null
    ? ""
    : `<details id="culprit-detail"><summary>Evidence and fix</summary>${
      escapeHtml(line.diagnosis.evidence)
    }<br><em>Fix:</em> ${escapeHtml(line.diagnosis.fix)}</details>`;
  return `<div class="culprit ${
    line.diagnosis === null ? "ok" : "held"
  }" id="culprit-box"><p id="culprit" data-testid="culprit" data-cause="${cause}">${
    escapeHtml(line.text)
  }</p>${detail}</div>`;
}
