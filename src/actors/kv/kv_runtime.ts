/**
 * The KV runtime: the subtasks of a job as actors whose every step is one
 * atomic Deno KV commit, shared by any number of processes (Deno Deploy
 * instances, or local processes on one KV file).
 *
 * @module
 */

import type { Clock } from "../../time/mod.ts";
import { type JobGraph, validateJobGraph } from "../../runtime/job_graph.ts";
import type {
  SourceSubtask,
  SourceSubtaskSnapshot,
} from "../../runtime/source_subtask.ts";
import type { StreamElement } from "../../runtime/stream_element.ts";
import type {
  InputChannelStatus,
  Subtask,
  SubtaskSnapshot,
} from "../../runtime/subtask.ts";
import { fingerprintOf } from "../../runtime/fingerprint.ts";
import {
  isAlignmentEnabled,
  reportableWatermark,
  WatermarkAlignmentCoordinator,
} from "../../time/mod.ts";
import type { CompletedCheckpoint } from "../checkpoint_store.ts";
import { type Encoded, encodeStructured } from "../_codec.ts";
import { buildSubtask, type BuiltSubtask } from "../_subtask_factory.ts";
import type { StorageKey } from "../storage.ts";
import type {
  ActorRuntime,
  RuntimeOptions,
  SubtaskStatus,
} from "../actor_runtime.ts";
import { AtomicConflictError, KvStorage } from "./kv_storage.ts";
import { logKey } from "./channel_log.ts";
import { encodedKeySize, KV_LIMITS as LIMITS } from "../../kv/mod.ts";
import { applyEntries } from "./_alignment.ts";
import { type LeaseView, planShare } from "./_sharing.ts";
import {
  type CommittedStatus,
  freshMeta,
  type Meta,
  stepCommit,
} from "./_step_commit.ts";
import { Lease } from "./lease.ts";
import { isTransient, PersistentKvError, retryTransient } from "./retry.ts";
import { actorId, type ActorWiring, wireActors } from "./_kv_wiring.ts";
import {
  countReplay,
  cutReplay,
  releasable,
  replayEventTime,
} from "./_replay.ts";
import { startJob } from "./_job_start.ts";
import { jobKeyPrefix } from "../job_keys.ts";
import {
  CheckpointCoordinator,
  type CoordinatorState,
} from "./checkpoint_coordinator.ts";
import { requireWatermarkRecovery } from "../../time/_validate.ts";
import {
  type ErrorPolicy,
  RecordFailedError,
} from "../../runtime/dead_letter.ts";
import { requireErrorPolicy } from "../_error_policy.ts";
import { DeadLetterLog } from "../dead_letter_log.ts";
import { DeadLetterRecorder } from "../_dead_letter_recorder.ts";
import { StrikeLog } from "../_strike_log.ts";
import type { ActorStorage } from "../storage.ts";
import type { ActorFailure } from "../actor_failure.ts";
import {
  commitWithLetters,
  copyOutboxes,
  moveOutbox,
} from "./_dead_letter_outbox.ts";
import { ActorFailures } from "./_actor_failures.ts";

/** A subtask's status in the KV runtime, with its input channels. */
export interface KvSubtaskStatus extends SubtaskStatus {
  /** Each input channel as the subtask's valve saw it at its last step. */
  readonly inputChannels: readonly InputChannelStatus[];
}

/** Options of a {@linkcode KvRuntime}. */
export interface KvRuntimeOptions extends RuntimeOptions {
  /** The shared database: a local file, `:memory:` in tests, or Deploy's KV. */
  readonly kv: Deno.Kv;
  /**
   * This worker's id, unique among the processes of the job.
   * @default {a random id}
   */
  readonly workerId?: string;
  /**
   * How long a lease lasts without renewal: how soon the actors of a dead
   * worker are taken over. Renewed when half of it is left.
   * @default {10000}
   */
  readonly leaseMs?: number;
  /**
   * Real time between polls of the channels of actors whose producers run
   * in other processes (kv.watch notices changes sooner where it can).
   * @default {100}
   */
  readonly pollIntervalMs?: number;
  /**
   * Log entries a producer may be ahead of a consumer on one channel before
   * it pauses: the back-pressure bound.
   * @default {32}
   */
  readonly maxChannelLag?: number;
  /**
   * Waits for real time; tests inject an instant one.
   * @default {setTimeout}
   */
  readonly sleep?: (ms: number) => Promise<void>;
  /**
   * Where records that failed once under `"fail"` are remembered (read by
   * every worker that takes an actor up).
   * @default {new KvStorage(kv, ["weir", job, "strikes"])}
   */
  readonly strikeStorage?: ActorStorage;
}

interface Live {
  readonly wiring: ActorWiring;
  readonly built: BuiltSubtask;
  readonly lease: Lease;
  readonly storage: KvStorage;
  meta: Meta;
  /** Per output channel: elements sent in this step. */
  out: StreamElement[][];
  /** Snapshots taken for checkpoints in this step. */
  acks: [number, Encoded][];
  /** Per output channel: the consumer's last applied entry, as last read. */
  consumed: number[];
  /** Per output channel: entries up to here may be deleted, as last read. */
  released: number[];
  /** A source's records read per partition at the last commit (replay mode). */
  readBase: readonly number[];
  recordsInBase: number;
  recordsOutBase: number;
  mail: boolean;
  wake: (() => void) | null;
  dirty: boolean;
  paused: boolean;
  /** The last completed checkpoint the subtask was told of. */
  notified: number;
}

// Bounds of one step: log entries read per channel, polls of a source.
const ENTRIES_PER_CHANNEL = 16;
const POLLS_PER_STEP = 16;
// A step writes up to three log entries per output channel (a periodic
// watermark, a barrier, records after it) besides its state, meta, a
// checkpoint snapshot and up to 64 deletions: this many operations at most.
const ENTRIES_PER_OUTPUT = 3;
const OTHER_OPS = 72;
/** The pseudo-actor that coordinates checkpoints. */
const COORDINATOR = "$checkpoints";

