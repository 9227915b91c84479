/**
 * {@linkcode LocalJobHandle}: the service's view of a job running in a
 * `LocalRuntime`, with a bounded history of watermark samples and
 * the processing time each input channel's watermark last moved.
 *
 * @module
 */

import { requirePositiveInteger } from "../time/validate.ts";
import { checkpointBytes } from "../actors/checkpoint_bytes.ts";
import type { CheckpointInfo } from "../actors/checkpoint.ts";
import type { DeadLetterLog } from "../actors/dead_letter_log.ts";
import type { RuntimeView, SubtaskStatus } from "../actors/actor_runtime.ts";
import type { JobGraph } from "../runtime/job_graph.ts";
import type { PartitionState } from "../runtime/partition_state.ts";
import type { Clock } from "../time/mod.ts";
import { CheckpointTracker } from "./checkpoint_tracker.ts";
import type {
  CheckpointRecord,
  CheckpointStats,
  GaugeSample,
  JobHandle,
  WatermarkSample,
} from "./job_handle.ts";

/** Options of a {@linkcode LocalJobHandle}. */
export interface LocalJobHandleOptions {
  /**
   * The running job, read only: a `LocalRuntime`, or a `KvRuntimeView` (the
   * KV runtime's state as last read from KV).
   */
  readonly runtime: RuntimeView;
  /** The job's plan, as the runtime was built from. */
  readonly graph: JobGraph;
  /** Processing time: when samples are taken and channels moved. */
  readonly clock: Clock;
  /**
   * Where the job's checkpoints are stored; without it only the checkpoints
   * seen completing while this handle looked are listed.
   * @default {undefined}
   */
  readonly store?: {
    list(): Promise<Array<CheckpointInfo & { sizeBytes?: number }>>;
  };
  /**
   * The checkpoint the job started from (`null`: it started afresh).
   * Defaults to the runtime's latest checkpoint when the handle is created
   * (a restored runtime shows the checkpoint it restored until it completes
   * one): right for a handle made before the job runs; pass it otherwise.
   * @default {runtime.latestCheckpoint}
   */
  readonly restoredFrom?: CheckpointInfo | null;
  /**
   * The job's name in URLs.
   * @default {graph.jobName}
   */
  readonly name?: string;
  /**
   * The job's dead-letter log, asked at every read: for a runtime the handle
   * does not wrap itself (the KV runtime behind a `KvRuntimeView`).
   * @default {() => runtime.deadLetters}
   */
  readonly deadLetters?: () => DeadLetterLog | undefined;
  /**
   * How many watermark samples to keep: a positive safe integer. At one
   * sample every 500 ms, 600 samples cover five minutes.
   * @default {600}
   */
  readonly historySize?: number;
}

/** What the handle remembers of one input channel between observations. */
interface ChannelTrack {
  watermark: number;
  lastMovedAt: number | null;
}

/**
 * A {@linkcode JobHandle} over a `LocalRuntime`.
 *
 * `sample()` reads every subtask's watermarks into the history (the oldest
 * sample is dropped beyond `historySize`) and compares each input channel's
 * watermark with the previous observation, so that `inputChannels()` can say
 * when it last moved. The service calls `sample()` every ~500 ms of
 * processing time through {@linkcode LocalJobHandle.startSampling}, or the
 * caller drives it (tests do, with a `ManualClock`).
 *
 * `lastMovedAt` is as precise as the observations: a move is dated at the
 * first observation that sees it. A channel first seen at `-Infinity` has
 * `lastMovedAt: null` (it never moved); one first seen at a finite
 * watermark is dated at that first observation, which may be later than
 * the move itself.
 *
 * Cost: a sample reads every subtask's status and every input channel of
 * every non-source subtask; the history holds `historySize` samples of one
 * entry per subtask, and `gaugeHistory()` as many of its counters and
 * gauges.
 *
 * @example Sampling a job driven by hand
 * ```ts ignore
 * const handle = new LocalJobHandle({ runtime, graph, clock });
 * runtime.runUntilIdle();
 * handle.sample();
 * assert.equal(handle.history().length, 1);
 * ```
 */
