/**
 * The local runtime: every subtask of a job as an actor in one process.
 *
 * @module
 */

import type { Clock } from "../../time/clock.ts";
import { type JobGraph, validateJobGraph } from "../../runtime/job_graph.ts";
import type { InputChannelStatus } from "../../runtime/subtask.ts";
import type { PartitionState } from "../../runtime/partition_state.ts";
import type { CompletedCheckpoint } from "../checkpoint.ts";
import { DeadLetterLog } from "../dead_letter_log.ts";
import { DeadLetterRecorder } from "../_dead_letter_recorder.ts";
import type {
  ActorRuntime,
  RuntimeOptions,
  SubtaskStatus,
} from "../actor_runtime.ts";
import { machineOf } from "../actor_record.ts";
import { AlignmentReporter } from "../alignment_reporter.ts";
import { IdleClock } from "../idle_clock.ts";
import { MemoryStorage } from "./memory_storage.ts";
import {
  buildLocalActors,
  type LocalActor,
  localStatusOf,
} from "./_local_actor.ts";
import { LocalCheckpoints } from "./_checkpoints.ts";
import { LocalAlignment } from "./_watermark_alignment.ts";
import { LocalScheduler } from "./_scheduler.ts";
import { restoreActors } from "./_restore.ts";
import { localSettings } from "./_settings.ts";

/** Options of a {@linkcode LocalRuntime}. */
export interface LocalRuntimeOptions extends RuntimeOptions {
  /**
   * Elements (batches, watermarks...) a mailbox holds before its producers
   * are paused: the back-pressure bound.
   * @default {64}
   */
  readonly mailboxCapacity?: number;
  /**
   * Under `"fail"`: strikes of records that failed once already (such a
   * record that fails again is set aside as `"quarantined"` instead), and
   * sites where every record that fails is (`RecordFailedError.site`).
   * `LocalJob` restarts with it.
   * @default {an empty set}
   */
  readonly quarantine?: ReadonlySet<string>;
}

/**
 * Runs a {@linkcode JobGraph} with all subtasks in this process. Each subtask is an actor with a mailbox of elements
 * (record batches, never a message per record), processed one at a time.
 *
 * Scheduling is deterministic: downstream actors drain before upstream ones
 * run, sources poll last. A mailbox holding `mailboxCapacity` elements
 * pauses every producer that sends to it (back-pressure): a paused actor
 * neither processes input nor polls, and its input-activity clock stops, so
 * idleness timeouts do not fire while it cannot read (FLINK-35886). Memory
 * is therefore bounded by the capacities, up to the output of one step.
 *
 * Processing time comes from the injected clock: periodic watermarks,
 * processing-time timers, scripted sources and watermark alignment
 * announcements (every update interval) all run on it.
 *
 * @example Running a bounded job
 * ```ts ignore
 * const runtime = new LocalRuntime(graph, { clock: new ManualClock() });
 * await runtime.run();
 * ```
 */
export class LocalRuntime implements ActorRuntime {
  readonly #graph: JobGraph;
  readonly #clock: Clock;
  readonly #actors: LocalActor[] = [];
  readonly #checkpoints: LocalCheckpoints;
  readonly #alignment: LocalAlignment;
  readonly #scheduler: LocalScheduler;
  readonly #letters: DeadLetterRecorder;

