/**
 * What a subtask is built from: its operator chain, its input channels, its
 * output edges and how it sends on them, and its error policy.
 *
 * @module
 */

import type { StreamElement } from "./stream_element.ts";
import type { SnapshotOptions, StreamOperator } from "./stream_operator.ts";
import type { Partitioner } from "./partitioner.ts";
import type { ErrorPolicy } from "./dead_letter.ts";
import type { OperatorDescriptor } from "./job_graph.ts";
import type { SubtaskSnapshot } from "./subtask_snapshot.ts";

/** One output edge of a subtask: the channels of one downstream operator. */
export interface SubtaskEdge {
  /** How records are spread over the channels. */
  readonly partitioner: Partitioner<unknown>;
  /** The downstream parallelism. */
  readonly numChannels: number;
  /** When set, the edge carries this side output instead of the main output. */
  readonly sideOutputTag?: string;
  /**
   * The downstream operator (its uid, or its positional id): a record whose
   * key the partitioner cannot take (the key selector throws, the key
   * cannot be hashed) is set aside by this subtask as a dead letter of
   * operator `"<target> key"`.
   * @default {"edge <index>"}
   */
  readonly target?: string;
}

/**
 * Sends one element to one channel of one edge.
 *
 * @param edge The index into the subtask's edges.
 * @param channel The downstream subtask index.
 * @param element The element; shared, never modify it.
 */
export type SubtaskSend = (
  edge: number,
  channel: number,
  element: StreamElement,
) => void;

/** Options of a `Subtask`. */
export interface SubtaskOptions {
  /** The operator chain, head first; at least one operator. */
  readonly operators: readonly StreamOperator<unknown, unknown>[];
  /** How many upstream subtasks feed this one. */
  readonly numInputChannels: number;
  /** The output edges. */
  readonly edges: readonly SubtaskEdge[];
  /**
   * How the input channels' watermarks combine.
   * @default {"min"}
   */
  readonly inputPolicy?: "min" | "max";
  /**
   * Whether snapshots keep event-time progress (`watermarkRecovery: "persist"`).
   * @default {true}
   */
  readonly persistWatermarks?: boolean;
  /**
   * Stores large groups of operator state apart, for incremental
   * checkpoints (see {@linkcode SnapshotOptions.parts}); given by a runtime.
   */
  readonly snapshotParts?: SnapshotOptions["parts"];
  /**
   * Receives the subtask's snapshot when checkpoint barriers are aligned,
   * before the barrier is forwarded.
   */
  readonly onSnapshot?: (
    checkpointId: number,
    snapshot: SubtaskSnapshot,
  ) => void;
  /**
   * What to do with a record whose processing throws (see
   * {@linkcode ErrorPolicy}): set it aside as a dead letter, or throw
   * `RecordFailedError` out of `receive` (or whatever step processed it).
   * @default {"dead-letter"}
   */
  readonly errorPolicy?: ErrorPolicy;
  /**
   * Under `"fail"`: the strikes (`RecordFailedError.strike`) of records
   * that failed once, before the restore that built this subtask; the
   * records are set aside (`"quarantined"`) this time instead of failing
   * again, wherever they come in the input; and sites
   * (`RecordFailedError.site`) where every record that fails is set aside.
   * @default {new Set()}
   */
  readonly quarantine?: ReadonlySet<string>;
  /**
   * The chain's operators as the job graph describes them
   * (`JobVertex.operators`, one per operator, head first): dead letters
   * name an operator by its uid, or its name. Without them, by class name.
   * @default {undefined}
   */
  readonly descriptors?: readonly OperatorDescriptor[];
}
