// Which log each channel of the KV runtime is: for every subtask, where its
// input channels are written (producer, output index) and where its output
// channels are read (consumer, input channel).

import type { JobGraph } from "../../runtime/job_graph.ts";
import { edgeChannelOffsets } from "../_subtask_factory.ts";

/** One input channel: the producer's actor id and its output index. */
export interface InputWire {
  readonly producer: string;
  readonly out: number;
}

/** One output channel: the consumer's actor id and its input channel. */
export interface OutputWire {
  readonly consumer: string;
  readonly channel: number;
}

/** The wiring of one subtask. */
export interface ActorWiring {
  readonly id: string;
  readonly vertex: string;
  readonly index: number;
  /** Per output edge (in the subtask's edge order): its first output index. */
  readonly edgeBase: readonly number[];
  readonly outputs: readonly OutputWire[];
  readonly inputs: readonly InputWire[];
}

/** The actor id of subtask `index` of vertex `vertex`. */
export function actorId(
  graph: JobGraph,
  vertex: string,
  index: number,
): string {
  return `${graph.jobName}/${vertex}/${index}`;
}

/**
 * Every subtask's wiring, vertices in the graph's order (upstream first).
 *
 * @param graph The job.
 */
export function wireActors(graph: JobGraph): ActorWiring[] {
  const offsets = edgeChannelOffsets(graph);
  const parallelism = (id: string) =>
    graph.vertices.find((v) => v.id === id)!.parallelism;
  const wirings: ActorWiring[] = [];
  for (const vertex of graph.vertices) {
    const outEdges = graph.edges.map((edge, e) => ({ edge, e }))
      .filter(({ edge }) => edge.from === vertex.id);
    const inEdges = graph.edges.map((edge, e) => ({ edge, e }))
      .filter(({ edge }) => edge.to === vertex.id);
    for (let index = 0; index < vertex.parallelism; index++) {
      const edgeBase: number[] = [];
      const outputs: OutputWire[] = [];
      for (const { edge, e } of outEdges) {
        edgeBase.push(outputs.length);
        for (let c = 0; c < parallelism(edge.to); c++) {
          outputs.push({
            consumer: actorId(graph, edge.to, c),
            channel: offsets[e] + index,
          });
        }
      }
      const inputs: InputWire[] = [];
      for (const { edge, e } of inEdges) {
        // The producer's output index of this edge, then this subtask.
        const producerEdges = graph.edges.map((x, i) => ({ x, i }))
          .filter(({ x }) => x.from === edge.from);
        let base = 0;
        for (const { x, i } of producerEdges) {
          if (i === e) break;
          base += parallelism(x.to);
        }
        for (let p = 0; p < parallelism(edge.from); p++) {
          inputs.push({
            producer: actorId(graph, edge.from, p),
            out: base + index,
          });
        }
      }
      wirings.push({
        id: actorId(graph, vertex.id, index),
        vertex: vertex.id,
        index,
        edgeBase,
        outputs,
        inputs,
      });
    }
  }
  return wirings;
}
