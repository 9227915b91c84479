/**
 * The plan of a job: operators (vertices) with their parallelism, and the
 * edges between them. The API builds it; the runtimes instantiate it.
 *
 * @module
 */

import type { WatermarkStrategy } from "../time/mod.ts";
import type { Partitioner } from "./partitioner.ts";
import type { Source } from "./source.ts";
import type { StreamOperator } from "./stream_operator.ts";
import type { StateKind } from "./rescale/state_kind.ts";

/** How a source vertex reads: the connector and the watermark strategy. */
export interface SourceSpec {
  /** The connector. */
  readonly source: Source<unknown>;
  /** Timestamps and watermarks per partition. */
  readonly strategy: WatermarkStrategy<unknown>;
}

/**
 * What a runtime needs to know about one operator of a chain to find its
 * state in a checkpoint taken by another version of the job: its id, and
 * what its state means.
 */
export interface OperatorDescriptor {
  /**
   * The operator's positional id, e.g. `window-3`: the order in which the
   * program created it. Unique in the job.
   */
  readonly id: string;
  /**
   * The stable id the user gave it (Flink's `uid()`), if any: its state is
   * then found by this id wherever the operator sits in the job.
   * @default {undefined}
   */
  readonly uid?: string;
  /** A readable name, for messages. */
  readonly name: string;
  /**
   * What the operator's state means, as flat plain data (e.g. `{ operator:
   * "window", keyed: true, assigner: "TumblingEventTimeWindows", sizeMs:
   * 60000 }`): a checkpoint whose operator of the same id has another
   * meaning is refused rather than misread.
   */
  readonly state: Readonly<Record<string, string | number | boolean>>;
  /**
   * How the operator's state is split when its parallelism changes, as
   * its class declares (`stateKind`); not part of the fingerprint.
   * @default {undefined: only an operator without state can be rescaled}
   */
  readonly stateKind?: StateKind;
}

/**
 * One operator of the plan, possibly a chain of operators that run in the
 * same subtask (Flink's `JobVertex`).
 */
export interface JobVertex {
  /** A stable id, unique in the job, e.g. `window-4`; part of actor ids. */
  readonly id: string;
  /** A readable name for plans and metrics. */
  readonly name: string;
  /** The number of subtasks. */
  readonly parallelism: number;
  /** Set for source vertices. */
  readonly source?: SourceSpec;
  /** Creates fresh operators (chained after the source, if any) for one subtask. */
  createOperators(subtaskIndex: number): StreamOperator<unknown, unknown>[];
  /**
   * How the watermarks of the input channels combine.
   * @default {"min"}
   */
  readonly inputPolicy?: "min" | "max";
  /**
   * For a vertex whose chain holds an event-time window operator with a
   * fixed size (tumbling, sliding): the window size in milliseconds. Only
   * describes the plan, for diagnosis; runtimes ignore it.
   * @default {undefined}
   */
  readonly windowSizeMs?: number;
  /**
   * For a vertex whose chain holds a window operator: its allowed lateness
   * in milliseconds. Only describes the plan, for diagnosis.
   * @default {undefined}
   */
  readonly allowedLatenessMs?: number;
  /**
   * The chain's operators, for matching their state across versions of
   * the job: the source's first for a source vertex, then one per operator
   * of `createOperators()`, in order. Without it (hand-built graphs) a
   * checkpoint is matched vertex by vertex, by vertex id.
   * @default {undefined}
   */
  readonly operators?: readonly OperatorDescriptor[];
}

/** A connection from every subtask of one vertex to the subtasks of another. */
export interface JobEdge {
  /** The upstream vertex id. */
  readonly from: string;
  /** The downstream vertex id. */
  readonly to: string;
  /** Creates the partitioner of one upstream subtask. */
  partitioner(subtaskIndex: number): Partitioner<unknown>;
  /** When set, the edge carries this side output of `from`. */
  readonly sideOutputTag?: string;
}