  /**
   * Instantiates every subtask of the job.
   *
   * @param graph The job's plan.
   * @param options Clock, mailbox capacity, simulation.
   * @throws {RangeError} If the plan is invalid, `mailboxCapacity` is not
   * positive, or an option is out of range (`checkRuntimeOptions`).
   * @throws {TypeError} If an option has the wrong type.
   */
  constructor(graph: JobGraph, options: LocalRuntimeOptions) {
    validateJobGraph(graph);
    this.#graph = graph;
    this.#clock = options.clock;
    const settings = localSettings(options);
    const { capacity, persist, errorPolicy } = settings;
    this.#letters = new DeadLetterRecorder({
      job: graph.jobName,
      log: new DeadLetterLog(options.deadLetterStorage ?? new MemoryStorage()),
      clock: options.clock,
      print: (line) => console.error(line),
    });
    this.#checkpoints = new LocalCheckpoints({
      graph,
      clock: options.clock,
      store: options.checkpointStore,
      intervalMs: settings.checkpointIntervalMs,
      lastCheckpointId: settings.lastCheckpointId,
      actors: this.#actors,
    });
    const reporter = new AlignmentReporter(graph);
    this.#actors.push(...buildLocalActors(graph, {
      clock: options.clock,
      persistWatermarks: persist,
      errorPolicy,
      quarantine: options.quarantine ?? new Set<string>(),
      alignment: reporter,
      wake: () => this.#scheduler.wake(),
      snapshotParts: (id) => this.#checkpoints.encoder.partsOf(id),
      onSnapshot: (id, checkpointId, snapshot) =>
        this.#checkpoints.ack(id, checkpointId, snapshot),
    }));
    this.#alignment = new LocalAlignment(
      reporter,
      this.#actors,
      this.#clock.now(),
    );
    this.#scheduler = new LocalScheduler(this.#actors, {
      jobName: graph.jobName,
      clock: options.clock,
      idle: new IdleClock(options.clock, options.simulate),
      capacity,
      flush: () => this.flushCheckpoints(),
      checkpoints: this.#checkpoints,
      alignment: this.#alignment,
    });
    if (options.restoreFrom !== undefined) {
      restoreActors(
        graph,
        this.#actors,
        options.restoreFrom,
        options.allowNonRestoredState,
      );
      this.#alignment.restored(this.#clock.now());
      this.#checkpoints.restored(options.restoreFrom);
    }
  }

  /** The most recent checkpoint completed by this runtime (or restored), or `null`. */
  get latestCheckpoint(): CompletedCheckpoint | null {
    return this.#checkpoints.latest;
  }

  /**
   * The highest checkpoint id given out (completed or not), so that a
   * runtime restarted after this one numbers its checkpoints above it.
   */
  get lastCheckpointId(): number {
    return this.#checkpoints.lastId;
  }

  /**
   * The job's dead-letter log: the records set aside by its error policy
   * (readable back, e.g. for `GET /jobs/:job/dead-letters`).
   */
  get deadLetters(): DeadLetterLog {
    return this.#letters.log;
  }

  /**
   * How many letters this runtime wrote to the dead-letter log that were
   * not there yet (a record processed again after a restore counts once).
   */
  get deadLetterCount(): number {
    return this.#letters.count;
  }

  /**
   * Writes the letters the subtasks set aside since the last call to the
   * dead-letter log. `flushCheckpoints()` calls it before it saves a
   * checkpoint, so a saved checkpoint never lacks the letters of records
   * it skipped; the letters of a crashed run are set aside again, with the
   * same ids, when the restored job processes those records again.
   */
  async flushDeadLetters(): Promise<void> {
    const letters = this.#actors.flatMap((a) => machineOf(a).takeDeadLetters());
    await this.#letters.write(letters);
  }

  /**
   * Starts a checkpoint now: sources record their positions and send barrier
   * `id` downstream; each subtask snapshots once its inputs are aligned.
   * Checkpoints stop once any subtask has finished (bounded input ending).
   *
   * Ids continue above the restored checkpoint and above the highest id
   * of the checkpoint store, which `run()` and `flushCheckpoints()` read
   * before anything else. A checkpoint triggered before that read ended
   * (a program stepping the runtime before its first await) and whose id
   * turns out not to be above it is completed but not saved; the next one
   * is numbered above the store's, and its commit covers this one's
   * transactions.
   *
   * @returns The checkpoint id, or `null` if one is still in progress or
   * part of the job has finished.
   */
  triggerCheckpoint(): number | null {
    return this.#checkpoints.trigger();
  }

  /**
   * Writes the dead letters set aside so far, saves the checkpoints
   * completed since the last call, then tells every subtask, so two-phase
   * sinks commit. `run()` calls it after each round;
   * tests call it to make checkpoints durable at a chosen point.
   */
  async flushCheckpoints(): Promise<void> {
    await this.#checkpoints.readStoreHighest();
    await this.flushDeadLetters();
    await this.#checkpoints.save();
  }

  /**
   * How long a checkpoint took from trigger to saved, in milliseconds of
   * processing time; known for the last 64 checkpoints saved by this
   * runtime.
   *
   * @param id The checkpoint id.
   * @returns The duration, or `undefined` if unknown.
   */
  checkpointDurationMs(id: number): number | undefined {
    return this.#checkpoints.durationMs(id);
  }

  /** Whether every subtask has finished (bounded input processed to the end). */
  get finished(): boolean {
    return this.#scheduler.finished;
  }

  /**
   * Processes everything that can run at the current processing time: due
   * timers, mailboxes, source polls, until nothing is left. Never moves the
   * clock.
   *
   * @returns The number of steps taken.
   */
  runUntilIdle(): number {
    return this.#scheduler.runUntilIdle();
  }

  /**
   * Does one unit of work: the due timers, then one element of one mailbox
   * or one source poll (downstream first). Crash tests stop between any two
   * steps.
   *
   * @returns `false` if there was nothing to do at the current time.
   */
  step(): boolean {
    return this.#scheduler.step();
  }

  /**
   * Runs the job until it finishes, or `stop()` is called. When nothing can
   * run, it moves a simulated clock to the next timer, or waits for it in
   * real time.
   */
  async run(): Promise<void> {
    await this.#checkpoints.readStoreHighest();
    if (!(await this.#scheduler.run())) return;
    await Promise.all(this.#actors.map((a) => machineOf(a).settle()));
    // The sinks' last writes may have refused records too.
    await this.flushDeadLetters();
    await this.close();
  }

  /** Stops `run()` after its current step. */
  stop(): void {
    this.#scheduler.stopped = true;
  }

  /** The checkpoint triggered and not yet complete, or `null`. */
  get checkpointInProgress(): number | null {
    return this.#checkpoints.inProgress;
  }

  /**
   * Stops with a final checkpoint (Flink's stop-with-savepoint), after
   * `stop()` and once `run()` has returned: sources read nothing more; the
   * checkpoint in progress, if any, completes; then one more is taken,
   * saved, and the sinks commit it. A restart from it resumes exactly here.
   *
   * @returns The final checkpoint's id, or `null` if part of the job has
   * finished (then no checkpoint can be taken, as in Flink) or the
   * checkpoint in progress cannot complete (input ended on the way).
   */
  finalCheckpoint(): Promise<number | null> {
    return this.#scheduler.finalCheckpoint();
  }

  /** Stops the sources' background reading; `run()` calls it when the job finishes. */
  async close(): Promise<void> {
    await Promise.all(this.#actors.map((a) => a.source?.close()));
  }

  /** The earliest processing time at which some subtask has work, or `Infinity`. */
  nextWakeup(): number {
    return this.#scheduler.nextWakeup();
  }

  /** Reports every subtask: watermarks, idleness, counts, mailbox depth, lag. */
  status(): SubtaskStatus[] {
    const now = this.#clock.now();
    return this.#actors.map((actor) => localStatusOf(actor, now));
  }

  /**
   * Each input channel of an actor as its valve sees it (see
   * `Subtask.inputChannels`); channels are numbered edge by edge, in the
   * order of the graph's edges into the vertex, then by upstream subtask.
   * A source actor has none.
   *
   * @param actorId The actor id, `job/operator/subtask`.
   * @returns One entry per input channel.
   * @throws {RangeError} If no actor has that id.
   */
  inputChannels(actorId: string): InputChannelStatus[] {
    return this.#actor(actorId).subtask?.inputChannels() ?? [];
  }

  /**
   * The names of the partitions a source actor reads; none for other actors.
   *
   * @param actorId The actor id, `job/operator/subtask`.
   * @returns The partition names, in the reader's order.
   * @throws {RangeError} If no actor has that id.
   */
  sourcePartitions(actorId: string): readonly string[] {
    return this.#actor(actorId).source?.partitions ?? [];
  }

  /**
   * Each partition of a source actor with its own watermark and status
   * (active, idle, finished); none for other actors.
   *
   * @param actorId The actor id, `job/operator/subtask`.
   * @throws {RangeError} If no actor has that id.
   */
  sourcePartitionStates(actorId: string): PartitionState[] {
    return this.#actor(actorId).source?.partitionStates() ?? [];
  }

  /**
   * Stops an actor from taking input, as when it waits on slow I/O: its
   * mailbox fills and back-pressure pauses its producers.
   *
   * @param actorId The actor id, `job/operator/subtask`.
   * @throws {RangeError} If no actor has that id.
   */
  suspend(actorId: string): void {
    this.#actor(actorId).suspended = true;
  }

  /**
   * Lets a suspended actor take input again.
   *
   * @param actorId The actor id, `job/operator/subtask`.
   * @throws {RangeError} If no actor has that id.
   */
  resume(actorId: string): void {
    this.#actor(actorId).suspended = false;
  }

  #actor(actorId: string): LocalActor {
    const actor = this.#actors.find((a) => a.id === actorId);
    if (actor === undefined) {
      throw new RangeError(
        `Cannot find actor as 'actorId' must name an actor of job '${this.#graph.jobName}': current value is "${actorId}"`,
      );
    }
    return actor;
  }
}
