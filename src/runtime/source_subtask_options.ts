/**
 * What a source subtask is built from: its reader, its watermark strategy,
 * the operators chained after it, its edges, and its error policy.
 *
 * @module
 */

import type { WatermarkStrategy } from "../time/mod.ts";
import type { SourceReader } from "./source.ts";
import type { SnapshotOptions, StreamOperator } from "./stream_operator.ts";
import type { SubtaskEdge } from "./subtask_options.ts";
import type { ErrorPolicy } from "./dead_letter.ts";
import type { OperatorDescriptor } from "./job_graph.ts";
import type { SourceSubtaskSnapshot } from "./source_subtask_snapshot.ts";

/** Options of a `SourceSubtask`. */
export interface SourceSubtaskOptions<T> {
  /** The reader of this subtask's partitions. */
  readonly reader: SourceReader<T>;
  /** Timestamps and watermarks, one generator per partition. */
  readonly strategy: WatermarkStrategy<T>;
  /** Operators chained after the source, head first; may be empty. */
  readonly operators: readonly StreamOperator<unknown, unknown>[];
  /** The output edges. */
  readonly edges: readonly SubtaskEdge[];
  /** Processing time between periodic watermarks; 0 disables them. */
  readonly autoWatermarkIntervalMs: number;
  /**
   * Records read per poll at most.
   * @default {1024}
   */
  readonly maxBatchSize?: number;
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
  /** Receives the subtask's snapshot when it takes part in a checkpoint. */
  readonly onSnapshot?: (
    checkpointId: number,
    snapshot: SourceSubtaskSnapshot,
  ) => void;
  /**
   * What to do with a record whose processing throws, here (the timestamp
   * assigner) or in the chained operators (see `SubtaskOptions.errorPolicy`).
   * @default {"dead-letter"}
   */
  readonly errorPolicy?: ErrorPolicy;
  /**
   * Under `"fail"`: strikes of records, and sites, to set aside this time (see
   * `SubtaskOptions.quarantine`).
   * @default {new Set()}
   */
  readonly quarantine?: ReadonlySet<string>;
  /**
   * The vertex's operators as the job graph describes them
   * (`JobVertex.operators`): the source's first, then one per chained
   * operator. Dead letters name an operator by its uid, or its name.
   * @default {undefined}
   */
  readonly descriptors?: readonly OperatorDescriptor[];
}