/** A job's plan. */
export interface JobGraph {
  /** The job's name; part of actor ids and storage keys. */
  readonly jobName: string;
  /** The vertices, upstream before downstream. */
  readonly vertices: readonly JobVertex[];
  /** The edges. */
  readonly edges: readonly JobEdge[];
  /** The number of key groups. */
  readonly maxParallelism: number;
  /** Processing time between periodic watermarks; 0 disables them. */
  readonly autoWatermarkIntervalMs: number;
}

/**
 * Checks a plan before a runtime instantiates it.
 *
 * @param graph The plan.
 * @throws {RangeError} If vertex ids, operator ids or uids repeat, an edge
 * names an unknown vertex or goes upstream, a parallelism is out of `[1, maxParallelism]`, a source has
 * inputs or another vertex has none.
 */
export function validateJobGraph(graph: JobGraph): void {
  if (!Number.isSafeInteger(graph.maxParallelism) || graph.maxParallelism < 1) {
    throw new RangeError(
      `Cannot run job '${graph.jobName}' as 'maxParallelism' must be a positive safe integer: current value is ${graph.maxParallelism}`,
    );
  }
  const position = new Map<string, number>();
  graph.vertices.forEach((vertex, i) => {
    if (position.has(vertex.id)) {
      throw new RangeError(
        `Cannot run job '${graph.jobName}' as operator ids must be unique: current value is '${vertex.id}', which repeats`,
      );
    }
    if (
      !Number.isSafeInteger(vertex.parallelism) || vertex.parallelism < 1 ||
      vertex.parallelism > graph.maxParallelism
    ) {
      throw new RangeError(
        `Cannot run job '${graph.jobName}' as 'parallelism' of '${vertex.id}' must be an integer from 1 to maxParallelism ${graph.maxParallelism}: current value is ${vertex.parallelism}`,
      );
    }
    position.set(vertex.id, i);
  });
  requireUniqueStateIds(graph);
  const inputs = new Map<string, number>();
  for (const edge of graph.edges) {
    const from = position.get(edge.from);
    const to = position.get(edge.to);
    if (from === undefined || to === undefined || from >= to) {
      throw new RangeError(
        `Cannot run job '${graph.jobName}' as an edge must go from an operator to a later one: current value is '${edge.from}' -> '${edge.to}'`,
      );
    }
    inputs.set(edge.to, (inputs.get(edge.to) ?? 0) + 1);
  }
  for (const vertex of graph.vertices) {
    const count = inputs.get(vertex.id) ?? 0;
    if (vertex.source !== undefined && count > 0) {
      throw new RangeError(
        `Cannot run job '${graph.jobName}' as source '${vertex.id}' must have no inputs: current value is ${count}`,
      );
    }
    if (vertex.source === undefined && count === 0) {
      throw new RangeError(
        `Cannot run job '${graph.jobName}' as operator '${vertex.id}' must have an input: current value is none`,
      );
    }
  }
}

/**
 * Operators' state is matched by uid, or by positional id without one: two
 * operators with one uid (or one positional id) would share one state. A
 * uid may equal another operator's positional id: the two never meet.
 */
function requireUniqueStateIds(graph: JobGraph): void {
  const byId = new Map<string, OperatorDescriptor>();
  const byUid = new Map<string, OperatorDescriptor>();
  for (const vertex of graph.vertices) {
    for (const op of vertex.operators ?? []) {
      const clash = byId.get(op.id) ??
        (op.uid === undefined ? undefined : byUid.get(op.uid));
      if (clash !== undefined) {
        const what = byId.has(op.id) ? "id" : "uid";
        throw new RangeError(
          `Cannot run job '${graph.jobName}' as operator ${what}s must be unique: current value is '${
            what === "id" ? op.id : op.uid
          }', the ${what} of operator '${clash.name}' (${clash.id}) and operator '${op.name}' (${op.id})`,
        );
      }
      byId.set(op.id, op);
      if (op.uid !== undefined) byUid.set(op.uid, op);
    }
  }
}
