/**
 * Why a window has not fired: the diagnosis behind `GET /jobs/:job/explain`
 * (a silent partition, a paused subtask, timestamps in seconds, idleness).
 *
 * @module
 */

import type { SubtaskStatus } from "../actors/actor_runtime.ts";
import type { JobGraph, JobVertex } from "../runtime/job_graph.ts";
import { keyGroupOf, subtaskForKeyGroup } from "../runtime/key_groups.ts";
import type {
  ExplainableJob,
  ExplainedChannel,
  ExplainedSubtask,
  ExplainQuery,
  ExplainReport,
} from "./explain_report.ts";
import {
  describeSource,
  fullestDownstream,
  looksLikeSeconds,
  lowest,
  upstreamActor,
} from "./diagnosis/readings.ts";
import {
  formatDuration as duration,
  formatWatermark as time,
} from "./format.ts";

// A minimum channel still for this long (or three periodic watermark
// intervals) is held, not advancing: samples date a move up to ~500 ms late.
const HELD_AFTER_MS = 2_000;

/**
 * Explains why a window of an operator has not fired: per subtask (the one
 * owning `key`, or all), its input watermark against the window's
 * maxTimestamp, the channel holding the minimum and the subtasks upstream of
 * it, and advice naming what would let event time advance.
 *
 * @param handle The job.
 * @param query The operator, window, key and thresholds; the operator must
 * be a vertex of the job.
 * @returns The report.
 */
export function explainWindow(
  handle: ExplainableJob,
  query: ExplainQuery,
): ExplainReport {
  const graph = handle.graph;
  const vertex = graph.vertices.find((v) => v.id === query.operator)!;
  const statuses = new Map(handle.status().map((s) => [s.id, s]));
  const end = query.windowEnd;
  const maxTimestamp = end === null ? null : end - 1;
  let keyGroup: number | null = null;
  let mine = [...statuses.values()].filter((s) => s.operator === vertex.id);
  if (query.key !== undefined) {
    keyGroup = keyGroupOf(query.key, graph.maxParallelism);
    const index = subtaskForKeyGroup(
      keyGroup,
      graph.maxParallelism,
      vertex.parallelism,
    );
    mine = mine.filter((s) => s.subtask === index);
  }
  const since = handle.history()[0]?.at ?? null;
  const context: Context = { handle, graph, statuses, query, since };
  const subtasks = mine.map((s) =>
    explainSubtask(context, vertex, s, maxTimestamp)
  );
  const fired = maxTimestamp === null
    ? null
    : subtasks.every((s) => s.fired === true);
  return {
    job: handle.name,
    operator: vertex.id,
    window: { start: query.windowStart, end, maxTimestamp },
    key: query.key ?? null,
    keyGroup,
    fired,
    subtasks,
    advice: [...new Set(subtasks.flatMap((s) => s.advice))],
  };
}

interface Context {
  readonly handle: ExplainableJob;
  readonly graph: JobGraph;
  readonly statuses: ReadonlyMap<string, SubtaskStatus>;
  readonly query: ExplainQuery;
  readonly since: number | null;
}

function explainSubtask(
  context: Context,
  vertex: JobVertex,
  status: SubtaskStatus,
  maxTimestamp: number | null,
): ExplainedSubtask {
  const { handle, graph } = context;
  const channels: ExplainedChannel[] = handle.inputChannels(status.id).map((
    c,
  ) => ({
    ...c,
    upstream: upstreamActor(graph, vertex.id, c.channel),
    stalledForMs: stalledFor(context, c.lastMovedAt),
  }));
  const active = channels.filter((c) => !c.idle);
  const minimum = lowest(active);
  const heldBy = minimum === null
    ? []
    : [minimum.upstream, ...traceMinimum(context, minimum.upstream)];
  const watermark = status.inputWatermark;
  const fired = maxTimestamp === null ? null : watermark >= maxTimestamp;
  const late = status.gauges.numLateRecordsDropped ?? 0;
  const advice: string[] = [];
  if (fired === true) {
    advice.push(
      `${status.id}: the input watermark ${
        time(watermark)
      } has passed the window's maxTimestamp ${
        time(maxTimestamp!)
      }, so the window has fired, or no record of it reached this subtask; records that came after it were late (numLateRecordsDropped = ${late})`,
    );
  } else {
    if (channels.length > 0 && active.length === 0) {
      advice.push(
        `every input channel of ${status.id} is idle: event time stands still until a source reads records again (or its input ends)`,
      );
    }
    const root = heldBy.length > 0 ? heldBy[heldBy.length - 1] : status.id;
    // A paused subtask on the path reads no input, so its watermark (and
    // every one downstream) stands still whatever the partitions do: that
    // is the cause to name.
    const paused = [status.id, ...heldBy].filter((id) =>
      context.statuses.get(id)?.paused
    );
    for (const id of paused) adviseOnBackPressure(context, id, advice);
    if (paused.length === 0 && minimum !== null) {
      adviseOnMinimum(context, minimum, active, root, advice);
    } else if (paused.length === 0 && vertex.source !== undefined) {
      adviseOnSource(context, status.id, watermark, advice);
    }
    adviseOnSeconds(context, [
      watermark,
      minimum?.watermark,
      context.statuses.get(root)?.outputWatermark,
    ], advice);
    if (advice.length === 0) {
      adviseOnProgress(context, watermark, maxTimestamp, minimum, root, advice);
    }
  }
  adviseOnLateness(context, status, late, advice);
  return {
    id: status.id,
    subtask: status.subtask,
    inputWatermark: watermark,
    behindMs: maxTimestamp === null ? null : maxTimestamp - watermark,
    fired,
    idle: channels.length > 0 && active.length === 0,
    paused: status.paused,
    mailboxDepth: status.mailboxDepth,
    lateRecordsDropped: late,
    channels,
    minimum,
    heldBy,
    advice,
  };
}

