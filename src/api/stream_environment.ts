/**
 * Where a job is built and run (Flink's `StreamExecutionEnvironment`).
 *
 * @module
 */

import { type Clock, SystemClock, WatermarkStrategy } from "../time/mod.ts";
import type { JobGraph } from "../runtime/job_graph.ts";
import type { Source } from "../runtime/source.ts";
import { LocalRuntime } from "../actors/local/local_runtime.ts";
import { LocalJob } from "../actors/local/local_job.ts";
import { MemoryStorage } from "../actors/local/memory_storage.ts";
import type { ErrorPolicy } from "../runtime/dead_letter.ts";
import { KvRuntime, type KvRuntimeOptions } from "../actors/kv/kv_runtime.ts";
import type { CheckpointStore } from "../actors/checkpoint_store.ts";
import type { CompletedCheckpoint } from "../actors/checkpoint.ts";
import type { ActorStorage } from "../actors/storage.ts";
import { fingerprintOf } from "../runtime/fingerprint.ts";
import { CollectionSource } from "../connectors/sources/collection.ts";
import {
  type CollectedRecord,
  CollectSink,
} from "../connectors/sinks/collect.ts";
import { addNode, buildJobGraph, type Plan } from "./_plan.ts";
import { connectorMeaning } from "./_state_meaning.ts";
import { checkEnvironmentOptions } from "./_environment_options.ts";
import { DataStream } from "./data_stream.ts";
import type {
  ExecuteOptions,
  StreamEnvironmentOptions,
} from "./stream_environment_options.ts";

export type {
  ExecuteOptions,
  StreamEnvironmentOptions,
} from "./stream_environment_options.ts";

/**
 * Builds a job from sources and operators and runs it in the local runtime.
 *
 * @example Counting words in event-time windows
 * ```ts
 * import { ManualClock, StreamEnvironment, TumblingEventTimeWindows } from "@weir/weir";
 * import assert from "node:assert/strict";
 *
 * const env = new StreamEnvironment({ jobName: "words", parallelism: 2, clock: new ManualClock() });
 * const words = env.fromCollection(["a", "b", "a"], { timestampOf: () => 1_000 });
 * const counts = words.keyBy((w) => w).window(TumblingEventTimeWindows.of(60_000))
 *   .aggregate({ createAccumulator: () => 0, add: (_w, n) => n + 1, getResult: (n) => n, merge: (a, b) => a + b });
 * assert.deepEqual((await env.executeAndCollect(counts)).sort(), [1, 2]);
 * ```
 */
export class StreamEnvironment {
  readonly #plan: Plan;
  readonly #parallelism: number;
  readonly #clock: Clock;
  readonly #mailboxCapacity: number | undefined;
  readonly #checkpointIntervalMs: number;
  readonly #watermarkRecovery: "persist" | "replay";
  readonly #checkpoints: CheckpointStore | null;
  readonly #errorPolicy: ErrorPolicy;
  // Given, or for the local runtime in memory: one log for every run.
  readonly #deadLetterStorage: ActorStorage | null;
  readonly #strikeStorage: ActorStorage | null;
  readonly #localDeadLetters: ActorStorage;
  readonly #localStrikes: ActorStorage;

  /**
   * Creates an environment with an empty job.
   *
   * @param options Job name, parallelism, clock and intervals.
   * @throws {RangeError} If a number is out of range.
   * @throws {TypeError} If `jobName` is not a string.
   */
  constructor(options: StreamEnvironmentOptions) {
    const checked = checkEnvironmentOptions(options);
    this.#plan = checked.plan;
    this.#parallelism = checked.parallelism;
    this.#clock = options.clock ?? new SystemClock();
    this.#mailboxCapacity = options.mailboxCapacity;
    this.#checkpointIntervalMs = checked.checkpointIntervalMs;
    this.#watermarkRecovery = checked.watermarkRecovery;
    this.#checkpoints = checked.checkpoints;
    this.#errorPolicy = checked.errorPolicy;
    this.#deadLetterStorage = options.deadLetterStorage ?? null;
    this.#strikeStorage = options.strikeStorage ?? null;
    this.#localDeadLetters = this.#deadLetterStorage ?? new MemoryStorage();
    this.#localStrikes = this.#strikeStorage ?? new MemoryStorage();
  }

  /** The processing-time clock of the job. */
  get clock(): Clock {
    return this.#clock;
  }

  /**
   * A bounded source of the given items, split into partitions. Records
   * carry the timestamps of `timestampOf` (or none); there are no watermarks
   * until the end of input, when `Infinity` fires every window.
   *
   * @param items The records.
   * @param options Timestamps and the number of partitions.
   * @returns The stream.
   */
  fromCollection<T>(
    items: readonly T[],
    options: { timestampOf?: (item: T) => number; partitions?: number } = {},
  ): DataStream<T> {
    const source = new CollectionSource<T>(items, {
      timestampOf: options.timestampOf,
      partitions: options.partitions ?? this.#parallelism,
    });
    return this.fromSource(
      source,
      WatermarkStrategy.noWatermarks<T>(),
      "Collection",
    );
  }