/**
 * Runs a {@linkcode JobGraph} with its subtasks as durable actors in Deno
 * KV (DESIGN "KV runtime"). Each process runs one `KvRuntime` (a worker);
 * the workers share the actors by leases.
 *
 * An actor step reads a bounded run of input log entries (or polls its
 * source), runs the same subtask state machine as the local runtime, and
 * commits in ONE atomic write: the lease check, the actor's state, its
 * input positions, its output entries and the deletion of entries its
 * consumers applied. A crash before the commit changes nothing; after it,
 * the step is done: each step is exactly-once. Sinks close a transaction
 * per step and commit it once the step is committed (again, idempotently,
 * after a take-over).
 *
 * A worker that loses a lease (its commit fails the check) drops that
 * actor's in-memory state and stops working on it. Checkpoints (consistent
 * cuts for restores and rescaling) still flow as barriers, coordinated by
 * a pseudo-actor with its own lease. With `watermarkRecovery: "persist"`
 * event time is part of every step, so a take-over resumes exactly; with
 * `"replay"` an actor taken over rebuilds it by reading its input again
 * from its last checkpoint (DESIGN "The KV runtime's protocol").
 *
 * @example One worker on an in-memory database
 * ```ts ignore
 * const kv = await Deno.openKv(":memory:");
 * const runtime = new KvRuntime(env.getJobGraph(), { kv, clock: new ManualClock(0) });
 * await runtime.run();
 * ```
 */
export class KvRuntime implements ActorRuntime {
  readonly #graph: JobGraph;
  readonly #kv: Deno.Kv;
  readonly #clock: Clock;
  readonly #worker: string;
  readonly #leaseMs: number;
  readonly #pollMs: number;
  readonly #maxLag: number;
  readonly #simulate: boolean;
  readonly #persist: boolean;
  // Without periodic checkpoints, replay mode has none to read its input
  // again from: every step is where a take-over starts.
  readonly #cutEveryStep: boolean;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #base: readonly string[];
  readonly #wirings: ActorWiring[];
  readonly #live = new Map<string, Live>();
  readonly #readers = new Map<string, KvStorage>();
  // Actors that failed (a persistent KV error, code that threw), and the
  // records struck under "fail". A failure never ends the worker: the
  // actor is tried again after a delay that doubles, up to a minute, and
  // reported as stuck meanwhile.
  readonly #failures: ActorFailures;
  readonly #errorPolicy: ErrorPolicy;
  readonly #letters: DeadLetterRecorder;
  readonly #coordinator: CheckpointCoordinator;
  readonly #restoreFrom: CompletedCheckpoint | undefined;
  readonly #allowNonRestoredState: boolean;
  #coordinatorState: CoordinatorState | null = null;
  readonly #alignment = new WatermarkAlignmentCoordinator();
  readonly #aligned: ActorWiring[] = [];
  readonly #alignmentInterval: number;
  #nextAlignment = -Infinity;
  #nextRebalance = -Infinity;
  #nextPoll = -Infinity;
  #stopped = false;
  #finished = false;
  #rounds: Promise<unknown> = Promise.resolve();
  #wakeLoop: (() => void) | null = null;
  #watch: ReadableStreamDefaultReader<unknown> | null = null;
  #watched = "";
  readonly #log: (line: string) => void = (line) => console.error(line);

