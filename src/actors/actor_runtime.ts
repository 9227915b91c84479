/**
 * The contract both runtimes implement: what a job's runtime takes
 * ({@linkcode RuntimeOptions}), what it does ({@linkcode ActorRuntime}) and
 * what it reports ({@linkcode SubtaskStatus}). The local runtime keeps
 * mailboxes in memory; the KV runtime keeps channel logs and leases in
 * Deno KV; an option one of them cannot honour is refused by name, never
 * ignored.
 *
 * @module
 */

import type { Clock } from "../time/clock.ts";
import type { ErrorPolicy } from "../runtime/dead_letter.ts";
import type { InputChannelStatus } from "../runtime/subtask.ts";
import type { PartitionState } from "../runtime/partition_state.ts";
import type { CompletedCheckpoint } from "./checkpoint.ts";
import type { DeadLetterLog } from "./dead_letter_log.ts";
import type { ActorStorage } from "./storage.ts";
import type { ActorFailure } from "./actor_failure.ts";

/** The options every runtime takes, with the same meaning on each. */
export interface RuntimeOptions {
  /** Processing time for every subtask (timers, checkpoints, leases). */
  readonly clock: Clock;
  /**
   * Processing time between checkpoints; 0 disables periodic checkpoints
   * (a checkpoint can still be triggered).
   * @default {0}
   */
  readonly checkpointIntervalMs?: number;
  /**
   * Whether checkpoints keep event-time progress (`"persist"`) or event time
   * restarts at `-Infinity` and is rebuilt from replayed records (`"replay"`,
   * Flink's behaviour). The KV runtime applies it to every take-over of an
   * actor too (another worker, a retry after a failure).
   * @default {"replay"}
   */
  readonly watermarkRecovery?: "persist" | "replay";
  /**
   * Where completed checkpoints are saved; without it they are kept in
   * memory only. With `highestId` (a `CheckpointStore` has it), new ids
   * continue above the highest the store ever held, whichever checkpoint
   * the job restored.
   */
  readonly checkpointStore?: {
    save(checkpoint: CompletedCheckpoint): Promise<void>;
    highestId?(): Promise<number>;
  };
  /**
   * A completed checkpoint to restore every subtask from; it may come from
   * another parallelism (state is redistributed by key group and by
   * partition). The KV runtime uses it when the job is first started in
   * its database; later starts resume from the actors' committed state.
   */
  readonly restoreFrom?: CompletedCheckpoint;
  /**
   * Whether restoring `restoreFrom` may drop the state of operators this
   * job no longer has (Flink's `--allowNonRestoredState`); otherwise such a
   * checkpoint is refused with a `CheckpointMismatchError` naming them.
   * State is matched by operator uid, or positional id without one.
   * @default {false}
   */
  readonly allowNonRestoredState?: boolean;
  /**
   * The highest checkpoint id already stored, so new ids continue above it.
   * @default {0}
   */
  readonly lastCheckpointId?: number;
  /**
   * Whether `run()` moves a settable clock (a `ManualClock`) forward to the
   * next timer when nothing else can run: a deterministic simulation of
   * processing time. Otherwise `run()` waits for the real time.
   * @default {true when the clock has a `set` method}
   */
  readonly simulate?: boolean;
  /**
   * What happens to a record whose processing throws: `"dead-letter"` sets it aside in the
   * dead-letter log and goes on; `"fail"` restarts from the last durable
   * state with the record's strike remembered, and a record that fails
   * again is set aside as `"quarantined"`.
   * @default {"dead-letter"}
   */
  readonly errorPolicy?: ErrorPolicy;
  /**
   * Where the dead-letter log is kept; letters are durable there before
   * any checkpoint or step that skips their records.
   * @default {in memory (local runtime); ["weir", job, "dead-letters"] in the job's KV (KV runtime)}
   */
  readonly deadLetterStorage?: ActorStorage;
}