export class LocalJobHandle implements JobHandle {
  /** The job's name in URLs. */
  readonly name: string;
  /** The job's plan. */
  readonly graph: JobGraph;
  readonly #runtime: RuntimeView;
  readonly #clock: Clock;
  readonly #store: LocalJobHandleOptions["store"];
  readonly #deadLetters: () => DeadLetterLog | undefined;
  readonly #historySize: number;
  readonly #history: WatermarkSample[] = [];
  readonly #gaugeHistory: GaugeSample[] = [];
  readonly #channels = new Map<string, ChannelTrack[]>();
  // Without a store: the checkpoints seen completing, by id (bounded).
  readonly #seen = new Map<number, CheckpointInfo>();
  // Sizes of the checkpoints this handle saw completing, by id (the
  // store lists none).
  readonly #sizes = new Map<number, number>();
  readonly #tracker: CheckpointTracker;
  #timer: ReturnType<typeof setInterval> | undefined;

  /**
   * Wraps a runtime; takes no sample yet.
   *
   * @param options The runtime, its plan, the clock, the checkpoint store.
   * @throws {RangeError} If `historySize` is not a positive safe integer.
   */
  constructor(options: LocalJobHandleOptions) {
    const size = requirePositiveInteger(options.historySize ?? 600, {
      action: "create LocalJobHandle",
      param: "historySize",
    });
    this.#runtime = options.runtime;
    this.graph = options.graph;
    this.name = options.name ?? options.graph.jobName;
    this.#clock = options.clock;
    this.#store = options.store;
    const runtime = options.runtime;
    this.#deadLetters = options.deadLetters ??
      function runtimeDeadLetters() {
        return runtime.deadLetters;
      };
    this.#historySize = size;
    const latest = runtime.latestCheckpoint;
    const restored = options.restoredFrom !== undefined
      ? options.restoredFrom
      : latest === null
      ? null
      : { id: latest.id, createdAt: latest.createdAt };
    this.#tracker = new CheckpointTracker(restored, latest?.id ?? null);
  }

  /** Every subtask's current status, from the runtime. */
  status(): SubtaskStatus[] {
    return this.#runtime.status();
  }

  /** The kept watermark samples, oldest first (a copy). */
  history(): readonly WatermarkSample[] {
    return this.#history.slice();
  }

  /**
   * The kept counter and gauge samples, oldest first (a copy): one per
   * watermark sample, at the same processing times.
   */
  gaugeHistory(): readonly GaugeSample[] {
    return this.#gaugeHistory.slice();
  }

  /**
   * Records every subtask's input and output watermark and idleness at the
   * current processing time, and notes which input channels moved; records
   * the subtasks' counters and gauges in `gaugeHistory()` too.
   *
   * @returns The new sample (also the last of `history()`).
   */
  sample(): WatermarkSample {
    const at = this.#clock.now();
    const subtasks: Record<string, WatermarkSample["subtasks"][string]> = {};
    const counters: Record<string, GaugeSample["subtasks"][string]> = {};
    for (const s of this.#runtime.status()) {
      subtasks[s.id] = {
        inputWatermark: s.inputWatermark,
        outputWatermark: s.outputWatermark,
        idle: s.idle,
      };
      counters[s.id] = {
        recordsIn: s.recordsIn,
        recordsOut: s.recordsOut,
        gauges: s.gauges,
      };
      this.#observe(s.id, at);
    }
    this.#noteLatestCheckpoint();
    const sample: WatermarkSample = { at, subtasks };
    this.#history.push(sample);
    this.#gaugeHistory.push({ at, subtasks: counters });
    if (this.#history.length > this.#historySize) {
      this.#history.shift();
      this.#gaugeHistory.shift();
    }
    return sample;
  }

  /**
   * Calls `sample()` every `intervalMs` of real time until `stop()`; a
   * second call replaces the first timer. Only for a running service: tests
   * call `sample()` themselves.
   *
   * @param intervalMs Milliseconds between samples, a positive safe integer.
   * @throws {RangeError} If `intervalMs` is not a positive safe integer.
   */
  startSampling(intervalMs = 500): void {
    requirePositiveInteger(intervalMs, {
      action: "start sampling",
      param: "intervalMs",
    });
    this.stop();
    this.#timer = setInterval(() => this.sample(), intervalMs);
  }