/** The minimum channel is silent or stalled: name it and its source. */
function adviseOnMinimum(
  context: Context,
  minimum: ExplainedChannel,
  active: readonly ExplainedChannel[],
  root: string,
  advice: string[],
): void {
  const ahead = active.find((c) => c.watermark > minimum.watermark);
  const others = ahead === undefined
    ? ""
    : ` while channel ${ahead.channel} is at ${time(ahead.watermark)}`;
  const name = `channel ${minimum.channel} (${minimum.upstream})`;
  const source = describeSource(context.handle, context.statuses, root);
  const stalled = minimum.stalledForMs;
  if (minimum.watermark === -Infinity) {
    const watched = stalled === null
      ? ""
      : ` in the ${duration(stalled)} observed`;
    advice.push(
      `${name} has never advanced (watermark -Infinity)${watched}${others}: ${source} — add withIdleness(timeoutMs) to the WatermarkStrategy (a timeout of 3–5 × the usual gap between a partition's records) so that a silent partition stops holding event time back`,
    );
    if (context.graph.autoWatermarkIntervalMs === 0) {
      advice.push(
        "periodic watermarks are disabled (autoWatermarkIntervalMs is 0): periodic generators such as forBoundedOutOfOrderness never emit — set autoWatermarkIntervalMs, e.g. 200",
      );
    }
  } else if (stalled !== null && stalled >= context.query.stallMs) {
    advice.push(
      `${name} has not advanced for ${duration(stalled)} (held at ${
        time(minimum.watermark)
      })${others}: its partition may be silent — add withIdleness(timeoutMs) to the WatermarkStrategy; if ${root} still reads records, their timestamps stopped increasing (a fixed or default timestamp?)`,
    );
  }
}

/** Advice for a source subtask explained directly. */
function adviseOnSource(
  context: Context,
  id: string,
  watermark: number,
  advice: string[],
): void {
  if (watermark !== -Infinity) return;
  advice.push(
    `${id} has not emitted a watermark: ${
      describeSource(context.handle, context.statuses, id)
    } — add withIdleness(timeoutMs) to the WatermarkStrategy`,
  );
}

/** Watermarks that look like epoch seconds (a common cause of no firing). */
function adviseOnSeconds(
  context: Context,
  watermarks: ReadonlyArray<number | undefined>,
  advice: string[],
): void {
  const seconds = watermarks.find((w) =>
    w !== undefined && looksLikeSeconds(w)
  );
  if (seconds === undefined) return;
  const start = context.query.windowStart;
  // A window start from 1973 on is in milliseconds, unlike the watermark.
  const scale = start >= 1e11
    ? `, while the window starts at ${time(start)}`
    : "";
  advice.push(
    `watermark is in 1970 (${
      time(seconds)
    })${scale}: timestamps look like seconds — multiply by 1000 in the timestamp assigner (weir's timestamps are epoch milliseconds)`,
  );
}

/** A paused subtask on the path: name the downstream subtask it waits for. */
function adviseOnBackPressure(
  context: Context,
  id: string,
  advice: string[],
): void {
  const status = context.statuses.get(id)!;
  const fullest = fullestDownstream(
    context.graph,
    context.statuses.values(),
    status,
  );
  if (fullest === null) {
    const source = context.graph.vertices.find((v) => v.id === status.operator)
      ?.source;
    advice.push(
      source !== undefined
        ? `${id} is paused without a full downstream mailbox: watermark alignment holds it, as its watermark is ahead of its alignment group's by more than maxDriftMs — the slowest source of the group must catch up`
        : `${id} is paused and takes no input (${status.mailboxDepth} elements wait in its mailbox, the watermark may be among them): it is suspended, e.g. waiting on slow I/O`,
    );
    return;
  }
  advice.push(
    `${id} is back-pressured by ${fullest.id} (${fullest.mailboxDepth} elements wait in its mailbox): watermarks queue behind records, so look at why ${fullest.id} is slow rather than at the watermark generator`,
  );
}

