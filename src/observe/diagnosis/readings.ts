/**
 * What the detectors and `explain` read off a job's plan and live status:
 * which actor feeds a channel, the lowest channel, the fullest mailbox
 * downstream, what a source reads, and whether a watermark looks like
 * epoch seconds.
 *
 * @module
 */

import type { SubtaskStatus } from "../../actors/actor_runtime.ts";
import type { JobGraph } from "../../runtime/job_graph.ts";
import type { WatermarkSample } from "../job_handle.ts";
import type { DiagnosableJob } from "./diagnosis.ts";

// Watermarks between 1970-01-02 and 1973-03-03: epoch seconds of the years
// 1973 to 5138 read as milliseconds. Below a
// day they are more likely small test timestamps than seconds.
const SECONDS_LOW = 1e8;
const SECONDS_HIGH = 1e11;

/**
 * Whether a watermark looks like epoch seconds read as milliseconds: in
 * `[1e8, 1e11)`, i.e. between 1970-01-02 and 1973-03-03.
 *
 * @param watermark A watermark, epoch milliseconds.
 * @returns `true` for a watermark in that range.
 */
export function looksLikeSeconds(watermark: number): boolean {
  return watermark >= SECONDS_LOW && watermark < SECONDS_HIGH;
}

/**
 * The actor feeding a channel: channels are numbered edge by edge in the
 * graph's order, then by upstream subtask (as the local runtime wires them).
 *
 * @param graph The plan.
 * @param vertexId The receiving vertex.
 * @param channel The channel number.
 * @returns The upstream actor id, or `job/?/channel` if out of range.
 */
export function upstreamActor(
  graph: JobGraph,
  vertexId: string,
  channel: number,
): string {
  let offset = 0;
  for (const edge of graph.edges) {
    if (edge.to !== vertexId) continue;
    const from = graph.vertices.find((v) => v.id === edge.from)!;
    if (channel < offset + from.parallelism) {
      return `${graph.jobName}/${from.id}/${channel - offset}`;
    }
    offset += from.parallelism;
  }
  return `${graph.jobName}/?/${channel}`;
}

/**
 * The lowest input or output watermark in one sample of the subtasks `ids`
 * that are not idle (of all of them if all are): what holds an operator
 * back.
 *
 * @param sample One watermark sample.
 * @param ids The subtasks, e.g. an operator's.
 * @param which Which watermark.
 * @returns The lowest, or `undefined` if the sample has none of them.
 */
export function lowestWatermarkOf(
  sample: WatermarkSample,
  ids: readonly string[],
  which: "inputWatermark" | "outputWatermark",
): number | undefined {
  const entries = ids.map((id) => sample.subtasks[id]).filter((e) =>
    e !== undefined
  );
  if (entries.length === 0) return undefined;
  const active = entries.filter((e) => !e.idle);
  return Math.min(
    ...(active.length > 0 ? active : entries).map((e) => e[which]),
  );
}

/**
 * The channel with the lowest watermark.
 *
 * @param channels Channels (or anything with a watermark).
 * @returns The first lowest, or `null` for none.
 */
export function lowest<C extends { watermark: number }>(
  channels: readonly C[],
): C | null {
  let min: C | null = null;
  for (const c of channels) {
    if (min === null || c.watermark < min.watermark) min = c;
  }
  return min;
}

/**
 * The subtask downstream of `status` with the most elements waiting: the
 * one that back-pressures it when `status` is paused.
 *
 * @param graph The plan.
 * @param statuses Every subtask's status.
 * @param status The (paused) subtask.
 * @returns The fullest downstream subtask, or `null` when none has mail.
 */
export function fullestDownstream(
  graph: JobGraph,
  statuses: Iterable<SubtaskStatus>,
  status: SubtaskStatus,
): SubtaskStatus | null {
  const downstream = graph.edges
    .filter((e) => e.from === status.operator)
    .map((e) => e.to);
  let fullest: SubtaskStatus | null = null;
  for (const s of statuses) {
    if (!downstream.includes(s.operator)) continue;
    if (fullest === null || s.mailboxDepth > fullest.mailboxDepth) fullest = s;
  }
  return fullest === null || fullest.mailboxDepth === 0 ? null : fullest;
}

/**
 * What a source subtask at the root of a stall reads, in words.
 *
 * @param job The job.
 * @param statuses Every subtask's status by actor id.
 * @param id The actor id.
 * @returns A phrase naming its partitions and how many records it read.
 */
export function describeSource(
  job: DiagnosableJob,
  statuses: ReadonlyMap<string, SubtaskStatus>,
  id: string,
): string {
  const status = statuses.get(id);
  const vertex = job.graph.vertices.find((v) => v.id === status?.operator);
  if (status === undefined || vertex?.source === undefined) {
    return `the minimum comes from ${id}, whose own inputs hold it back`;
  }
  const partitions = job.sourcePartitions?.(id) ?? [];
  const reads = partitions.length === 0
    ? ""
    : ` (partition${partitions.length > 1 ? "s" : ""} ${
      partitions.join(", ")
    })`;
  if (status.recordsIn === 0) {
    return `source subtask ${id}${reads} has read no records, so its partitions may be silent`;
  }
  const records = status.recordsIn === 1
    ? "1 record"
    : `${status.recordsIn} records`;
  return `source subtask ${id}${reads} has read ${records}, but a source emits the minimum over its partitions, so one of them may be silent`;
}