  /** Stops the sampling started by `startSampling()`, if any. */
  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /**
   * The completed checkpoints, oldest first, with how long each took from
   * trigger to saved when the runtime knows it. With a store, those it
   * lists; without one, those this handle saw completing (at samples and
   * at calls to this method), up to 64.
   *
   * @returns The checkpoints.
   */
  async checkpoints(): Promise<CheckpointRecord[]> {
    this.#noteLatestCheckpoint();
    const infos = this.#store !== undefined
      ? await this.#store.list()
      : [...this.#seen.values()];
    return infos.map((info) => {
      const durationMs = this.#runtime.checkpointDurationMs(info.id);
      const sizeBytes = (info as { sizeBytes?: number }).sizeBytes ??
        this.#sizes.get(info.id);
      return {
        id: info.id,
        createdAt: info.createdAt,
        ...(durationMs === undefined ? {} : { durationMs }),
        ...(sizeBytes === undefined ? {} : { sizeBytes }),
      };
    });
  }

  /**
   * How many checkpoints completed and failed since the handle was made,
   * the recent failures, the one in progress and the one the job started
   * from, as far as the samples saw (see `CheckpointTracker`).
   *
   * @returns The counts.
   */
  checkpointStats(): CheckpointStats {
    this.#noteLatestCheckpoint();
    return this.#tracker.stats();
  }

  /**
   * The job's dead-letter log: the `deadLetters` option's, or the
   * runtime's `deadLetters` as it is now.
   *
   * @returns The log, or `undefined` when the job keeps none.
   */
  deadLetters(): DeadLetterLog | undefined {
    return this.#deadLetters();
  }

  /**
   * Starts a checkpoint now (see `LocalRuntime.triggerCheckpoint`).
   *
   * @returns Its id, or `null` if one is running or the job finished.
   */
  triggerCheckpoint(): number | null {
    return this.#runtime.triggerCheckpoint();
  }

  /**
   * Each input channel of a subtask: its watermark, whether it is idle, and
   * the processing time its watermark last moved (see the class doc). A
   * source subtask has none.
   *
   * @param actorId The actor id, `job/operator/subtask`.
   * @returns One entry per channel, in channel order.
   * @throws {RangeError} If no subtask has that id.
   */
  inputChannels(actorId: string): Array<{
    channel: number;
    watermark: number;
    idle: boolean;
    lastMovedAt: number | null;
  }> {
    const channels = this.#observe(actorId, this.#clock.now());
    return channels.map((c, channel) => ({
      channel,
      watermark: c.watermark,
      idle: c.idle,
      lastMovedAt: this.#channels.get(actorId)![channel].lastMovedAt,
    }));
  }

  /**
   * The partitions a source subtask reads, for diagnostics; none for other
   * subtasks.
   *
   * @param actorId The actor id, `job/operator/subtask`.
   * @returns The partition names.
   * @throws {RangeError} If no subtask has that id.
   */
  sourcePartitions(actorId: string): readonly string[] {
    return this.#runtime.sourcePartitions(actorId);
  }

  /**
   * Each partition of a source subtask with its watermark and status, when
   * the runtime knows them (a `KvRuntimeView` does not): `undefined` then.
   *
   * @param actorId The actor id, `job/operator/subtask`.
   */
  sourcePartitionStates(actorId: string): PartitionState[] | undefined {
    return this.#runtime.sourcePartitionStates?.(actorId);
  }

  /** Reads a subtask's channels and dates the watermarks that moved. */
  #observe(
    actorId: string,
    now: number,
  ): ReturnType<RuntimeView["inputChannels"]> {
    const channels = this.#runtime.inputChannels(actorId);
    let tracks = this.#channels.get(actorId);
    if (tracks === undefined) {
      tracks = channels.map((c) => ({
        watermark: c.watermark,
        lastMovedAt: c.watermark === -Infinity ? null : now,
      }));
      this.#channels.set(actorId, tracks);
      return channels;
    }
    channels.forEach((c, i) => {
      if (c.watermark !== tracks[i].watermark) {
        tracks[i].watermark = c.watermark;
        tracks[i].lastMovedAt = now;
      }
    });
    return channels;
  }

  #noteLatestCheckpoint(): void {
    const runtime = this.#runtime;
    const latest = runtime.latestCheckpoint;
    this.#tracker.observe({
      at: this.#clock.now(),
      latestId: latest?.id ?? null,
      // A LocalRuntime, LocalJob and KvRuntimeView say; another view may not.
      inProgress: (runtime as { checkpointInProgress?: number | null })
        .checkpointInProgress,
      durationMs: (id) => runtime.checkpointDurationMs(id),
    });
    if (latest === null || this.#seen.has(latest.id)) return;
    this.#seen.set(latest.id, { id: latest.id, createdAt: latest.createdAt });
    const size = checkpointBytes(latest);
    if (size !== undefined) this.#sizes.set(latest.id, size);
    if (this.#seen.size > 64) {
      const oldest = this.#seen.keys().next().value!;
      this.#seen.delete(oldest);
      this.#sizes.delete(oldest);
    }
  }
}
