// What every part of a KV-runtime worker shares: its settings (validated by
// `KvRuntime`), the actors it runs now, the job's failing actors, dead
// letters and checkpoint coordinator, and how it reaches the database
// (actor storages, leases, retries of transient errors). The worker loop,
// the ownership, the actor step and the status reading each take it.

import type { Clock } from "../../time/mod.ts";
import type { JobGraph } from "../../runtime/job_graph.ts";
import type { ErrorPolicy } from "../../runtime/dead_letter.ts";
import type { StreamElement } from "../../runtime/stream_element.ts";
import { fingerprintOf } from "../../runtime/fingerprint.ts";
import type { CompletedCheckpoint } from "../checkpoint.ts";
import type { ActorStorage } from "../storage.ts";
import { DeadLetterLog } from "../dead_letter_log.ts";
import { IdleClock } from "../idle_clock.ts";
import { DeadLetterRecorder } from "../_dead_letter_recorder.ts";
import { StrikeLog } from "../_strike_log.ts";
import { jobKeyPrefix } from "../job_keys.ts";
import { AtomicConflictError, KvStorage } from "./kv_storage.ts";
import { readEntries } from "./channel_log.ts";
import { Lease } from "./lease.ts";
import {
  isTransient,
  PersistentKvError,
  retryTransient,
} from "../../kv/retry.ts";
import {
  CheckpointCoordinator,
  type CoordinatorOptions,
  type CoordinatorState,
} from "./checkpoint_coordinator.ts";
import type { ActorWiring } from "./_wiring.ts";
import type { Meta } from "./_step_commit.ts";
import type { LiveActor } from "./_live_actor.ts";
import { ActorFailures } from "./_actor_failures.ts";

/** Log entries a step reads per input channel, at most. */
export const ENTRIES_PER_CHANNEL = 16;
/** The pseudo-actor that coordinates checkpoints. */
export const COORDINATOR = "$checkpoints";

/** A worker's settings, resolved and validated from `KvRuntimeOptions`. */
export interface WorkerSettings {
  readonly graph: JobGraph;
  readonly kv: Deno.Kv;
  readonly clock: Clock;
  readonly id: string;
  readonly leaseMs: number;
  readonly pollMs: number;
  readonly maxLag: number;
  /**
   * Whether the clock is simulated: idle time moves it instead of waiting;
   * by default, when the clock can be set.
   */
  readonly simulate: boolean | undefined;
  /** Steps in flight at once; `undefined`: with a real clock only. */
  readonly overlapSteps: boolean | undefined;
  /** `watermarkRecovery: "persist"`. */
  readonly persist: boolean;
  readonly checkpointIntervalMs: number;
  readonly lastCheckpointId: number;
  readonly checkpointStore: CoordinatorOptions["store"];
  readonly restoreFrom: CompletedCheckpoint | undefined;
  readonly allowNonRestoredState: boolean;
  readonly errorPolicy: ErrorPolicy;
  readonly deadLetterStorage: ActorStorage | undefined;
  readonly strikeStorage: ActorStorage | undefined;
  readonly sleep: (ms: number) => Promise<void>;
  readonly wirings: ActorWiring[];
}

/** The state a worker's parts share (see the file's head). */
export class KvWorker {
  readonly graph: JobGraph;
  readonly kv: Deno.Kv;
  readonly clock: Clock;
  readonly id: string;
  readonly leaseMs: number;
  readonly pollMs: number;
  readonly maxLag: number;
  /** Moves a simulated clock, or waits, when no actor has work. */
  readonly idleClock: IdleClock;
  readonly persist: boolean;
  /**
   * Whether the steps of a round run at once and actors read their next
   * input ahead (see `_read_ahead.ts`): with a real clock. A simulated
   * clock steps actors one after another, so that a run is reproducible
   * write by write (what the crash tests number).
   */
  readonly overlapSteps: boolean;
  // Without periodic checkpoints, replay mode has none to read its input
  // again from: every step is where a take-over starts.
  readonly cutEveryStep: boolean;
  readonly restoreFrom: CompletedCheckpoint | undefined;
  readonly allowNonRestoredState: boolean;
  readonly errorPolicy: ErrorPolicy;
  readonly sleep: (ms: number) => Promise<void>;
  /** The job's KV-runtime prefix. */
  readonly base: readonly string[];
  readonly wirings: readonly ActorWiring[];
  /** The actors this worker runs now, by id, upstream first. */
  readonly live = new Map<string, LiveActor>();
  // Actors that failed (a persistent KV error, code that threw), and the
  // records struck under "fail". A failure never ends the worker: the
  // actor is tried again after a delay that doubles, up to a minute, and
  // reported as stuck meanwhile.
  readonly failures: ActorFailures;
  readonly letters: DeadLetterRecorder;
  readonly coordinator: CheckpointCoordinator;
  /**
   * What the coordinator said at its last finished step (with steps
   * overlapped, possibly a round before this one); `null` before it answered.
   */
  coordinatorState: CoordinatorState | null = null;
  // When the job first ran in this database (its record's creation): the
  // periodic schedules of actors activated with no state count from it.
  startedAt: number | undefined;
  readonly #readers = new Map<string, KvStorage>();

