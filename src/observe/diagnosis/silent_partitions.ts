/**
 * The diagnosis `silent-partition`: a source partition that sends nothing holds the job's event time back, because a source emits the minimum over its partitions.
 *
 * @module
 */

import type { SubtaskStatus } from "../../actors/actor_runtime.ts";
import type { JobVertex } from "../../runtime/job_graph.ts";
import { formatDuration, formatWatermark } from "../format.ts";
import type { Diagnosis } from "./diagnosis.ts";
import { describeSource, upstreamActor } from "./readings.ts";
import { recordsReadIn, type Scene, unmovedFor, vertexOf } from "./scene.ts";

/** The idle timeout the diagnosis suggests (3–5 × the usual gap). */
const IDLENESS_FIX =
  "add .withIdleness(30_000) to the WatermarkStrategy (a timeout of 3–5 × the usual gap between a partition's records) so that a silent partition stops holding event time back";

/**
 * (a) A channel from a source subtask stands still (at `-Infinity`, or not
 * moved for `stallMs`) while another channel of the same subtask advances,
 * and neither it nor its source is idle, in a strategy without idleness:
 * one of the source's partitions is silent.
 * A source subtask that feeds no such comparison (parallelism 1) is caught
 * when it reads records from several partitions but its watermark stands
 * still.
 */
export function detectSilentPartitions(scene: Scene, found: Diagnosis[]): void {
  const { graph, statuses, now, windows } = scene;
  // Per stuck source subtask: the subtasks that see it, and what the first saw.
  const stuck = new Map<string, { observers: string[]; seen: string }>();
  for (const status of statuses.values()) {
    const vertex = vertexOf(scene, status.operator);
    if (vertex === undefined || vertex.source !== undefined) continue;
    const active = scene.job.inputChannels(status.id).filter((c) => !c.idle);
    for (const channel of active) {
      const upstream = upstreamActor(graph, vertex.id, channel.channel);
      const source = statuses.get(upstream);
      const sourceVertex = vertexOf(scene, source?.operator ?? "");
      if (!silentCandidate(source, sourceVertex)) continue;
      const from = channel.lastMovedAt ?? scene.since;
      const stalled = from === null ? 0 : now - from;
      if (stalled < windows.stallMs) continue;
      const ahead = active.find((c) =>
        c.watermark > channel.watermark && c.lastMovedAt !== null &&
        now - c.lastMovedAt < windows.stallMs
      );
      if (ahead === undefined) continue;
      if (readsFromOnePartition(scene, source!)) continue;
      const entry = stuck.get(upstream) ?? {
        observers: [],
        seen: `(from ${upstream}) stayed at ${
          formatWatermark(channel.watermark)
        } for ${
          formatDuration(stalled)
        } while channel ${ahead.channel} advanced to ${
          formatWatermark(ahead.watermark)
        }`,
      };
      entry.observers.push(`channel ${channel.channel} of ${status.id}`);
      stuck.set(upstream, entry);
    }
  }
  for (const [upstream, { observers, seen }] of stuck) {
    const source = statuses.get(upstream)!;
    found.push({
      cause: "silent-partition",
      operator: source.operator,
      subtask: source.subtask,
      evidence: `${observers.join(" and ")} ${seen}, and ${
        observers.length === 1 ? "it is" : "they are"
      } not idle: ${describeSource(scene.job, statuses, upstream)}`,
      fix: IDLENESS_FIX,
    });
  }
  for (const source of statuses.values()) {
    if (stuck.has(source.id)) continue;
    const vertex = vertexOf(scene, source.operator);
    if (!silentCandidate(source, vertex)) continue;
    if (scene.graph.autoWatermarkIntervalMs === 0) continue; // cause (d)
    const partitions = scene.job.sourcePartitions?.(source.id) ?? [];
    if (partitions.length < 2) continue;
    const stalled = unmovedFor(scene, source);
    if (stalled === null || stalled < windows.stallMs) continue;
    const read = recordsReadIn(scene, source, windows.stallMs);
    if (read === null || read === 0) continue;
    found.push({
      cause: "silent-partition",
      operator: source.operator,
      subtask: source.subtask,
      evidence: `the watermark of ${source.id} has stayed at ${
        formatWatermark(source.outputWatermark)
      } for ${
        formatDuration(stalled)
      } although it read ${read} records in the last ${
        formatDuration(windows.stallMs)
      } from partitions ${
        partitions.join(", ")
      }: a source emits the minimum over its partitions, so one of them ${
        source.outputWatermark === -Infinity
          ? "has sent no record yet"
          : "is silent (or its timestamps stopped increasing)"
      }`,
      fix: IDLENESS_FIX,
    });
  }
}

/** A live, unfinished source subtask without idleness in its strategy. */
function silentCandidate(
  source: SubtaskStatus | undefined,
  vertex: JobVertex | undefined,
): boolean {
  return source !== undefined && vertex?.source !== undefined &&
    vertex.source.strategy.idleTimeoutMs === null && !source.idle &&
    source.outputWatermark !== Infinity;
}

/**
 * A source subtask reading one partition that keeps reading records is not
 * silent: its timestamps stopped increasing, which idleness does not fix.
 */
function readsFromOnePartition(scene: Scene, source: SubtaskStatus): boolean {
  const partitions = scene.job.sourcePartitions?.(source.id);
  if (partitions === undefined || partitions.length !== 1) return false;
  const read = recordsReadIn(scene, source, scene.windows.stallMs);
  return read !== null && read > 0;
}
