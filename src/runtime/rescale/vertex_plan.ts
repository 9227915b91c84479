/**
 * What the rescale pipeline reads of a job graph's vertex: how many input
 * channels each of its subtasks has, and the state kind of each operator
 * of its chain, as the operators declare them.
 *
 * @module
 */

import type { JobGraph, JobVertex } from "../job_graph.ts";
import type { StateKind } from "./state_kind.ts";

/**
 * The number of input channels of each subtask of a vertex: the sum of
 * its upstream vertices' parallelism.
 *
 * @param graph The job.
 * @param vertexId The vertex.
 * @returns Its subtasks' number of input channels (0 for a source).
 */
export function inputChannelsOf(graph: JobGraph, vertexId: string): number {
  return graph.edges.filter((e) => e.to === vertexId).reduce(
    (sum, e) => sum + graph.vertices.find((v) => v.id === e.from)!.parallelism,
    0,
  );
}

/**
 * The state kind of each operator of a vertex's chain, in the chain's
 * order: for a source vertex, its pass-through (stateless) first, then the
 * operators after the source.
 *
 * @param vertex The vertex.
 * @returns The kinds, `undefined` where an operator declares none (a
 * vertex without `operators`, built by hand, declares none).
 */
export function chainKinds(vertex: JobVertex): (StateKind | undefined)[] {
  const kinds = (vertex.operators ?? []).map((op) => op.stateKind);
  if (vertex.source === undefined) return kinds;
  return ["stateless", ...kinds.slice(1)];
}
