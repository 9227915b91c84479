/**
 * The KV runtime: the subtasks of a job as actors whose every step is one
 * atomic Deno KV commit, shared by any number of processes (Deno Deploy
 * instances, or local processes on one KV file).
 *
 * This file is the facade: the options are checked here, and the work is
 * done by the worker's parts, each taking the state they share
 * (`_worker.ts`): the loop of rounds (`_worker_loop.ts`), which actors it
 * runs (`_ownership.ts`, `_activation.ts`), the job's record
 * (`_job_start.ts`), one actor step (`_actor_step.ts`, committing
 * `_step_commit.ts`), and the job's status (`_status.ts`).
 *
 * @module
 */

import { type JobGraph, validateJobGraph } from "../../runtime/job_graph.ts";
import type { CompletedCheckpoint } from "../checkpoint.ts";
import type { ActorStorage } from "../storage.ts";
import type { ActorFailure } from "../actor_failure.ts";
import type { DeadLetterLog } from "../dead_letter_log.ts";
import type { ActorRuntime, RuntimeOptions } from "../actor_runtime.ts";
import { checkRuntimeOptions } from "../runtime_options.ts";
import { requireBoolean } from "../../time/validate.ts";
import { jobKeyPrefix } from "../job_keys.ts";
import { wireActors } from "./_wiring.ts";
import { checkStepFits } from "./_step_commit.ts";
import { jobStarted, resetJob } from "./_job_start.ts";
import { KvWorker } from "./_worker.ts";
import { WorkerLoop } from "./_worker_loop.ts";
import { readStatus } from "./_status.ts";
import type { KvSubtaskStatus } from "./kv_subtask_status.ts";

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
  /**
   * Whether the steps of this worker's actors (and its checkpoint
   * coordinator's) are in flight at once, so that their round trips to KV
   * overlap, instead of one after another. Results are the same either
   * way; only the order of the writes differs, and it does not repeat
   * from run to run when steps overlap. By default they overlap with a
   * real clock, and run one after another under a simulated one, where a
   * test may count on the order of the writes.
   * @default {true unless the clock is simulated}
   */
  readonly overlapSteps?: boolean;
}

/**
 * Runs a {@linkcode JobGraph} with its subtasks as durable actors in Deno
 * KV. Each process runs one `KvRuntime` (a worker);
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
 * from its last checkpoint.
 *
 * @example One worker on an in-memory database
 * ```ts ignore
 * const kv = await Deno.openKv(":memory:");
 * const runtime = new KvRuntime(env.getJobGraph(), { kv, clock: new ManualClock(0) });
 * await runtime.run();
 * ```
 */
export class KvRuntime implements ActorRuntime {
  readonly #worker: KvWorker;
  readonly #loop: WorkerLoop;

  /**
   * Prepares a worker of the job; nothing is read or written until
   * {@linkcode KvRuntime.run} or {@linkcode KvRuntime.tick}.
   *
   * @param graph The job's plan; every worker must run the same plan.
   * @param options The database, clock, leases and checkpoints.
   * @throws {RangeError} If the plan is invalid, an option is out of range,
   * or a subtask has too many output channels for one commit.
   * @throws {TypeError} If `kv` is not a Deno.Kv or an option has the
   * wrong type.
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
    const checked = checkRuntimeOptions(options, action);
    if (options.overlapSteps !== undefined) {
      requireBoolean(options.overlapSteps, { action, param: "overlapSteps" });
    }
    const wirings = wireActors(graph);
    const base = [...jobKeyPrefix(graph.jobName), "kvrt"];
    for (const wiring of wirings) checkStepFits(wiring, base, action);
    this.#worker = new KvWorker({
      graph,
      kv: options.kv,
      clock: options.clock,
      id: options.workerId ?? crypto.randomUUID(),
      leaseMs: options.leaseMs ?? 10_000,
      pollMs: options.pollIntervalMs ?? 100,
      maxLag: options.maxChannelLag ?? 32,
      simulate: checked.simulate,
      overlapSteps: options.overlapSteps,
      persist: checked.persist,
      checkpointIntervalMs: checked.checkpointIntervalMs,
      lastCheckpointId: Math.max(
        checked.lastCheckpointId,
        options.restoreFrom?.id ?? 0,
      ),
      checkpointStore: options.checkpointStore,
      restoreFrom: options.restoreFrom,
      allowNonRestoredState: checked.allowNonRestoredState,
      errorPolicy: checked.errorPolicy,
      deadLetterStorage: options.deadLetterStorage,
      strikeStorage: options.strikeStorage,
      sleep: options.sleep ??
        ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
      wirings,
    });
    this.#loop = new WorkerLoop(this.#worker);
  }

  /** This worker's id. */
  get workerId(): string {
    return this.#worker.id;
  }