  /**
   * Prepares a worker of the job; nothing is read or written until
   * {@linkcode KvRuntime.run} or {@linkcode KvRuntime.tick}.
   *
   * @param graph The job's plan; every worker must run the same plan.
   * @param options The database, clock, leases and checkpoints.
   * @throws {RangeError} If the plan is invalid, an option is out of range,
   * or a subtask has too many output channels for one commit.
   */
  constructor(graph: JobGraph, options: KvRuntimeOptions) {
    validateJobGraph(graph);
    const action = "create KvRuntime";
    if (typeof (options?.kv as { atomic?: unknown })?.atomic !== "function") {
      throw new TypeError(
        `Cannot ${action} as 'kv' must be a Deno.Kv: current value is ${options?.kv}`,
      );
    }
    for (
      const [param, value] of [
        ["leaseMs", options.leaseMs ?? 10_000],
        ["pollIntervalMs", options.pollIntervalMs ?? 100],
        ["maxChannelLag", options.maxChannelLag ?? 32],
      ] as const
    ) {
      if (!Number.isSafeInteger(value) || value < 1) {
        throw new RangeError(
          `Cannot ${action} as '${param}' must be a positive safe integer: current value is ${value}`,
        );
      }
    }
    this.#graph = graph;
    this.#kv = options.kv;
    this.#clock = options.clock;
    this.#worker = options.workerId ?? crypto.randomUUID();
    this.#leaseMs = options.leaseMs ?? 10_000;
    this.#pollMs = options.pollIntervalMs ?? 100;
    this.#maxLag = options.maxChannelLag ?? 32;
    this.#simulate = options.simulate ??
      typeof (options.clock as { set?: unknown }).set === "function";
    this.#persist = requireWatermarkRecovery(
      options.watermarkRecovery ?? "replay",
      { action, param: "watermarkRecovery" },
    ) === "persist";
    this.#cutEveryStep = !this.#persist &&
      (options.checkpointIntervalMs ?? 0) === 0;
    this.#sleep = options.sleep ??
      ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.#base = [...jobKeyPrefix(graph.jobName), "kvrt"];
    this.#errorPolicy = requireErrorPolicy(
      options.errorPolicy ?? "dead-letter",
      { action, param: "errorPolicy" },
    );
    const job = jobKeyPrefix(graph.jobName);
    this.#letters = new DeadLetterRecorder({
      job: graph.jobName,
      log: new DeadLetterLog(
        options.deadLetterStorage ??
          new KvStorage(this.#kv, [...job, "dead-letters"]),
      ),
      clock: this.#clock,
      print: (line) => this.#log(line),
    });
    this.#failures = new ActorFailures({
      kv: this.#kv,
      base: this.#base,
      worker: this.#worker,
      clock: this.#clock,
      firstDelayMs: this.#leaseMs,
      policy: this.#errorPolicy,
      strikes: new StrikeLog(
        options.strikeStorage ?? new KvStorage(this.#kv, [...job, "strikes"]),
      ),
      retry: (what, call) => this.#retry(what, call),
      log: (line) => this.#log(line),
    });
    this.#wirings = wireActors(graph);
    for (const wiring of this.#wirings) this.#checkStepFits(wiring, action);
    // Watermark alignment (FLIP-182) across processes: every worker reads
    // the aligned sources' committed watermarks each update interval and
    // holds its own sources; no coordination is written.
    let interval = Infinity;
    for (const vertex of graph.vertices) {
      const alignment = vertex.source?.strategy.alignmentParameters;
      if (alignment === undefined || !isAlignmentEnabled(alignment)) continue;
      this.#alignment.registerSource(vertex.id, {
        group: alignment.group,
        maxDriftMs: alignment.maxDriftMs,
      });
      this.#aligned.push(
        ...this.#wirings.filter((w) => w.vertex === vertex.id),
      );
      interval = Math.min(interval, alignment.updateIntervalMs);
    }
    this.#alignmentInterval = interval;
    this.#restoreFrom = options.restoreFrom;
    this.#allowNonRestoredState = options.allowNonRestoredState ?? false;
    this.#coordinator = new CheckpointCoordinator({
      kv: this.#kv,
      storage: this.#storageOf(COORDINATOR),
      lease: this.#leaseOf(COORDINATOR),
      clock: this.#clock,
      intervalMs: options.checkpointIntervalMs ?? 0,
      lastCheckpointId: Math.max(
        options.lastCheckpointId ?? 0,
        options.restoreFrom?.id ?? 0,
      ),
      fingerprint: fingerprintOf(graph),
      actors: this.#wirings.map((w) => w.id),
      storageOf: (id) => this.#readerOf(id),
      store: options.checkpointStore,
      retry: (what, call) => this.#retry(what, call),
    });
  }

  /**
   * Refuses a subtask whose step could exceed one Deno KV commit: too many
   * output channels for 1000 mutations, or for 80 KiB of written keys with
   * this job's key prefix.
   */
  #checkStepFits(wiring: ActorWiring, action: string): void {
    const outputs = wiring.outputs.length;
    const key = [...this.#base, "a", wiring.id, "v", ...logKey(outputs, 1e15)];
    const mutations = ENTRIES_PER_OUTPUT * outputs + OTHER_OPS;
    const keyBytes = (ENTRIES_PER_OUTPUT * outputs + OTHER_OPS) *
      encodedKeySize(key);
    if (mutations <= LIMITS.mutations && keyBytes <= LIMITS.keyTotalBytes) {
      return;
    }
    throw new RangeError(
      `Cannot ${action} as subtask '${wiring.id}' must have few enough output channels for one step to fit a Deno KV commit (${LIMITS.mutations} mutations, ${LIMITS.keyTotalBytes} bytes of written keys; a step writes up to ${ENTRIES_PER_OUTPUT} log entries per channel): current value is ${outputs} channels, up to ${mutations} mutations and ${keyBytes} bytes of keys (a shorter job name or a lower parallelism downstream helps)`,
    );
  }

  /** This worker's id. */
  get workerId(): string {
    return this.#worker;
  }

  /** The actor ids this worker works on now. */
  get ownedActors(): string[] {
    return [...this.#live.keys()];
  }

  /** Whether every actor of the job has finished (known after a `tick`). */
  get finished(): boolean {
    return this.#finished;
  }

  /**
   * Actors this worker stopped after a failure (Deno KV kept failing, or
   * their code threw), with the last error; each is tried again after a
   * backoff.
   */
  get errors(): ReadonlyMap<string, Error> {
    const live = (id: string) => this.#live.has(id);
    return new Map(
      this.#failures.stopped(live).map(([id, f]) => [id, f.error]),
    );
  }

  /**
   * Actors this worker stopped after a failure and not taken up again yet:
   * what each is stuck on (the error; the record, when one failed under
   * `"fail"`), its failures in a row, and when it is tried again. The
   * delay doubles with each failure in a row, up to a minute; an actor
   * that runs for a minute after a retry without failing starts again
   * from the first delay. (`status()` reports every stuck actor of the
   * job, whichever worker saw it fail.)
   *
   * @returns The failures, by actor id.
   */
  failures(): ReadonlyMap<string, ActorFailure> {
    const live = (id: string) => this.#live.has(id);
    return new Map(
      this.#failures.stopped(live).map(([id, f]) => [id, f.failure]),
    );
  }

  /** The job's dead-letter log: the records set aside by its error policy. */
  get deadLetters(): DeadLetterLog {
    return this.#letters.log;
  }

  /** Letters this worker wrote to the dead-letter log that were new there. */
  get deadLetterCount(): number {
    return this.#letters.count;
  }

  /**
   * How many times this worker reloaded an actor from its last committed
   * step because a record failed under `"fail"` (the restarts of this
   * runtime: its unit of recovery is the actor).
   */
  get restarts(): number {
    return this.#failures.restarts;
  }

  /**
   * The last checkpoint completed by this job's coordinator, if this worker
   * ran it; `null` otherwise.
   */
  get latestCheckpoint(): CompletedCheckpoint | null {
    return this.#coordinator.latest;
  }

  /**
   * Asks for a checkpoint now (the coordinator starts it on its next step,
   * in whichever worker holds its lease).
   */
  async triggerCheckpoint(): Promise<void> {
    await this.#coordinator.request();
  }

  /**
   * The job's checkpoints as stored in KV (readable from any process): the
   * highest id given out, and the one in progress.
   *
   * @returns `lastId` (0 for none) and `pending` (`null` for none).
   */
  checkpointProgress(): Promise<{ lastId: number; pending: number | null }> {
    return this.#coordinator.progress();
  }

  /**
   * Whether job `jobName` has been started in this database (its record is
   * there): a worker that joins it resumes from the actors' committed
   * state, and needs no checkpoint.
   *
   * @param kv The database.
   * @param jobName The job.
   * @returns `true` once a worker has recorded the job.
   */
  static async started(kv: Deno.Kv, jobName: string): Promise<boolean> {
    const key = [...jobKeyPrefix(jobName), "kvrt", "job"];
    return (await kv.get(key)).versionstamp !== null;
  }

  /**
   * Deletes the job's KV-runtime state (actors, channels, leases) so that
   * the next start begins afresh (or from `restoreFrom`). Checkpoints are
   * kept, and so is the dead-letter log: the letters still in the actors'
   * outboxes (a worker stopped between a step's commit and their copy) are
   * copied to it first. Run it while no worker runs.
   *
   * @param kv The database.
   * @param jobName The job.
   * @param options `deadLetterStorage`: where the job's dead-letter log is
   * kept, if not in its default place (`KvRuntimeOptions`).
   * @returns How many keys were deleted.
   */
  static async reset(
    kv: Deno.Kv,
    jobName: string,
    options: { deadLetterStorage?: ActorStorage } = {},
  ): Promise<number> {
    let deleted = 0;
    let op = kv.atomic();
    let n = 0;
    const prefix = [...jobKeyPrefix(jobName), "kvrt"];
    await copyOutboxes(
      kv,
      prefix,
      new DeadLetterLog(
        options.deadLetterStorage ??
          new KvStorage(kv, [...jobKeyPrefix(jobName), "dead-letters"]),
      ),
    );
    for await (const entry of kv.list({ prefix })) {
      op.delete(entry.key);
      deleted++;
      if (++n === 500) {
        await op.commit();
        op = kv.atomic();
        n = 0;
      }
    }
    if (n > 0) await op.commit();
    return deleted;
  }

  /**
   * Runs until the whole job has finished or {@linkcode KvRuntime.stop} is
   * called: takes a share of the actors, steps them, takes over the actors
   * of workers that died, and waits (or moves a simulated clock) when
   * nothing can run.
   */
  async run(): Promise<void> {
    try {
      while (!this.#stopped) {
        const progressed = await this.tick();
        if (this.#finished) break;
        if (progressed) continue;
        await this.#idle();
      }
    } finally {
      // After any round already queued (a cron tick, POST /tick), and
      // before none: rounds after this one do nothing.
      this.#stopped = true;
      const shutdown = this.#rounds.then(() => this.#shutdown());
      this.#rounds = shutdown.catch(() => {});
      await shutdown;
    }
  }

  /** Stops `run()` after its current step; the leases are given up. */
  stop(): void {
    this.#stopped = true;
    this.#wakeLoop?.();
  }

  /**
   * One round of work, idempotent and safe to call at any time (a
   * `Deno.cron` backstop, `POST /tick`): renews and takes leases, runs the
   * checkpoint coordinator if this worker holds it, and steps every owned
   * actor that can make progress.
   *
   * @returns Whether anything was committed.
   */
  tick(): Promise<boolean> {
    // One round at a time: `run()`, a cron tick and `POST /tick` may overlap.
    const round = this.#rounds.then(() => this.#round());
    this.#rounds = round.catch(() => {});
    return round;
  }

  async #round(): Promise<boolean> {
    const now = this.#clock.now();
    if (this.#finished || this.#stopped) return false;
    await this.#initialise();
    if (now >= this.#nextRebalance) {
      this.#nextRebalance = now + Math.max(1, Math.floor(this.#leaseMs / 4));
      await this.#passing("share the actors", () => this.#rebalance(now));
    }
    if (now >= this.#nextPoll || this.#simulate) {
      this.#nextPoll = now + this.#pollMs;
      for (const live of this.#live.values()) live.dirty = true;
    }
    this.#watchInputs();
    if (now >= this.#nextAlignment && this.#aligned.length > 0) {
      this.#nextAlignment = now + this.#alignmentInterval;
      await this.#passing("align watermarks", () => this.#announceAlignment());
    }
    let progressed = false;
    const coordinated = await this.#passing(
      "coordinate checkpoints",
      () => this.#coordinator.step(),
    );
    if (coordinated !== undefined) this.#coordinatorState = coordinated;
    if (coordinated?.progressed) progressed = true;
    // Downstream first, as in the local runtime: consumers make room.
    const order = [...this.#live.values()].reverse();
    for (const live of order) {
      if (!this.#live.has(live.wiring.id)) continue;
      try {
        const renewed = !live.lease.due(this.#clock.now()) ||
          await this.#retry("renew a lease", () => live.lease.renew());
        if (!renewed) {
          this.#drop(live, "its lease was taken over");
          continue;
        }
        if (await this.#step(live)) progressed = true;
      } catch (error) {
        if (error instanceof AtomicConflictError) {
          this.#drop(live, "a commit failed its lease check");
        } else {
          // Deno KV kept failing, or the subtask threw (a record under
          // "fail", user code outside a record, a sink's commit) mid-step:
          // what it holds in memory is half a step, so it is dropped and
          // reloaded from the last commit after a backoff. A record that
          // failed is struck first: the reload quarantines it.
          if (error instanceof RecordFailedError) {
            await this.#failures.struck(error);
          }
          await this.#fail(live, error);
        }
      }
    }
    if (!progressed) {
      await this.#passing(
        "see whether the job finished",
        () => this.#checkFinished(),
      );
    }
    return progressed;
  }

  /**
   * Every actor's status as last committed (owned ones as they are now),
   * with its input channels; readable from any process.
   */
  async status(): Promise<KvSubtaskStatus[]> {
    const now = this.#clock.now();
    const [metas, leases, failures] = await Promise.all([
      Promise.all(
        this.#wirings.map((w) =>
          this.#live.get(w.id)?.meta ??
            this.#readerOf(w.id).get<Meta>(["meta"])
        ),
      ),
      this.#leases(),
      this.#failures.read(),
    ]);
    const metaOf = new Map(this.#wirings.map((w, i) => [w.id, metas[i]]));
    return this.#wirings.map((w, i) => {
      const live = this.#live.get(w.id);
      const status = live !== undefined
        ? this.#statusOf(live)
        : metas[i]?.status;
      const lease = leases.get(w.id);
      const worker = lease !== undefined && lease.expiresAt > now
        ? lease.owner
        : null;
      // Stopped after failures, and not run again since by any worker.
      const failure = failures.get(w.id);
      const stuck = worker === null && failure?.resumedAt === undefined
        ? failure
        : undefined;
      return {
        id: w.id,
        operator: w.vertex,
        subtask: w.index,
        inputWatermark: status?.inputWatermark ?? -Infinity,
        outputWatermark: status?.outputWatermark ?? -Infinity,
        idle: status?.idle ?? false,
        recordsIn: status?.recordsIn ?? 0,
        recordsOut: status?.recordsOut ?? 0,
        // Log entries written to its inputs and not applied yet: what a
        // mailbox holds in the local runtime.
        mailboxDepth: w.inputs.reduce(
          (sum, input, c) =>
            sum +
            Math.max(
              0,
              (metaOf.get(input.producer)?.outputs[input.out] ?? 0) -
                (metas[i]?.inputs[c] ?? 0),
            ),
          0,
        ),
        watermarkLagMs: now - (status?.outputWatermark ?? -Infinity),
        paused: live?.paused ?? false,
        worker,
        ...(stuck === undefined ? {} : { stuck }),
        gauges: live === undefined ? {} : Object.fromEntries(
          [...live.built.gauges].map(([name, read]) => [name, read()]),
        ),
        inputChannels: status?.channels ?? w.inputs.map(() => ({
          watermark: -Infinity,
          idle: false,
          aligned: true,
          ended: false,
          blocked: false,
        })),
      };
    });
  }

  // ---- start, leases and sharing -------------------------------------

  #initialised = false;
  // When the job first ran in this database (its record's creation): the
  // periodic schedules of actors activated with no state count from it.
  #startedAt: number | undefined;

  /**
   * Writes the job's record once per database, seeding the actors from
   * `restoreFrom` if given (see `startJob`); the other workers wait for it.
   */
  async #initialise(): Promise<void> {
    if (this.#initialised) return;
    this.#startedAt = await startJob({
      kv: this.#kv,
      graph: this.#graph,
      key: [...this.#base, "job"],
      wirings: this.#wirings,
      persist: this.#persist,
      restoreFrom: this.#restoreFrom,
      allowNonRestoredState: this.#allowNonRestoredState,
      clock: this.#clock,
      lease: () => this.#leaseOf(`${COORDINATOR}-init`),
      storageOf: (id) => this.#storageOf(id),
      retry: (what, call) => this.#retry(what, call),
      wait: () => this.#sleep(Math.min(this.#pollMs, 50)),
    });
    this.#initialised = true;
  }

  /** Takes free or expired actors up to this worker's share; gives extras back. */
  async #rebalance(now: number): Promise<void> {
    const workersKey = [...this.#base, "worker"];
    await this.#retry(
      "renew the worker's heartbeat",
      () =>
        this.#kv.set([...workersKey, this.#worker], {
          expiresAt: now + this.#leaseMs,
        }),
    );
    let workers = 0;
    for await (
      const entry of this.#kv.list<{ expiresAt: number }>({
        prefix: workersKey,
      })
    ) {
      if (entry.value.expiresAt > now) workers++;
    }
    const [leases, retryAt] = await Promise.all([
      this.#leases(),
      // Any worker's failures: the backoff holds across workers.
      this.#failures.retryAts(),
    ]);
    const plan = planShare({
      actors: this.#wirings.map((w) => w.id),
      live: new Set(this.#live.keys()),
      retryAt,
      leases,
      workers,
      now,
    });
    for (const id of plan.take) {
      await this.#activate(this.#wirings.find((w) => w.id === id)!);
    }
    const extra = [...this.#live.values()].slice(
      this.#live.size - plan.giveBack,
    );
    for (const live of extra) {
      this.#live.delete(live.wiring.id);
      await live.built.source?.close();
      await this.#retry("give a lease up", () => live.lease.release());
    }
  }

  /**
   * Reports every aligned source subtask's watermark (its own when this
   * worker runs it, else the last committed one) and holds the sources
   * this worker runs at their group's limit.
   */
  async #announceAlignment(): Promise<void> {
    const metas = await this.#retry(
      "read the aligned sources",
      () =>
        Promise.all(
          this.#aligned.map((w) =>
            this.#live.has(w.id)
              ? undefined
              : this.#readerOf(w.id).get<Meta>(["meta"])
          ),
        ),
    );
    this.#aligned.forEach((wiring, i) => {
      const source = this.#live.get(wiring.id)?.built.source;
      const meta = metas[i];
      const reported = source !== undefined && source !== null
        ? (source.finished
          ? Infinity
          : reportableWatermark(source.currentWatermark, source.idle))
        : meta === undefined
        ? null
        : meta.finished
        ? Infinity
        : reportableWatermark(meta.status.inputWatermark, meta.status.idle);
      if (reported !== null) {
        this.#alignment.reportWatermark(wiring.vertex, wiring.index, reported);
      }
    });
    for (const announcement of this.#alignment.announcements()) {
      const live = this.#live.get(
        actorId(this.#graph, announcement.sourceId, announcement.subtask),
      );
      if (live?.built.source) {
        live.built.source.maxDesiredWatermark =
          announcement.maxAllowedWatermark;
      }
    }
  }

  /** Every lease entry of the job, by actor id. */
  async #leases(): Promise<Map<string, LeaseView>> {
    const leases = new Map<string, LeaseView>();
    for await (
      const entry of this.#kv.list<LeaseView>({
        prefix: [...this.#base, "lease"],
      })
    ) {
      leases.set(String(entry.key[entry.key.length - 1]), entry.value);
    }
    return leases;
  }

  /** Takes the lease of an actor and loads its committed state. */
  async #activate(wiring: ActorWiring): Promise<void> {
    const lease = this.#leaseOf(wiring.id);
    if (!(await this.#retry("take a lease", () => lease.acquire()))) return;
    const storage = this.#storageOf(wiring.id);
    const [meta, state] = await this.#retry(
      `load actor '${wiring.id}'`,
      () => storage.getMany<unknown>([["meta"], ["state"]]),
    );
    // Its failures in a row and the strikes (the reload quarantines
    // them), and the letters a crash left in its outbox.
    await this.#failures.takenUp(wiring.id);
    await this.#retry(
      `copy the dead letters of actor '${wiring.id}'`,
      () => moveOutbox(storage, this.#letters, [lease.check]),
    );
    // Assigned once below; the subtask's callbacks need the binding first.
    // deno-lint-ignore prefer-const
    let live: Live;
    const vertex = this.#graph.vertices.find((v) => v.id === wiring.vertex)!;
    const built = buildSubtask(this.#graph, vertex, wiring.index, {
      clock: this.#clock,
      persistWatermarks: this.#persist,
      errorPolicy: this.#errorPolicy,
      quarantine: this.#failures.quarantine,
      stepSnapshots: true,
      startMs: this.#startedAt,
      send: (edge, channel, element) => {
        live.out[wiring.edgeBase[edge] + channel].push(element);
      },
      requestMail: () => {
        live.mail = true;
        live.wake?.();
      },
      onSnapshot: (checkpointId, snapshot) => {
        live.acks.push([checkpointId, encodeStructured(snapshot)]);
      },
    });
    const committed = (meta as Meta | undefined) ?? freshMeta(wiring);
    live = {
      wiring,
      built,
      lease,
      storage,
      meta: committed,
      out: wiring.outputs.map(() => []),
      acks: [],
      consumed: [...committed.trimmed],
      released: [...committed.trimmed],
      readBase: built.source?.recordsRead.map(() => 0) ?? [],
      recordsInBase: committed.status.recordsIn,
      recordsOutBase: committed.status.recordsOut,
      mail: false,
      wake: null,
      dirty: true,
      paused: false,
      notified: 0,
    };
    if (state !== undefined) {
      if (built.source !== null) {
        built.source.restore(state as SourceSubtaskSnapshot);
      } else built.subtask!.restore(state as SubtaskSnapshot);
    }
    if (!this.#persist && meta !== undefined && !committed.finished) {
      await replayEventTime({
        actor: wiring.id,
        meta: committed,
        source: built.source,
        subtask: built.subtask,
        createReader: () =>
          vertex.source!.source.createReader(wiring.index, vertex.parallelism),
        readEntries: (c, applied) =>
          this.#readEntries(
            wiring.inputs[c].producer,
            wiring.inputs[c].out,
            applied,
          ),
        now: this.#clock.now(),
        log: this.#log,
      });
    }
    this.#live.set(wiring.id, live);
  }

  #drop(live: Live, why: string): void {
    if (!this.#live.delete(live.wiring.id)) return;
    live.lease.lost();
    void live.built.source?.close();
    this.#log(
      `weir: worker ${this.#worker} stops working on actor '${live.wiring.id}' as ${why}; its in-memory state is dropped`,
    );
  }

  /**
   * Stops working on an actor that failed: its in-memory state (half a
   * step) is dropped, its failures in a row are recorded, and its lease is
   * given up; it is taken up again after the delay.
   */
  async #fail(live: Live, error: unknown): Promise<void> {
    const id = live.wiring.id;
    this.#live.delete(id);
    void live.built.source?.close();
    const failure = await this.#failures.failed(id, error);
    this.#log(
      `weir: worker ${this.#worker} stopped actor '${id}' (its in-memory state is dropped; failure ${failure.failures} in a row, tried again in ${failure.delayMs} ms): ${failure.error.message}`,
    );
    // Best effort: a lease left behind just expires.
    await this.#retry("give a lease up", () => live.lease.release())
      .catch(() => {});
  }

  // ---- one step --------------------------------------------------------

  /** Runs one step of an actor; commits it if it did anything. */
  async #step(live: Live): Promise<boolean> {
    const machine = live.built.subtask ?? live.built.source!;
    // The step works on a copy: the committed meta changes only when the
    // commit succeeds (others, e.g. a producer trimming, read it meanwhile).
    const work = structuredClone(live.meta);
    if (work.finished) {
      if (work.sinksDone) return await this.#trimOnly(live);
      // The final transactions of the sinks, after the step that finished
      // the subtask was committed (by this worker, or one that died since).
      if (!(await this.#retry("renew a lease", () => live.lease.renew()))) {
        this.#drop(live, "its lease was taken over");
        return false;
      }
      await machine.notifyCheckpointComplete(Infinity);
      await machine.settle();
      work.sinksDone = true;
      await this.#commit(live, null, work);
      await this.#succeeded(live);
      return true;
    }
    // Sinks commit the transactions of completed checkpoints (again after
    // a take-over: commits are idempotent), once this step's commit has
    // shown that the lease is still held: a fenced worker commits nothing.
    const completed = this.#coordinatorState?.completed ?? 0;
    const notify = completed > live.notified;
    const now = this.#clock.now();
    // Paused by back-pressure, or held by watermark alignment.
    const blocked = (live.built.source?.shouldWait ?? false) ||
      await this.#blocked(live);
    if (blocked !== live.paused) {
      live.paused = blocked;
      if (blocked) live.built.activityClock.pause();
      else live.built.activityClock.resume();
    }
    // Timers first, then input, as the local runtime orders a round.
    let worked = false;
    const due = live.built.source !== null
      ? live.built.source.nextProcessingTime(now)
      : live.built.subtask!.nextProcessingTime();
    if (due <= now) {
      if (live.built.source !== null) {
        // A periodic emission changes state (schedule, idleness countdowns)
        // even when it emits nothing: in persist mode it is committed, as
        // every step is, so that a take-over resumes event time exactly.
        // Output it emitted is committed below in either mode.
        worked = live.built.source.onProcessingTime(now) && this.#persist;
      } else {
        live.built.subtask!.onProcessingTime(now);
        worked = true;
      }
    }
    if (!blocked) {
      if (live.built.source !== null) {
        worked = this.#pollSource(live, live.built.source, now, work) ||
          worked;
      } else if (live.dirty) {
        live.dirty = false;
        worked = (await this.#readInputs(live, live.built.subtask!, work)) ||
          worked;
      }
    }
    worked = (await this.#drainMail(live, machine)) || worked;
    if (live.acks.length > 0 || machine.finished || notify) worked = true;
    // Output to commit: what a periodic emission sent, or what a replay
    // handed on when the actor was taken up.
    if (live.out.some((o) => o.length > 0)) worked = true;
    if (!worked && !this.#trimDue(live)) return false;
    if (this.#cutEveryStep) cutReplay(work, live);
    else if (!this.#persist && live.built.source !== null) {
      countReplay(work, live, live.built.source.recordsRead);
    }
    await this.#commit(live, machine, work);
    if (notify) {
      live.notified = completed;
      await machine.notifyCheckpointComplete(completed);
    }
    await this.#succeeded(live);
    return true;
  }

  /** A whole step went through (see `ActorFailures.succeeded`). */
  async #succeeded(live: Live): Promise<void> {
    await this.#failures.succeeded(live.wiring.id);
  }

  /** A source's step: takes part in a requested checkpoint, then polls. */
  #pollSource(
    live: Live,
    source: SourceSubtask<unknown>,
    now: number,
    work: Meta,
  ): boolean {
    let worked = false;
    const pending = this.#coordinatorState?.pending ?? null;
    if (pending !== null && pending > work.triggered) {
      work.triggered = pending;
      const position = this.#persist ? undefined : source.readerPosition;
      if (source.triggerCheckpoint(pending) && position !== undefined) {
        // A replay now starts here: nothing was read yet in this step.
        work.replayReader = position;
        work.replayCounts = source.recordsRead.map(() => 0);
        live.readBase = [...source.recordsRead];
      }
      worked = true;
    }
    for (let i = 0; i < POLLS_PER_STEP && !source.finished; i++) {
      if (!source.poll(now)) break;
      worked = true;
    }
    return worked;
  }

  /**
   * Reads the next entries of every input channel and applies them; stops
   * a channel in front of a barrier until every open channel is at that
   * barrier, then applies all the barriers at once (alignment within one
   * step, so nothing of it lives only in memory).
   */
  async #readInputs(
    live: Live,
    subtask: Subtask,
    meta: Meta,
  ): Promise<boolean> {
    const { wiring } = live;
    const batches = await Promise.all(wiring.inputs.map((input, c) => {
      if (meta.ended[c]) return Promise.resolve([] as StreamElement[][]);
      return this.#readEntries(input.producer, input.out, meta.inputs[c]);
    }));
    const { applied, aligned } = await applyEntries(
      subtask,
      meta,
      batches,
      () => this.#waitWhileBackPressured(live, subtask),
    );
    // The checkpoint's cut: a replay reads the input again from here.
    if (aligned && !this.#persist) {
      meta.replayFrom = [...meta.inputs];
      meta.replayValve = subtask.snapshotValve();
    }
    // More input may wait behind the barriers, or past what was read.
    if (aligned || batches.some((b) => b.length === ENTRIES_PER_CHANNEL)) {
      live.dirty = true;
    }
    return applied;
  }

  async #readEntries(
    producer: string,
    out: number,
    applied: number,
  ): Promise<StreamElement[][]> {
    const keys: StorageKey[] = [];
    for (let seq = applied + 1; seq <= applied + ENTRIES_PER_CHANNEL; seq++) {
      keys.push(logKey(out, seq));
    }
    const values = await this.#retry(
      `read channel ${out} of '${producer}'`,
      () => this.#readerOf(producer).getMany<StreamElement[]>(keys),
    );
    const entries: StreamElement[][] = [];
    for (const value of values) {
      if (value === undefined) break;
      entries.push(value);
    }
    return entries;
  }

  /** An asynchronous operator is full: lets its calls complete first. */
  async #waitWhileBackPressured(live: Live, subtask: Subtask): Promise<void> {
    while (subtask.backPressured) {
      await this.#nextMail(live);
      live.mail = false;
      subtask.processMail();
    }
  }

  /**
   * Waits until no asynchronous call is in flight, letting results in:
   * a step commits only settled state, so a take-over never loses a call.
   */
  async #drainMail(
    live: Live,
    machine: Subtask | SourceSubtask<unknown>,
  ): Promise<boolean> {
    let worked = false;
    for (;;) {
      if (live.mail) {
        live.mail = false;
        machine.processMail();
        worked = true;
      }
      if (machine.inFlight === 0) return worked;
      await this.#nextMail(live);
    }
  }

  #nextMail(live: Live): Promise<void> {
    if (live.mail) return Promise.resolve();
    return new Promise((resolve) => {
      live.wake = () => {
        live.wake = null;
        resolve();
      };
    });
  }

  /**
   * Whether a consumer is `maxChannelLag` entries behind on some output
   * channel; the consumers' positions are re-read only when it looks so.
   */
  async #blocked(live: Live): Promise<boolean> {
    const { meta, wiring } = live;
    const behind = (k: number) =>
      meta.outputs[k] - live.consumed[k] >= this.#maxLag;
    if (!wiring.outputs.some((_, k) => behind(k))) return false;
    await this.#refreshConsumed(live);
    return wiring.outputs.some((_, k) => behind(k));
  }

  async #refreshConsumed(live: Live): Promise<void> {
    const { wiring } = live;
    const metas = await Promise.all(
      wiring.outputs.map((o) =>
        this.#live.get(o.consumer)?.meta ??
          this.#retry(`read actor '${o.consumer}'`, () =>
            this.#readerOf(o.consumer).get<Meta>(["meta"]))
      ),
    );
    wiring.outputs.forEach((o, k) => {
      const consumer = metas[k];
      if (consumer === undefined) return;
      live.consumed[k] = Math.max(live.consumed[k], consumer.inputs[o.channel]);
      live.released[k] = Math.max(
        live.released[k],
        releasable(consumer, o.channel, this.#persist),
      );
    });
  }

  #trimDue(live: Live): boolean {
    return live.meta.trimmed.some((t, k) => live.released[k] > t);
  }

  /** A finished actor only deletes what its consumers applied. */
  async #trimOnly(live: Live): Promise<boolean> {
    if (live.meta.outputs.every((seq, k) => live.meta.trimmed[k] >= seq)) {
      return false;
    }
    await this.#refreshConsumed(live);
    if (!this.#trimDue(live)) return false;
    await this.#commit(live, null, structuredClone(live.meta));
    return true;
  }

  /** The one atomic commit of a step. */
  async #commit(
    live: Live,
    machine: Subtask | SourceSubtask<unknown> | null,
    work: Meta,
  ): Promise<void> {
    const { wiring, storage } = live;
    const { next, ops } = stepCommit(work, {
      subtask: machine === null ? null : {
        state: live.built.source?.snapshot() ??
          live.built.subtask!.snapshot(0, true),
        status: this.#statusOf(live),
        finished: machine.finished,
      },
      out: live.out,
      acks: live.acks,
      released: live.released,
    });
    live.out = wiring.outputs.map(() => []);
    live.acks = [];
    // With the letters the step set aside, exactly once with it.
    await commitWithLetters({
      actor: wiring.id,
      storage,
      ops,
      letters: (live.built.subtask ?? live.built.source!).takeDeadLetters(),
      recorder: this.#letters,
      checks: [live.lease.check],
      retry: (what, call) => this.#retry(what, call),
    });
    live.meta = next;
    for (const output of wiring.outputs) {
      const consumer = this.#live.get(output.consumer);
      if (consumer !== undefined) consumer.dirty = true;
    }
  }

  #statusOf(live: Live): CommittedStatus {
    const machine = live.built.subtask ?? live.built.source!;
    const metrics = machine.metrics;
    return {
      inputWatermark: live.built.source?.currentWatermark ??
        metrics.inputWatermark,
      outputWatermark: metrics.outputWatermark,
      idle: metrics.idle,
      recordsIn: live.recordsInBase + metrics.recordsIn,
      recordsOut: live.recordsOutBase + metrics.recordsOut,
      channels: live.built.subtask?.inputChannels() ?? [],
    };
  }

  // ---- waiting ---------------------------------------------------------

  /** Whether every actor's committed meta says it finished. */
  async #checkFinished(): Promise<void> {
    const metas = await Promise.all(
      this.#wirings.map((w) =>
        this.#live.get(w.id)?.meta ??
          this.#retry(`read actor '${w.id}'`, () =>
            this.#readerOf(w.id).get<Meta>(["meta"]))
      ),
    );
    // Over when every actor finished, its sinks wrote their final
    // transaction, and its consumers applied (and it deleted) every entry.
    this.#finished = metas.every((m) =>
      m !== undefined && m.finished && m.sinksDone &&
      m.outputs.every((seq, k) => m.trimmed[k] >= seq)
    );
  }

  /** The earliest processing time at which an owned actor has work. */
  nextWakeup(): number {
    const now = this.#clock.now();
    let next = Math.min(
      this.#nextRebalance,
      this.#coordinator.nextWakeup(),
      this.#aligned.length > 0 ? this.#nextAlignment : Infinity,
    );
    for (const live of this.#live.values()) {
      const { meta } = live;
      next = Math.min(next, live.lease.expiresSoonAt());
      if (meta.finished) {
        if (!meta.sinksDone) next = now;
        else if (meta.outputs.some((seq, k) => meta.trimmed[k] < seq)) {
          next = Math.min(next, now + this.#pollMs); // consumers to catch up
        }
        continue;
      }
      // Held by back-pressure: records waiting are no reason to wake.
      const due = live.paused
        ? now + this.#pollMs
        : live.built.source !== null
        ? live.built.source.nextProcessingTime(now)
        : live.built.subtask!.nextProcessingTime();
      next = Math.min(next, due);
    }
    return next;
  }

  async #idle(): Promise<void> {
    // Background reads (a KV log's prefetch) may bring records first.
    await Promise.all(
      [...this.#live.values()].map((l) => l.built.source?.ready()),
    );
    const now = this.#clock.now();
    const next = this.nextWakeup();
    if (this.#simulate) {
      (this.#clock as unknown as { set(ms: number): void }).set(
        Math.max(next, now + 1),
      );
      return;
    }
    const wait = Math.max(0, Math.min(next - now, this.#pollMs));
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, wait);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.#wakeLoop = () => {
        this.#wakeLoop = null;
        done();
      };
    });
  }

  /**
   * Watches the meta entries of the producers and consumers of owned actors
   * that other workers run: on a database shared across instances (Deploy),
   * a commit upstream (input) or downstream (room, entries to delete) wakes
   * the loop at once instead of at the next poll. At most 10 keys (Deno KV's
   * limit per watch); the rest is polled.
   */
  #watchInputs(): void {
    if (this.#simulate) return;
    // Producers (new entries to read) and consumers (entries they applied:
    // room to write, entries to delete) that other workers run.
    const others = new Set<string>();
    for (const live of this.#live.values()) {
      for (const input of live.wiring.inputs) {
        if (!this.#live.has(input.producer)) others.add(input.producer);
      }
      for (const output of live.wiring.outputs) {
        if (!this.#live.has(output.consumer)) others.add(output.consumer);
      }
    }
    const keys = [...others].sort().slice(0, 10);
    const signature = keys.join("\n");
    if (signature === this.#watched) return;
    this.#watched = signature;
    void this.#watch?.cancel().catch(() => {});
    this.#watch = null;
    if (keys.length === 0) return;
    const stream = this.#kv.watch(
      keys.map((id) => [...this.#base, "a", id, "v", "meta"]),
    );
    const reader = stream.getReader();
    this.#watch = reader;
    (async () => {
      try {
        for (;;) {
          const { done } = await reader.read();
          if (done) return;
          for (const live of this.#live.values()) live.dirty = true;
          this.#wakeLoop?.();
        }
      } catch {
        // The watch ends when the database closes; polling remains.
      }
    })();
  }

  async #shutdown(): Promise<void> {
    const watch = this.#watch;
    this.#watch = null;
    this.#watched = "";
    await watch?.cancel().catch(() => {});
    // Given up so that others take over at once; best effort (a lease left
    // behind just expires).
    const best = (what: string, call: () => Promise<unknown>) =>
      this.#retry(what, call).catch(() => {});
    for (const live of this.#live.values()) {
      await live.built.source?.close();
      await best("give a lease up", () => live.lease.release());
    }
    this.#live.clear();
    await best(
      "give the coordinator's lease up",
      () => this.#coordinator.release(),
    );
    await best(
      "end the worker's heartbeat",
      () => this.#kv.delete([...this.#base, "worker", this.#worker]),
    );
  }

  // ---- storage ---------------------------------------------------------

  #storageOf(id: string): KvStorage {
    return new KvStorage(this.#kv, [...this.#base, "a", id]);
  }

  /** A storage used only to read another actor's entries (never to write). */
  #readerOf(id: string): KvStorage {
    let reader = this.#readers.get(id);
    if (reader === undefined) {
      reader = this.#storageOf(id);
      this.#readers.set(id, reader);
    }
    return reader;
  }

  #leaseOf(id: string): Lease {
    return new Lease(
      this.#kv,
      [...this.#base, "lease", id],
      this.#worker,
      this.#clock,
      this.#leaseMs,
    );
  }

  #retry<T>(what: string, call: () => Promise<T>): Promise<T> {
    return retryTransient(call, {
      what,
      sleep: this.#sleep,
      attempts: 12,
      maxMs: 2_000,
    });
  }

  /**
   * Runs work whose failure only delays it (sharing actors, coordinating):
   * a database that stays busy, or a lease lost meanwhile, is logged and
   * the work is tried again at the next round.
   */
  async #passing<T>(
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
      this.#log(
        `weir: worker ${this.#worker} could not ${what} this round: ${
          error instanceof Error ? error.message : String(error)
        }`,
      );
      return undefined;
    }
  }
}
