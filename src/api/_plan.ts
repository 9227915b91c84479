// The API's internal plan: one node per operator call, turned into a
// runtime JobGraph with operator chaining when a job runs.

import type { WatermarkStrategy } from "../time/mod.ts";
import { requireNonEmptyString } from "../time/validate.ts";
import type { SourceSpec } from "../runtime/job_graph.ts";
import {
  forwardPartitioner,
  hashPartitioner,
  type Partitioner,
  rebalancePartitioner,
} from "../runtime/partitioner.ts";
import type { Source } from "../runtime/source.ts";
import type { StreamOperator } from "../runtime/stream_operator.ts";
import type { JobEdge, JobGraph, JobVertex } from "../runtime/job_graph.ts";
import type { StateMeaning } from "./_state_meaning.ts";
import type { DataStream } from "./data_stream.ts";
import type { StateKind } from "../runtime/rescale/state_kind.ts";

/** How records reach a node from one producer. */
export type Exchange =
  | { readonly kind: "forward" }
  | { readonly kind: "rebalance" }
  | {
    readonly kind: "hash";
    readonly keySelector: (value: unknown) => unknown;
  };

/** One producer feeding a node: a node's main output or one of its side outputs. */
export interface Input {
  readonly node: PlanNode;
  readonly sideOutputTag?: string;
  readonly exchange: Exchange;
}

/** One operator call of the program. */
export interface PlanNode {
  /** Positional: the kind and the order of the call, e.g. `window-3`. */
  readonly id: string;
  /** The stable id set by `uid()`, under which its state is checkpointed. */
  uid?: string;
  name: string;
  /** What the operator's state means, recorded in the fingerprint. */
  readonly state: StateMeaning;
  /** How its state is split on a rescale, as its operator class declares. */
  readonly stateKind: StateKind;
  parallelism: number;
  readonly inputs: readonly Input[];
  readonly source?: {
    source: Source<unknown>;
    strategy: WatermarkStrategy<unknown>;
  };
  readonly createOperator?: (
    subtaskIndex: number,
    parallelism: number,
  ) => StreamOperator<unknown, unknown>;
  inputPolicy?: "min" | "max";
  /** For a window node: the window size (fixed-size event-time windows). */
  readonly windowSizeMs?: number;
  /** For a window node: its allowed lateness. */
  readonly allowedLatenessMs?: number;
  /** Set once the user calls setParallelism, so defaults do not override it. */
  parallelismSet: boolean;
}

/** Everything a job is built from. */
/**
 * Makes the stream that reads `inputs`: given by `DataStream` to the keyed
 * and windowed streams it creates, so they return streams without
 * importing `DataStream` (which imports them).
 */
export type StreamOf = <R>(inputs: readonly Input[]) => DataStream<R>;

export interface Plan {
  readonly jobName: string;
  readonly nodes: PlanNode[];
  readonly maxParallelism: number;
  readonly autoWatermarkIntervalMs: number;
  counter: number;
}

/**
 * Builds the runtime graph: a node joins its producer's vertex (a chain)
 * when it has exactly one input, that input is the producer's main output
 * with a forward exchange at equal parallelism, and the producer has no
 * other consumer.
 */