  constructor(settings: WorkerSettings) {
    const { graph, kv, clock } = settings;
    this.graph = graph;
    this.kv = kv;
    this.clock = clock;
    this.id = settings.id;
    this.leaseMs = settings.leaseMs;
    this.pollMs = settings.pollMs;
    this.maxLag = settings.maxLag;
    this.idleClock = new IdleClock(clock, settings.simulate);
    this.persist = settings.persist;
    this.overlapSteps = settings.overlapSteps ?? !this.idleClock.simulated;
    this.cutEveryStep = !settings.persist &&
      settings.checkpointIntervalMs === 0;
    this.restoreFrom = settings.restoreFrom;
    this.allowNonRestoredState = settings.allowNonRestoredState;
    this.errorPolicy = settings.errorPolicy;
    this.sleep = settings.sleep;
    this.base = [...jobKeyPrefix(graph.jobName), "kvrt"];
    this.wirings = settings.wirings;
    const job = jobKeyPrefix(graph.jobName);
    const retry = <T>(what: string, call: () => Promise<T>) =>
      this.retry(what, call);
    this.letters = new DeadLetterRecorder({
      job: graph.jobName,
      log: new DeadLetterLog(
        settings.deadLetterStorage ??
          new KvStorage(kv, [...job, "dead-letters"]),
      ),
      clock,
      print: (line) => this.log(line),
    });
    this.failures = new ActorFailures({
      kv,
      base: this.base,
      worker: this.id,
      clock,
      firstDelayMs: this.leaseMs,
      policy: this.errorPolicy,
      strikes: new StrikeLog(
        settings.strikeStorage ?? new KvStorage(kv, [...job, "strikes"]),
      ),
      retry,
      log: (line) => this.log(line),
    });
    this.coordinator = new CheckpointCoordinator({
      kv,
      storage: this.storageOf(COORDINATOR),
      lease: this.leaseOf(COORDINATOR),
      clock,
      intervalMs: settings.checkpointIntervalMs,
      lastCheckpointId: settings.lastCheckpointId,
      fingerprint: fingerprintOf(graph),
      actors: this.wirings.map((w) => w.id),
      storageOf: (id) => this.readerOf(id),
      store: settings.checkpointStore,
      retry,
    });
  }

  /** Where lines about the worker go. */
  readonly log = (line: string): void => console.error(line);

  /** The storage of actor `id`, to write its steps (see `KvStorage`'s options). */
  storageOf(id: string, options: { soleWriter?: boolean } = {}): KvStorage {
    return new KvStorage(this.kv, [...this.base, "a", id], options);
  }

  /** A storage used only to read another actor's entries (never to write). */
  readerOf(id: string): KvStorage {
    let reader = this.#readers.get(id);
    if (reader === undefined) {
      reader = this.storageOf(id);
      this.#readers.set(id, reader);
    }
    return reader;
  }

  /** A handle on the lease of actor `id`, for this worker. */
  leaseOf(id: string): Lease {
    return new Lease(
      this.kv,
      [...this.base, "lease", id],
      this.id,
      this.clock,
      this.leaseMs,
    );
  }

  /** An actor's meta: as this worker holds it, or as last committed. */
  metaOf(id: string): Meta | Promise<Meta | undefined> {
    return this.live.get(id)?.meta ??
      this.retry(
        `read actor '${id}'`,
        () => this.readerOf(id).get<Meta>(["meta"]),
      );
  }

  /** Reads the entries after `applied` of output `out` of `producer`. */
  readEntries(
    producer: string,
    out: number,
    applied: number,
  ): Promise<StreamElement[][]> {
    return this.retry(
      `read channel ${out} of '${producer}'`,
      () =>
        readEntries(this.readerOf(producer), out, {
          applied,
          max: ENTRIES_PER_CHANNEL,
        }),
    );
  }

  /** Retries a call while Deno KV fails transiently. */
  retry<T>(what: string, call: () => Promise<T>): Promise<T> {
    return retryTransient(call, {
      what,
      sleep: this.sleep,
      attempts: 12,
      maxMs: 2_000,
    });
  }

  /**
   * Runs work whose failure only delays it (sharing actors, coordinating):
   * a database that stays busy, or a lease lost meanwhile, is logged and
   * the work is tried again at the next round.
   */
  async passing<T>(
    what: string,
    call: () => Promise<T>,
  ): Promise<T | undefined> {
    try {
      return await call();
    } catch (error) {
      if (
        !(error instanceof PersistentKvError) &&
        !(error instanceof AtomicConflictError) && !isTransient(error)
      ) throw error;
      this.log(
        `weir: worker ${this.id} could not ${what} this round: ${
          error instanceof Error ? error.message : String(error)
        }`,
      );
      return undefined;
    }
  }
}