  /**
   * A stream read from a source connector, with timestamps and watermarks
   * generated per source partition by `strategy`.
   *
   * @param source The connector.
   * @param strategy Timestamps and watermarks (and alignment, and idleness).
   * @param name A name for plans and metrics.
   * @returns The stream.
   */
  fromSource<T>(
    source: Source<T>,
    strategy: WatermarkStrategy<T>,
    name: string,
  ): DataStream<T> {
    const node = addNode(this.#plan, "source", {
      name,
      state: connectorMeaning("source", source),
      stateKind: "source",
      parallelism: this.#parallelism,
      inputs: [],
      source: {
        source: source as Source<unknown>,
        strategy: strategy as WatermarkStrategy<unknown>,
      },
    });
    return new DataStream<T>(this.#plan, [{
      node,
      exchange: { kind: "forward" },
    }], this.#parallelism);
  }

  /**
   * A strategy for ingestion time: each record is stamped with the
   * processing time at which the source reads it, and watermarks ascend with it.
   *
   * @returns The strategy, for `fromSource`.
   */
  ingestionTime<T>(): WatermarkStrategy<T> {
    const clock = this.#clock;
    return WatermarkStrategy.forMonotonousTimestamps<T>().withTimestampAssigner(
      function ingestionTimestamp() {
        return clock.now();
      },
    );
  }

  /**
   * Returns the runtime plan: vertices (operator chains) and edges.
   *
   * @returns The job graph.
   */
  getJobGraph(): JobGraph {
    return buildJobGraph(this.#plan);
  }

  /**
   * Creates the local runtime for the job without running it, for stepwise
   * control in tests and the dev server. Its checkpoints are numbered above
   * every id the checkpoint storage ever held, read by its first `run()`
   * or `flushCheckpoints()`.
   *
   * @param restoreFrom The checkpoint to start from, e.g. from
   * {@linkcode StreamEnvironment.findCheckpoint}.
   * @param options Whether state of operators this job no longer has may
   * be dropped.
   * @returns The runtime.
   * @throws {CheckpointMismatchError} If `restoreFrom` holds state of an
   * operator this job lacks, without `allowNonRestoredState`.
   */
  createRuntime(
    restoreFrom?: CompletedCheckpoint,
    options: Pick<ExecuteOptions, "allowNonRestoredState"> = {},
  ): LocalRuntime {
    return new LocalRuntime(this.getJobGraph(), {
      ...this.#localOptions(),
      allowNonRestoredState: options.allowNonRestoredState,
      restoreFrom,
    });
  }

  /**
   * Creates the job on the local runtime without running it: a
   * {@linkcode LocalJob}, which restarts it from its latest checkpoint when
   * a record fails under `errorPolicy: "fail"` (what `execute()` runs, and
   * the dev server serves).
   *
   * @param restoreFrom The checkpoint to start from, e.g. from
   * {@linkcode StreamEnvironment.findCheckpoint}.
   * @param options Whether state of operators this job no longer has may
   * be dropped.
   * @returns The job; call `run()`.
   * @throws {CheckpointMismatchError} If `restoreFrom` holds state of an
   * operator this job lacks, without `allowNonRestoredState`.
   */
  createJob(
    restoreFrom?: CompletedCheckpoint,
    options: Pick<ExecuteOptions, "allowNonRestoredState"> = {},
  ): LocalJob {
    return new LocalJob(this.getJobGraph(), {
      ...this.#localOptions(),
      allowNonRestoredState: options.allowNonRestoredState,
      restoreFrom,
      strikeStorage: this.#localStrikes,
    });
  }

  #localOptions() {
    return {
      clock: this.#clock,
      mailboxCapacity: this.#mailboxCapacity,
      checkpointIntervalMs: this.#checkpointIntervalMs,
      watermarkRecovery: this.#watermarkRecovery,
      checkpointStore: this.#checkpoints ?? undefined,
      errorPolicy: this.#errorPolicy,
      deadLetterStorage: this.#localDeadLetters,
    };
  }

  /**
   * Creates a worker of the KV runtime for the job:
   * the same job, with every subtask an actor whose steps are atomic
   * commits to `options.kv`. Start one per process (or Deploy instance);
   * they share the actors. The environment's clock, checkpoint interval,
   * checkpoint storage, `watermarkRecovery`, `errorPolicy` and dead-letter
   * and strike storages (by default in `options.kv`) apply; `mailboxCapacity` is
   * the local runtime's and is refused (the KV runtime's back-pressure
   * bound is `options.maxChannelLag`).
   *
   * @param options The shared database and the worker's settings.
   * @param restoreFrom The checkpoint the job starts from the first time it
   * runs in this database.
   * @returns The worker; call `run()` (or `tick()`).
   * @throws {RangeError} If the environment sets `mailboxCapacity`, or an
   * option is out of range.
   *
   * @example
   * ```ts ignore
   * const kv = await Deno.openKv("./.weir/weir.sqlite");
   * await env.createKvRuntime({ kv }).run();
   * ```
   */
  createKvRuntime(
    options: Omit<
      KvRuntimeOptions,
      | "clock"
      | "checkpointIntervalMs"
      | "checkpointStore"
      | "restoreFrom"
      | "watermarkRecovery"
      | "errorPolicy"
      | "deadLetterStorage"
      | "strikeStorage"
    >,
    restoreFrom?: CompletedCheckpoint,
  ): KvRuntime {
    if (this.#mailboxCapacity !== undefined) {
      // An option a runtime cannot honour is refused, never ignored.
      throw new RangeError(
        `Cannot create the KV runtime of job '${this.#plan.jobName}' as 'mailboxCapacity' must be unset (it bounds the local runtime's mailboxes): current value is ${this.#mailboxCapacity}; the KV runtime's bound is 'maxChannelLag'`,
      );
    }
    return new KvRuntime(this.getJobGraph(), {
      ...options,
      clock: this.#clock,
      checkpointIntervalMs: this.#checkpointIntervalMs,
      watermarkRecovery: this.#watermarkRecovery,
      checkpointStore: this.#checkpoints ?? undefined,
      restoreFrom,
      errorPolicy: this.#errorPolicy,
      deadLetterStorage: this.#deadLetterStorage ?? undefined,
      strikeStorage: this.#strikeStorage ?? undefined,
    });
  }

  /**
   * Finds the checkpoint to start from: the newest complete one of this job
   * (a corrupt one is skipped with a log line), or the one asked for.
   *
   * @param restore `"latest"`, `"none"` or a checkpoint id.
   * @returns The checkpoint, or `null` to start fresh (no checkpoint, or
   * only saves that crashed before completing).
   * @throws {CheckpointMismatchError} If the stored checkpoint belongs to another job or plan.
   * @throws {UnreadableCheckpointsError} If complete checkpoints exist and
   * none is whole: `"none"` starts over.
   * @throws {RangeError} If an explicit checkpoint id does not exist.
   */
  async findCheckpoint(
    restore: ExecuteOptions["restore"] = "latest",
  ): Promise<CompletedCheckpoint | null> {
    if (this.#checkpoints === null || restore === "none") return null;
    const fingerprint = fingerprintOf(this.getJobGraph());
    if (restore === "latest") {
      return await this.#checkpoints.latest(fingerprint);
    }
    return await this.#checkpoints.load(restore, fingerprint);
  }

  /**
   * Runs the job until its bounded input is processed to the end, starting
   * from the latest complete checkpoint when `checkpointStorage` has one.
   * New checkpoints are numbered above every id the store ever held. Under
   * `errorPolicy: "fail"`, a record that fails restarts the job from its
   * latest checkpoint (see {@linkcode LocalJob}).
   *
   * @param options Which checkpoint to start from, and whether state of
   * operators this job no longer has may be dropped.
   * @returns The runtime, for its final status.
   * @throws {CheckpointMismatchError} If the checkpoint belongs to another
   * job, an operator's state means something else in it, or it holds state
   * of an operator this job lacks (see `allowNonRestoredState`).
   * @throws {UnreadableCheckpointsError} If complete checkpoints exist and
   * none is whole (see {@linkcode StreamEnvironment.findCheckpoint}).
   */
  async execute(options: ExecuteOptions = {}): Promise<LocalRuntime> {
    const job = this.createJob(
      (await this.findCheckpoint(options.restore)) ?? undefined,
      options,
    );
    return await job.run();
  }

  /**
   * Runs the job to the end and returns what `stream` produced. The input
   * must be bounded: its end brings the final watermark, which fires every
   * pending window.
   *
   * @param stream The stream to collect.
   * @returns Its records in arrival order.
   */
  async executeAndCollect<T>(stream: DataStream<T>): Promise<T[]> {
    return (await this.executeAndCollectRecords(stream)).map((r) => r.value);
  }

  /**
   * Like `executeAndCollect`, with each record's timestamp and subtask.
   *
   * @param stream The stream to collect.
   * @returns Its records with timestamps, in arrival order.
   */
  async executeAndCollectRecords<T>(
    stream: DataStream<T>,
  ): Promise<CollectedRecord<T>[]> {
    const sink = new CollectSink<T>();
    stream.sinkTo(sink);
    await this.execute();
    return sink.records;
  }
}
