/**
 * The diagnosis `back-pressure`: a subtask paused by a full downstream mailbox, traced along the chain of full mailboxes to the operator that is slow.
 *
 * @module
 */

import type { Diagnosis } from "./diagnosis.ts";
import { fullestDownstream } from "./readings.ts";
import { type Scene, vertexOf } from "./scene.ts";

/**
 * (c) Subtasks paused because a downstream mailbox is full: watermarks
 * queue behind records. The chain of full
 * mailboxes is followed to the operator that is actually slow.
 */
export function detectBackPressure(scene: Scene, found: Diagnosis[]): void {
  const all = [...scene.statuses.values()];
  const byRoot = new Map<string, string[]>();
  for (const status of all) {
    if (!status.paused) continue;
    let root = fullestDownstream(scene.graph, all, status);
    if (root === null) continue; // alignment or suspended: not back-pressure
    for (let depth = 0; depth < all.length && root.paused; depth++) {
      const next = fullestDownstream(scene.graph, all, root);
      if (next === null) break;
      root = next;
    }
    const paused = byRoot.get(root.id) ?? [];
    paused.push(status.id);
    byRoot.set(root.id, paused);
  }
  for (const [id, paused] of byRoot) {
    const root = scene.statuses.get(id)!;
    const name = vertexOf(scene, root.operator)?.name ?? root.operator;
    const verb = paused.length === 1 ? "is" : "are";
    found.push({
      cause: "back-pressure",
      operator: root.operator,
      subtask: root.subtask,
      evidence: `${
        paused.join(", ")
      } ${verb} paused by back-pressure: ${id} cannot keep up (${root.mailboxDepth} elements wait in its mailbox), and watermarks queue behind records, so event time is held by ${root.operator}'s speed rather than by the watermark generator`,
      fix:
        `speed up or scale out ${root.operator} (${name}): raise its parallelism or make it cheaper per record`,
    });
  }
}
