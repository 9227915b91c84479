/**
 * The diagnosis `generator-never-emits`: a source that reads records but never emits a watermark.
 *
 * @module
 */

import type { SubtaskStatus } from "../../actors/actor_runtime.ts";
import { formatDuration } from "../format.ts";
import type { Diagnosis } from "./diagnosis.ts";
import { type Scene, subtasksOf, unmovedFor } from "./scene.ts";

/**
 * (d) A source that reads records but has never emitted a watermark:
 * periodic watermarks are disabled (`autoWatermarkIntervalMs` is 0), or
 * the strategy emits none (`noWatermarks()`, a punctuated generator that
 * never saw its marker).
 */
export function detectSilentGenerators(scene: Scene, found: Diagnosis[]): void {
  const disabled = scene.graph.autoWatermarkIntervalMs === 0;
  for (const vertex of scene.graph.vertices) {
    if (vertex.source === undefined) continue;
    const silent = subtasksOf(scene, vertex).filter((s) =>
      !s.idle && s.recordsIn > 0 && s.outputWatermark === -Infinity &&
      (disabled || neverEmitted(scene, s) !== null)
    );
    if (silent.length === 0) continue;
    const records = silent.reduce((n, s) => n + s.recordsIn, 0);
    const ids = silent.map((s) => s.id).join(", ");
    found.push(
      disabled
        ? {
          cause: "generator-never-emits",
          operator: vertex.id,
          evidence:
            `${ids} read ${records} records but emitted no watermark: periodic watermarks are disabled (autoWatermarkIntervalMs is 0), so periodic generators such as forBoundedOutOfOrderness never emit`,
          fix:
            "set autoWatermarkIntervalMs (e.g. 200) or use a punctuated generator",
        }
        : {
          cause: "generator-never-emits",
          operator: vertex.id,
          evidence:
            `${ids} read ${records} records from a single partition each but emitted no watermark in the ${
              formatDuration(neverEmitted(scene, silent[0])!)
            } observed: the strategy emits none (noWatermarks(), or a punctuated generator that never saw its marker)`,
          fix:
            "use a strategy that emits watermarks, e.g. WatermarkStrategy.forBoundedOutOfOrderness(5_000), or make the punctuated generator emit on its marker records",
        },
    );
  }
}

/**
 * How long a single-partition source subtask has been seen at its
 * watermark, if at least `stallMs`; otherwise `null`.
 */
function neverEmitted(scene: Scene, status: SubtaskStatus): number | null {
  const partitions = scene.job.sourcePartitions?.(status.id);
  if (partitions === undefined || partitions.length !== 1) return null;
  const watched = unmovedFor(scene, status);
  return watched !== null && watched >= scene.windows.stallMs ? watched : null;
}