export function buildJobGraph(plan: Plan): JobGraph {
  const consumers = new Map<PlanNode, number>();
  for (const node of plan.nodes) {
    for (const input of node.inputs) {
      consumers.set(input.node, (consumers.get(input.node) ?? 0) + 1);
    }
  }
  const vertexOf = new Map<PlanNode, { nodes: PlanNode[] }>();
  const chains: Array<{ nodes: PlanNode[] }> = [];
  for (const node of plan.nodes) {
    const [input] = node.inputs;
    const chainable = node.inputs.length === 1 &&
      input.sideOutputTag === undefined &&
      input.exchange.kind === "forward" &&
      input.node.parallelism === node.parallelism &&
      consumers.get(input.node) === 1 && node.inputPolicy === undefined;
    if (chainable) {
      const chain = vertexOf.get(input.node)!;
      chain.nodes.push(node);
      vertexOf.set(node, chain);
    } else {
      const chain = { nodes: [node] };
      chains.push(chain);
      vertexOf.set(node, chain);
    }
  }
  const vertices: JobVertex[] = chains.map(({ nodes }) => {
    const [head] = nodes;
    const operators = nodes.filter((n) => n.createOperator !== undefined);
    const source: SourceSpec | undefined = head.source;
    // Descriptive only (for diagnosis): the chain's first window.
    const window = nodes.find((n) => n.allowedLatenessMs !== undefined);
    return {
      id: head.id,
      name: nodes.map((n) => n.name).join(" -> "),
      parallelism: head.parallelism,
      source,
      inputPolicy: head.inputPolicy,
      ...(window === undefined ? {} : {
        windowSizeMs: window.windowSizeMs,
        allowedLatenessMs: window.allowedLatenessMs,
      }),
      createOperators: (subtaskIndex) =>
        operators.map((n) => n.createOperator!(subtaskIndex, n.parallelism)),
      // The source (which creates no operator) comes first, as the runtime expects.
      operators: nodes.map((n) => ({
        id: n.id,
        ...(n.uid === undefined ? {} : { uid: n.uid }),
        name: n.name,
        state: n.state,
        stateKind: n.stateKind,
      })),
    };
  });
  const edges: JobEdge[] = [];
  for (const { nodes } of chains) {
    const head = nodes[0];
    for (const input of head.inputs) {
      const from = vertexOf.get(input.node)!.nodes[0];
      // Forwarding needs equal parallelism; otherwise spread round-robin, as Flink does.
      const exchange: Exchange = input.exchange.kind === "forward" &&
          input.node.parallelism !== head.parallelism
        ? { kind: "rebalance" }
        : input.exchange;
      edges.push({
        from: from.id,
        to: head.id,
        sideOutputTag: input.sideOutputTag,
        partitioner: partitionerFactory(exchange, plan.maxParallelism),
      });
    }
  }
  return {
    jobName: plan.jobName,
    vertices,
    edges,
    maxParallelism: plan.maxParallelism,
    autoWatermarkIntervalMs: plan.autoWatermarkIntervalMs,
  };
}

function partitionerFactory(
  exchange: Exchange,
  maxParallelism: number,
): (subtaskIndex: number) => Partitioner<unknown> {
  switch (exchange.kind) {
    case "forward":
      return (index) => forwardPartitioner(index);
    case "rebalance":
      return (index) => rebalancePartitioner(index);
    case "hash":
      return () => hashPartitioner(exchange.keySelector, maxParallelism);
  }
}

/** Adds a node to the plan with the next id. */
export function addNode(
  plan: Plan,
  kind: string,
  fields: Omit<PlanNode, "id" | "parallelismSet">,
): PlanNode {
  const node: PlanNode = {
    ...fields,
    id: `${kind}-${plan.counter++}`,
    parallelismSet: false,
  };
  plan.nodes.push(node);
  return node;
}

/**
 * Gives `node` the stable id `uid`, unique among the plan's uids.
 *
 * @throws {TypeError} If `uid` is not a string.
 * @throws {RangeError} If `uid` is empty or another operator has it.
 */
export function assignUid(plan: Plan, node: PlanNode, uid: string): void {
  requireNonEmptyString(uid, { action: "set uid", param: "uid" });
  const other = plan.nodes.find((n) => n !== node && n.uid === uid);
  if (other !== undefined) {
    throw new RangeError(
      `Cannot set uid as 'uid' must be unique in job '${plan.jobName}': current value is '${uid}', already the uid of operator '${other.name}' (${other.id}), so it cannot also name operator '${node.name}' (${node.id}); give each operator its own uid`,
    );
  }
  node.uid = uid;
}