  /** The actor ids this worker works on now. */
  get ownedActors(): string[] {
    return [...this.#worker.live.keys()];
  }

  /** Whether every actor of the job has finished (known after a `tick`). */
  get finished(): boolean {
    return this.#loop.finished;
  }

  /**
   * Actors this worker stopped after a failure (Deno KV kept failing, or
   * their code threw), with the last error; each is tried again after a
   * backoff.
   */
  get errors(): ReadonlyMap<string, Error> {
    const { live, failures } = this.#worker;
    return new Map(
      failures.stopped((id) => live.has(id)).map(([id, f]) => [id, f.error]),
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
    const { live, failures } = this.#worker;
    return new Map(
      failures.stopped((id) => live.has(id)).map(([id, f]) => [id, f.failure]),
    );
  }

  /** The job's dead-letter log: the records set aside by its error policy. */
  get deadLetters(): DeadLetterLog {
    return this.#worker.letters.log;
  }

  /** Letters this worker wrote to the dead-letter log that were new there. */
  get deadLetterCount(): number {
    return this.#worker.letters.count;
  }

  /**
   * How many times this worker reloaded an actor from its last committed
   * step because a record failed under `"fail"` (the restarts of this
   * runtime: its unit of recovery is the actor).
   */
  get restarts(): number {
    return this.#worker.failures.restarts;
  }

  /**
   * The last checkpoint completed by this job's coordinator, if this worker
   * ran it; `null` otherwise.
   */
  get latestCheckpoint(): CompletedCheckpoint | null {
    return this.#worker.coordinator.latest;
  }

  /**
   * How long checkpoint `id` took from its start to being saved, in
   * processing time, if this worker's coordinator completed it.
   *
   * @param id A checkpoint id.
   * @returns The duration, or `undefined` if unknown here.
   */
  checkpointDurationMs(id: number): number | undefined {
    return this.#worker.coordinator.durationMs(id);
  }

  /**
   * Asks for a checkpoint now (the coordinator starts it on its next step,
   * in whichever worker holds its lease).
   */
  async triggerCheckpoint(): Promise<void> {
    await this.#worker.coordinator.request();
  }

  /**
   * The job's checkpoints as stored in KV (readable from any process): the
   * highest id given out, and the one in progress.
   *
   * @returns `lastId` (0 for none) and `pending` (`null` for none).
   */
  checkpointProgress(): Promise<{ lastId: number; pending: number | null }> {
    return this.#worker.coordinator.progress();
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
  static started(kv: Deno.Kv, jobName: string): Promise<boolean> {
    return jobStarted(kv, jobName);
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
  static reset(
    kv: Deno.Kv,
    jobName: string,
    options: { deadLetterStorage?: ActorStorage } = {},
  ): Promise<number> {
    return resetJob(kv, jobName, options.deadLetterStorage);
  }

  /**
   * Runs until the whole job has finished or {@linkcode KvRuntime.stop} is
   * called: takes a share of the actors, steps them, takes over the actors
   * of workers that died, and waits (or moves a simulated clock) when
   * nothing can run.
   */
  run(): Promise<void> {
    return this.#loop.run();
  }

  /** Stops `run()` after its current step; the leases are given up. */
  stop(): void {
    this.#loop.stop();
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
    return this.#loop.tick();
  }

  /**
   * Every actor's status as last committed (owned ones as they are now),
   * with its input channels; readable from any process.
   */
  status(): Promise<KvSubtaskStatus[]> {
    return readStatus(this.#worker);
  }

  /** The earliest processing time at which an owned actor has work. */
  nextWakeup(): number {
    return this.#loop.nextWakeup();
  }
}
