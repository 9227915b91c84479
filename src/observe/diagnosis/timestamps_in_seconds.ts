/**
 * The diagnosis `timestamps-in-seconds`: event timestamps in epoch seconds read as milliseconds put the watermark in 1970.
 *
 * @module
 */

import { formatWatermark } from "../format.ts";
import type { Diagnosis } from "./diagnosis.ts";
import { looksLikeSeconds } from "./readings.ts";
import { type Scene, subtasksOf } from "./scene.ts";

/**
 * (b) The output watermark of the first vertex on a path is in 1970: event
 * timestamps are epoch seconds.
 */
export function detectSeconds(scene: Scene, found: Diagnosis[]): void {
  const flagged = new Set<string>();
  for (const vertex of scene.graph.vertices) {
    const upstream = scene.graph.edges.filter((e) => e.to === vertex.id);
    if (upstream.some((e) => flagged.has(e.from))) {
      flagged.add(vertex.id);
      continue;
    }
    const seconds = subtasksOf(scene, vertex).filter((s) =>
      looksLikeSeconds(s.outputWatermark)
    );
    if (seconds.length === 0) continue;
    flagged.add(vertex.id);
    const [first] = seconds;
    found.push({
      cause: "timestamps-in-seconds",
      operator: vertex.id,
      ...(seconds.length === 1 ? { subtask: first.subtask } : {}),
      evidence: `the watermark${seconds.length === 1 ? " of" : "s of"} ${
        seconds.map((s) => s.id).join(", ")
      } ${seconds.length === 1 ? "is" : "are"} in 1970 (${
        formatWatermark(first.outputWatermark)
      }): the timestamps look like epoch seconds, so event time moves a thousand times too slowly and windows do not fire`,
      fix:
        "multiply the timestamp by 1000 in withTimestampAssigner (weir's timestamps are epoch milliseconds)",
    });
  }
}