/** What a runtime reports about one subtask. */
export interface SubtaskStatus {
  /** The actor id, `job/operator/subtask`. */
  readonly id: string;
  /** The operator (vertex) id. */
  readonly operator: string;
  /** The subtask index. */
  readonly subtask: number;
  /** The merged input watermark (for sources: the emitted watermark). */
  readonly inputWatermark: number;
  /** The last watermark sent downstream. */
  readonly outputWatermark: number;
  /** Whether the output is idle. */
  readonly idle: boolean;
  /** Records received. */
  readonly recordsIn: number;
  /** Records sent downstream. */
  readonly recordsOut: number;
  /** Elements waiting in the mailbox. */
  readonly mailboxDepth: number;
  /** Processing time minus the output watermark, in milliseconds. */
  readonly watermarkLagMs: number;
  /** Whether the subtask is paused by back-pressure or alignment. */
  readonly paused: boolean;
  /** Gauges registered by the subtask's operators and generators. */
  readonly gauges: Readonly<Record<string, number>>;
  /**
   * The KV runtime only: the worker (process, Deploy instance) that holds
   * the actor's lease, or `null` if none does now.
   */
  readonly worker?: string | null;
  /**
   * The KV runtime only: the actor is stopped after failing (its code
   * threw, or Deno KV kept failing) and waits for its retry: what it
   * failed on, how many times in a row, and when it is tried again.
   */
  readonly stuck?: ActorFailure;
}

/**
 * A running job as both runtimes present it: run it, stop it, ask for a
 * checkpoint, and read what it has done. `LocalRuntime`, `LocalJob` (a
 * local runtime with restarts: what `execute()` runs) and `KvRuntime`
 * implement it.
 *
 * `status()` and `triggerCheckpoint()` are synchronous on the local
 * runtime and go through Deno KV on the KV runtime: `await` them on
 * either. They stay unions rather than uniformly `Promise`s because the
 * local runtime's synchronous forms are what {@linkcode RuntimeView} (the
 * HTTP service's and the dashboard's synchronous read) and many tests that
 * step a job read between steps rely on; a `Promise` there would make each
 * of those callers async for no I/O.
 */
export interface ActorRuntime {
  /**
   * Runs until the job has finished or `stop()` is called. What it
   * resolves to is the runtime's own (a `LocalJob`: the `LocalRuntime`
   * that ran last, for its final status); the contract promises nothing.
   */
  run(): Promise<unknown>;
  /** Asks `run()` to return after the current step. */
  stop(): void;
  /** Whether every subtask has finished. */
  readonly finished: boolean;
  /** Every subtask's status. */
  status(): readonly SubtaskStatus[] | Promise<readonly SubtaskStatus[]>;
  /**
   * Starts a checkpoint now. The local runtime answers its id, or `null` if
   * one is in progress; the KV runtime asks the job's coordinator, in
   * whichever process holds it, and the id is known when it completes.
   */
  triggerCheckpoint(): number | null | Promise<void>;
  /** The last checkpoint this runtime completed, if any. */
  readonly latestCheckpoint: CompletedCheckpoint | null;
  /** The job's dead-letter log. */
  readonly deadLetters: DeadLetterLog;
  /** Letters this runtime wrote that were new to the log. */
  readonly deadLetterCount: number;
  /** Processing time of the next timer, checkpoint or retry due. */
  nextWakeup(): number;
}

/**
 * A runtime as an observer (the HTTP service, the dashboard) reads it,
 * synchronously: a `LocalRuntime`, or a `KvRuntimeView` (the KV runtime's
 * state as last read from KV).
 */
export interface RuntimeView {
  /** Every subtask's status. */
  status(): SubtaskStatus[];
  /** How long a checkpoint took from trigger to saved, if known. */
  checkpointDurationMs(id: number): number | undefined;
  /** Starts a checkpoint: its id, or `null` if one is in progress. */
  triggerCheckpoint(): number | null;
  /** The partitions a source subtask reads, if known. */
  sourcePartitions(actorId: string): readonly string[];
  /**
   * Each partition of a source subtask with its own watermark and status;
   * absent where the view cannot know them (another process's partitions).
   */
  sourcePartitionStates?(actorId: string): PartitionState[];
  /** Each input channel of an actor. */
  inputChannels(actorId: string): InputChannelStatus[];
  /** The last checkpoint completed, if any. */
  readonly latestCheckpoint: CompletedCheckpoint | null;
  /** The job's dead-letter log, when the runtime has one. */
  readonly deadLetters?: DeadLetterLog;
}