/**
 * Nothing is stuck past `stallMs`: say how far event time has to go, and
 * whether the minimum channel moves now or is held (an idle timeout that
 * has not run out yet holds it as surely as a silent partition does).
 */
function adviseOnProgress(
  context: Context,
  watermark: number,
  maxTimestamp: number | null,
  minimum: ExplainedChannel | null,
  root: string,
  advice: string[],
): void {
  if (maxTimestamp === null) {
    advice.push(
      `the input watermark is ${
        time(watermark)
      }; pass 'size' or 'end' to compare it with the window's end`,
    );
    return;
  }
  const fires = `the window fires when it reaches ${time(maxTimestamp)}, ${
    duration(maxTimestamp - watermark)
  } of event time from now`;
  // Clamped: a move is dated at the observation that saw it, which may
  // come after the query's clock reading.
  const stalled = minimum?.lastMovedAt == null ? null : minimum.stalledForMs;
  const heldAfter = Math.max(
    HELD_AFTER_MS,
    3 * context.graph.autoWatermarkIntervalMs,
  );
  if (minimum !== null && stalled !== null && stalled >= heldAfter) {
    const idleTimeout = sourceVertexOf(context, root)?.source?.strategy
      .idleTimeoutMs ?? null;
    const why = idleTimeout === null
      ? `if it stays still for ${
        duration(context.query.stallMs)
      }, its partition may be silent — add withIdleness(timeoutMs) to the WatermarkStrategy`
      : `a partition of ${root} may be quiet: withIdleness(${idleTimeout}) holds event time until it has been quiet for ${
        duration(idleTimeout)
      }, then leaves it out`;
    advice.push(
      `the watermark is held at ${
        time(minimum.watermark)
      } by channel ${minimum.channel} (${minimum.upstream}), which has not moved for ${
        duration(stalled)
      }: ${why}; ${fires}`,
    );
    return;
  }
  const last = stalled === null
    ? ""
    : ` (it last moved ${duration(stalled)} ago)`;
  advice.push(
    `the watermark is advancing${last}: ${fires}; event time trails the newest timestamps by the strategy's out-of-orderness bound`,
  );
}

/**
 * Records dropped as late: the cause (how late records arrive, from the
 * sources' `suggestedDelayMs`: the p99 lateness plus 20%) and the fix.
 */
function adviseOnLateness(
  context: Context,
  status: SubtaskStatus,
  late: number,
  advice: string[],
): void {
  if (late === 0) return;
  const suggested = Math.max(
    0,
    ...[...context.statuses.values()].map((s) =>
      s.gauges.suggestedDelayMs ?? 0
    ),
  );
  const dropped = `${status.id} dropped ${late} record${
    late === 1 ? "" : "s"
  } as late: they reached it after the watermark had passed their window's end`;
  advice.push(
    suggested > 0
      ? `${dropped}; records arrive up to ${
        duration(suggested)
      } late (suggestedDelayMs: the sources' p99 lateness plus 20%): raise forBoundedOutOfOrderness to ${suggested} ms, or set allowedLateness(${suggested}) on the window to update its result when they come`
      : `${dropped}: raise the out-of-orderness bound of forBoundedOutOfOrderness to how late records arrive, or set allowedLateness on the window`,
  );
}

function sourceVertexOf(context: Context, id: string): JobVertex | undefined {
  const operator = context.statuses.get(id)?.operator;
  return context.graph.vertices.find((v) =>
    v.id === operator && v.source !== undefined
  );
}

/** The actor ids upstream of `actorId`'s minimum channel, to the source. */
function traceMinimum(context: Context, actorId: string): string[] {
  const path: string[] = [];
  let current = actorId;
  for (let depth = 0; depth < context.graph.vertices.length; depth++) {
    const operator = context.statuses.get(current)?.operator;
    const vertex = context.graph.vertices.find((v) => v.id === operator);
    if (vertex === undefined || vertex.source !== undefined) break;
    const minimum = lowest(
      context.handle.inputChannels(current).filter((c) => !c.idle),
    );
    if (minimum === null) break;
    current = upstreamActor(context.graph, vertex.id, minimum.channel);
    path.push(current);
  }
  return path;
}

function stalledFor(
  context: Context,
  lastMovedAt: number | null,
): number | null {
  const from = lastMovedAt ?? context.since;
  return from === null ? null : Math.max(0, context.query.now - from);
}
