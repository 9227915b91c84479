// How a runtime turns a job graph into subtask state machines and wires
// their channels: shared by the local and the KV runtime, so that both run
// exactly the same machines.

import { type Clock, type MetricGroup, PausableClock } from "../time/mod.ts";
import type { JobGraph, JobVertex } from "../runtime/job_graph.ts";
import { SourceSubtask } from "../runtime/source_subtask.ts";
import type { StreamElement } from "../runtime/stream_element.ts";
import { Subtask, type SubtaskEdge } from "../runtime/subtask.ts";
import type { SnapshotOptions } from "../runtime/stream_operator.ts";
import type { ErrorPolicy } from "../runtime/dead_letter.ts";

/** One subtask of a vertex: a source (with its chain) or an operator chain. */
export interface BuiltSubtask {
  /** The actor id, `job/operator/subtask`. */
  readonly id: string;
  /** The vertex. */
  readonly vertex: JobVertex;
  /** The subtask index. */
  readonly index: number;
  /** Its input-activity clock (pause it under back-pressure). */
  readonly activityClock: PausableClock;
  /** Gauges registered by its operators and generators. */
  readonly gauges: Map<string, () => number>;
  /** The operator chain, unless it is a source. */
  readonly subtask: Subtask | null;
  /** The source, if it is one. */
  readonly source: SourceSubtask<unknown> | null;
}

/** What a runtime gives every subtask it builds. */
export interface SubtaskHooks {
  /** Processing time. */
  readonly clock: Clock;
  /** Whether snapshots keep generator and valve state. */
  readonly persistWatermarks: boolean;
  /** Whether the runtime snapshots every step (see `OperatorContext.stepSnapshots`). */
  readonly stepSnapshots?: boolean;
  /** What happens to a record whose processing throws; `"dead-letter"` by default. */
  readonly errorPolicy?: ErrorPolicy;
  /** Letter ids of records that failed once under `"fail"`: set aside if they fail again. */
  readonly quarantine?: ReadonlySet<string>;
  /** When the job started (see `OperatorContext.startMs`); now by default. */
  readonly startMs?: number;
  /** Delivers an element to channel `channel` of output edge `edge`. */
  send(edge: number, channel: number, element: StreamElement): void;
  /** An operator has mail (an asynchronous call completed). */
  requestMail(): void;
  /** Hands out groups of keyed state (incremental snapshots), if supported. */
  readonly snapshotParts?: SnapshotOptions["parts"];
  /** Receives the snapshot taken when checkpoint barriers aligned. */
  onSnapshot(checkpointId: number, snapshot: unknown): void;
}

/**
 * Builds subtask `index` of `vertex`.
 *
 * @param graph The job.
 * @param vertex One of its vertices.
 * @param index The subtask index.
 * @param hooks The runtime's side: clock, sending, mail and snapshots.
 */
export function buildSubtask(
  graph: JobGraph,
  vertex: JobVertex,
  index: number,
  hooks: SubtaskHooks,
): BuiltSubtask {
  const gauges = new Map<string, () => number>();
  const metrics: MetricGroup = {
    gauge(name, read) {
      gauges.set(name, read);
    },
  };
  const activityClock = new PausableClock(hooks.clock);
  const context = {
    clock: hooks.clock,
    activityClock,
    subtaskIndex: index,
    parallelism: vertex.parallelism,
    metrics,
    requestMail: () => hooks.requestMail(),
    stepSnapshots: hooks.stepSnapshots ?? false,
    startMs: hooks.startMs,
  };
  const edges: SubtaskEdge[] = graph.edges.filter((e) => e.from === vertex.id)
    .map((edge) => {
      const to = graph.vertices.find((v) => v.id === edge.to)!;
      const head = to.operators?.[0];
      return {
        partitioner: edge.partitioner(index),
        numChannels: to.parallelism,
        sideOutputTag: edge.sideOutputTag,
        // Dead letters of records whose key cannot be taken name it.
        target: head?.uid ?? head?.id ?? to.id,
      };
    });
  // The same policy, quarantine and operator names for every subtask, in
  // either runtime: a letter's id depends on them.
  const policy = {
    errorPolicy: hooks.errorPolicy,
    quarantine: hooks.quarantine,
    descriptors: vertex.operators,
  };
  const send = (edge: number, channel: number, element: StreamElement) =>
    hooks.send(edge, channel, element);
  const id = `${graph.jobName}/${vertex.id}/${index}`;
  if (vertex.source !== undefined) {
    const source = new SourceSubtask(
      {
        reader: vertex.source.source.createReader(index, vertex.parallelism),
        strategy: vertex.source.strategy,
        operators: vertex.createOperators(index),
        edges,
        autoWatermarkIntervalMs: graph.autoWatermarkIntervalMs,
        persistWatermarks: hooks.persistWatermarks,
        snapshotParts: hooks.snapshotParts,
        onSnapshot: (checkpointId, snapshot) =>
          hooks.onSnapshot(checkpointId, snapshot),
        ...policy,
      },
      context,
      send,
    );
    return {
      id,
      vertex,
      index,
      activityClock,
      gauges,
      subtask: null,
      source,
    };
  }
  const subtask = new Subtask(
    {
      operators: vertex.createOperators(index),
      numInputChannels: inputChannelCount(graph, vertex.id),
      edges,
      inputPolicy: vertex.inputPolicy,
      persistWatermarks: hooks.persistWatermarks,
      snapshotParts: hooks.snapshotParts,
      onSnapshot: (checkpointId, snapshot) =>
        hooks.onSnapshot(checkpointId, snapshot),
      ...policy,
    },
    context,
    send,
  );
  return { id, vertex, index, activityClock, gauges, subtask, source: null };
}

/** How many input channels subtasks of vertex `id` have: one per upstream subtask. */
export function inputChannelCount(graph: JobGraph, id: string): number {
  return graph.edges.filter((e) => e.to === id).reduce(
    (sum, e) => sum + graph.vertices.find((v) => v.id === e.from)!.parallelism,
    0,
  );
}

/**
 * Where each edge's channels start among its consumer's input channels: a
 * vertex with several inputs numbers their channels one after another, in
 * the order of the graph's edges, then by upstream subtask.
 *
 * @returns One offset per edge of `graph.edges`, in order.
 */
export function edgeChannelOffsets(graph: JobGraph): number[] {
  const next = new Map<string, number>();
  return graph.edges.map((edge) => {
    const offset = next.get(edge.to) ?? 0;
    const upstream = graph.vertices.find((v) => v.id === edge.from)!;
    next.set(edge.to, offset + upstream.parallelism);
    return offset;
  });
}
