/**
 * The local runtime: every subtask of a job as an actor in one process.
 *
 * @module
 */

import {
  type Clock,
  isAlignmentEnabled,
  type PausableClock,
  reportableWatermark,
  WatermarkAlignmentCoordinator,
} from "../../time/mod.ts";
import { buildSubtask, edgeChannelOffsets } from "../_subtask_factory.ts";
import { type JobGraph, validateJobGraph } from "../../runtime/job_graph.ts";
import type {
  SourceSubtask,
  SourceSubtaskSnapshot,
} from "../../runtime/source_subtask.ts";
import { fingerprintOf } from "../../runtime/fingerprint.ts";
import type { CompletedCheckpoint } from "../checkpoint_store.ts";
import type { Encoded } from "../_codec.ts";
import { encodedCheckpoint, snapshotsToUse } from "../_encoded_checkpoint.ts";
import { snapshotsToRestore } from "../_restore_plan.ts";
import { checkedHighestId } from "../_highest_id.ts";
import { SnapshotEncoder } from "./_snapshot_encoder.ts";
import type { StreamElement } from "../../runtime/stream_element.ts";
import type {
  InputChannelStatus,
  Subtask,
  SubtaskSnapshot,
} from "../../runtime/subtask.ts";
import { requireWatermarkRecovery } from "../../time/_validate.ts";
import { requireErrorPolicy } from "../_error_policy.ts";
import { DeadLetterLog } from "../dead_letter_log.ts";
import { DeadLetterRecorder } from "../_dead_letter_recorder.ts";
import { MemoryStorage } from "./memory_storage.ts";
import type {
  ActorRuntime,
  RuntimeOptions,
  SubtaskStatus,
} from "../actor_runtime.ts";

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

interface Message {
  readonly channel: number;
  readonly element: StreamElement;
}

interface Target {
  readonly actor: Actor;
  readonly channelOffset: number;
}

interface Actor {
  readonly id: string;
  readonly operator: string;
  readonly index: number;
  readonly mailbox: Message[];
  head: number;
  readonly activityClock: PausableClock;
  readonly gauges: Map<string, () => number>;
  readonly subtask: Subtask | null;
  readonly source: SourceSubtask<unknown> | null;
  /** Per edge, per channel: the receiving actor and its channel offset. */
  targets: Target[][];
  paused: boolean;
  suspended: boolean;
  mail: boolean;
  alignmentSource: string | null;
}

/**
 * Runs a {@linkcode JobGraph} with all subtasks in this process (DESIGN
 * "local runtime"). Each subtask is an actor with a mailbox of elements
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
 * announcements (every update interval, reference §5) all run on it.
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
  readonly #capacity: number;
  readonly #simulate: boolean;
  readonly #actors: Actor[] = [];
  readonly #alignment = new WatermarkAlignmentCoordinator();
  readonly #alignmentInterval: number;
  #nextAlignment = Infinity;
  #stopped = false;
  // Stopping with a final checkpoint: sources read nothing more.
  #draining = false;
  readonly #persist: boolean;
  readonly #checkpointInterval: number;
  readonly #store: LocalRuntimeOptions["checkpointStore"];
  #nextCheckpoint = Infinity;
  #lastCheckpointId = 0;
  // The store's highest id, once read (`null` until then): ids only grow
  // within a store (DESIGN "Checkpoints and recovery"), also for a job
  // restored from an older checkpoint or started over.
  #storeHighest: number | null;
  #readingHighest: Promise<void> | null = null;
  #pendingCheckpoint: { id: number; acks: Map<string, Encoded> } | null = null;
  readonly #encoder = new SnapshotEncoder();
  readonly #completed: CompletedCheckpoint[] = [];
  /** The last checkpoint saved, for tests and the service. */
  #latestCompleted: CompletedCheckpoint | null = null;
  #recommit: number | null = null;
  // Processing time each checkpoint was triggered at, until it is saved;
  // then how long trigger-to-saved took (the last few, for the service).
  readonly #triggeredAt = new Map<number, number>();
  readonly #durations = new Map<number, number>();
  // Resolves the wait of `run()` when an asynchronous operator has mail.
  #wake: (() => void) | null = null;
  readonly #letters: DeadLetterRecorder;

  /**
   * Instantiates every subtask of the job.
   *
   * @param graph The job's plan.
   * @param options Clock, mailbox capacity, simulation.
   * @throws {RangeError} If the plan is invalid or `mailboxCapacity` is not positive.
   */
  constructor(graph: JobGraph, options: LocalRuntimeOptions) {
    validateJobGraph(graph);
    this.#graph = graph;
    this.#clock = options.clock;
    this.#capacity = options.mailboxCapacity ?? 64;
    if (!Number.isSafeInteger(this.#capacity) || this.#capacity < 1) {
      throw new RangeError(
        `Cannot create LocalRuntime as 'mailboxCapacity' must be a positive safe integer: current value is ${this.#capacity}`,
      );
    }
    this.#persist = requireWatermarkRecovery(
      options.watermarkRecovery ?? "replay",
      { action: "create LocalRuntime", param: "watermarkRecovery" },
    ) === "persist";
    const errorPolicy = requireErrorPolicy(
      options.errorPolicy ?? "dead-letter",
      { action: "create LocalRuntime", param: "errorPolicy" },
    );
    const quarantine = options.quarantine ?? new Set<string>();
    this.#letters = new DeadLetterRecorder({
      job: graph.jobName,
      log: new DeadLetterLog(options.deadLetterStorage ?? new MemoryStorage()),
      clock: options.clock,
      print: (line) => console.error(line),
    });
    this.#checkpointInterval = options.checkpointIntervalMs ?? 0;
    this.#store = options.checkpointStore;
    this.#storeHighest = typeof this.#store?.highestId === "function"
      ? null
      : 0;
    this.#simulate = options.simulate ??
      typeof (options.clock as { set?: unknown }).set === "function";
    let interval = Infinity;
    const byVertex = new Map<string, Actor[]>();
    for (const vertex of graph.vertices) {
      const actors: Actor[] = [];
      for (let index = 0; index < vertex.parallelism; index++) {
        // Assigned once below; the subtask's callbacks need the binding first.
        // deno-lint-ignore prefer-const
        let actor: Actor;
        const id = `${graph.jobName}/${vertex.id}/${index}`;
        const built = buildSubtask(graph, vertex, index, {
          clock: this.#clock,
          persistWatermarks: this.#persist,
          errorPolicy,
          quarantine,
          send: (edge, channel, element) => {
            const target = actor.targets[edge][channel];
            target.actor.mailbox.push({
              channel: target.channelOffset + index,
              element,
            });
          },
          requestMail: () => {
            actor.mail = true;
            this.#wake?.();
          },
          snapshotParts: this.#encoder.partsOf(id),
          onSnapshot: (checkpointId, snapshot) =>
            this.#ack(id, checkpointId, snapshot),
        });
        actor = {
          id,
          operator: vertex.id,
          index,
          mailbox: [],
          head: 0,
          activityClock: built.activityClock,
          gauges: built.gauges,
          subtask: built.subtask,
          source: built.source,
          targets: [],
          paused: false,
          suspended: false,
          mail: false,
          alignmentSource: null,
        };
        const alignment = vertex.source?.strategy.alignmentParameters;
        if (alignment !== undefined && isAlignmentEnabled(alignment)) {
          if (index === 0) {
            this.#alignment.registerSource(vertex.id, {
              group: alignment.group,
              maxDriftMs: alignment.maxDriftMs,
            });
          }
          actor.alignmentSource = vertex.id;
          interval = Math.min(interval, alignment.updateIntervalMs);
        }
        actors.push(actor);
      }
      byVertex.set(vertex.id, actors);
      this.#actors.push(...actors);
    }
    // Wire each upstream subtask's edges to the downstream mailboxes.
    const offsets = edgeChannelOffsets(graph);
    graph.edges.forEach((edge, e) => {
      const downstream = byVertex.get(edge.to)!;
      for (const actor of byVertex.get(edge.from)!) {
        actor.targets.push(
          downstream.map((d) => ({ actor: d, channelOffset: offsets[e] })),
        );
      }
    });
    this.#alignmentInterval = interval;
    this.#setNextAlignment(
      interval === Infinity ? Infinity : this.#clock.now() + interval,
    );
    if (this.#checkpointInterval > 0) {
      this.#nextCheckpoint = this.#clock.now() + this.#checkpointInterval;
    }
    this.#lastCheckpointId = options.lastCheckpointId ?? 0;
    if (options.restoreFrom !== undefined) {
      this.#restore(options.restoreFrom, options.allowNonRestoredState);
    }
  }

  /**
   * Schedules the next alignment announcement, and keeps the schedule on
   * every aligned source, whose persist snapshots hold it.
   */
  #setNextAlignment(at: number): void {
    this.#nextAlignment = at;
    for (const actor of this.#actors) {
      if (actor.alignmentSource !== null) actor.source!.nextAlignmentMs = at;
    }
  }

  /**
   * Restores every subtask from a checkpoint of the same job; a vertex whose
   * parallelism (or inputs) changed gets its old snapshots redistributed.
   */
  #restore(
    checkpoint: CompletedCheckpoint,
    allowNonRestoredState = false,
  ): void {
    const snapshots = snapshotsToRestore(
      this.#graph,
      // Fresh copies: operators adopt restored state and change it.
      {
        id: checkpoint.id,
        fingerprint: checkpoint.fingerprint,
        createdAt: checkpoint.createdAt,
        subtasks: snapshotsToUse(checkpoint),
      },
      (vertexId) =>
        this.#actors.filter((a) => a.operator === vertexId).map((a) =>
          a.source!.partitions
        ),
      { allowNonRestoredState },
    );
    for (const actor of this.#actors) {
      const snapshot = snapshots.get(actor.id);
      if (actor.source !== null) {
        actor.source.restore(snapshot as SourceSubtaskSnapshot);
      } else actor.subtask!.restore(snapshot as SubtaskSnapshot);
    }
    // Persist mode: announcements go on at the times of the run that took
    // the checkpoint, as the limits they set decide when sources read. The
    // sources' snapshots hold the schedule (replay mode keeps the new one).
    const aligned = this.#actors.filter((a) => a.alignmentSource !== null);
    if (aligned.length > 0) {
      const due = Math.min(...aligned.map((a) => a.source!.nextAlignmentMs));
      this.#setNextAlignment(
        Number.isFinite(due)
          ? due
          : this.#clock.now() + this.#alignmentInterval,
      );
    }
    this.#lastCheckpointId = Math.max(this.#lastCheckpointId, checkpoint.id);
    this.#latestCompleted = checkpoint;
    // Transactions in the checkpoint may not have been committed before the
    // crash: two-phase sinks commit them again (idempotently).
    this.#recommit = checkpoint.id;
  }

  /** The most recent checkpoint completed by this runtime (or restored), or `null`. */
  get latestCheckpoint(): CompletedCheckpoint | null {
    return this.#latestCompleted;
  }

  /**
   * The highest checkpoint id given out (completed or not), so that a
   * runtime restarted after this one numbers its checkpoints above it.
   */
  get lastCheckpointId(): number {
    return this.#lastCheckpointId;
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
    const letters = this.#actors.flatMap((a) =>
      (a.subtask ?? a.source!).takeDeadLetters()
    );
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
    // A program that steps the runtime may trigger before its first await.
    if (this.#storeHighest === null) this.#readStoreHighest().catch(() => {});
    if (this.#pendingCheckpoint !== null) return null;
    if (this.#actors.some((a) => (a.subtask ?? a.source!).finished)) {
      return null;
    }
    const id = ++this.#lastCheckpointId;
    this.#pendingCheckpoint = { id, acks: new Map() };
    this.#triggeredAt.set(id, this.#clock.now());
    for (const actor of this.#actors) actor.source?.triggerCheckpoint(id);
    return id;
  }

  #ack(actorId: string, checkpointId: number, snapshot: unknown): void {
    const pending = this.#pendingCheckpoint;
    if (pending === null || pending.id !== checkpointId) return;
    // Operators hand out live state: encode it (once, in its stored form)
    // before processing continues; the bytes are the copy.
    pending.acks.set(actorId, this.#encoder.encode(actorId, snapshot));
    if (pending.acks.size < this.#actors.length) return;
    this.#pendingCheckpoint = null;
    this.#completed.push(encodedCheckpoint({
      id: checkpointId,
      fingerprint: fingerprintOf(this.#graph),
      createdAt: this.#clock.now(),
    }, Object.fromEntries(pending.acks)));
  }

  /**
   * Writes the dead letters set aside so far, saves the checkpoints
   * completed since the last call, then tells every subtask, so two-phase
   * sinks commit. `run()` calls it after each round;
   * tests call it to make checkpoints durable at a chosen point.
   */
  async flushCheckpoints(): Promise<void> {
    await this.#readStoreHighest();
    await this.flushDeadLetters();
    if (this.#recommit !== null) {
      const id = this.#recommit;
      this.#recommit = null;
      await this.#notifyAll(id);
    }
    while (this.#completed.length > 0) {
      const checkpoint = this.#completed.shift()!;
      if (checkpoint.id <= this.#storeHighest!) {
        // Triggered before the store's highest id was known: saving it
        // would collide with a checkpoint the store holds or held.
        this.#triggeredAt.delete(checkpoint.id);
        continue;
      }
      await this.#store?.save(checkpoint);
      this.#latestCompleted = checkpoint;
      this.#recordDuration(checkpoint.id);
      await this.#notifyAll(checkpoint.id);
    }
  }

  /** Reads the store's highest checkpoint id once; ids continue above it. */
  #readStoreHighest(): Promise<void> {
    if (this.#storeHighest !== null) return Promise.resolve();
    // Through a promise, so that a store that throws rejects instead.
    this.#readingHighest ??= Promise.resolve().then(() =>
      this.#store!.highestId!()
    ).then((highest) => {
      const id = checkedHighestId(highest);
      this.#storeHighest = id;
      this.#lastCheckpointId = Math.max(this.#lastCheckpointId, id);
    }).finally(() => this.#readingHighest = null);
    return this.#readingHighest;
  }

  #recordDuration(id: number): void {
    const triggeredAt = this.#triggeredAt.get(id);
    if (triggeredAt === undefined) return;
    this.#triggeredAt.delete(id);
    this.#durations.set(id, this.#clock.now() - triggeredAt);
    // Bounded: only recent checkpoints are listed by the service.
    if (this.#durations.size > 64) {
      this.#durations.delete(this.#durations.keys().next().value!);
    }
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
    return this.#durations.get(id);
  }

  async #notifyAll(checkpointId: number): Promise<void> {
    await Promise.all(
      this.#actors.map((a) =>
        (a.subtask ?? a.source!).notifyCheckpointComplete(checkpointId)
      ),
    );
  }

  /** Whether every subtask has finished (bounded input processed to the end). */
  get finished(): boolean {
    return this.#actors.every((a) => (a.subtask ?? a.source!).finished) &&
      this.#actors.every((a) => a.head === a.mailbox.length);
  }

  /**
   * Processes everything that can run at the current processing time: due
   * timers, mailboxes, source polls, until nothing is left. Never moves the
   * clock.
   *
   * @returns The number of steps taken.
   */
  runUntilIdle(): number {
    let steps = 0;
    for (;;) {
      const now = this.#clock.now();
      let progressed = this.#runDueTimers(now);
      // Downstream first, so queues drain before upstream adds to them.
      for (let a = this.#actors.length - 1; a >= 0; a--) {
        const actor = this.#actors[a];
        this.#updatePause(actor);
        if (actor.paused) continue;
        if (actor.mail) {
          actor.mail = false;
          (actor.subtask ?? actor.source!).processMail();
          progressed = true;
        }
        if (actor.subtask !== null) {
          while (
            actor.head < actor.mailbox.length && !this.#blocked(actor) &&
            !actor.subtask.backPressured
          ) {
            const message = actor.mailbox[actor.head];
            (actor.mailbox as (Message | undefined)[])[actor.head++] =
              undefined;
            actor.subtask.receive(message.channel, message.element);
            steps++;
            progressed = true;
          }
          if (actor.head === actor.mailbox.length && actor.head > 0) {
            actor.mailbox.length = 0;
            actor.head = 0;
          }
        } else if (!this.#draining && actor.source!.poll(now)) {
          steps++;
          progressed = true;
        }
      }
      // A completed checkpoint must be saved (by `run()`, asynchronously)
      // before more work piles up behind it.
      if (!progressed || this.#completed.length > 0) return steps;
    }
  }

  /**
   * Does one unit of work: the due timers, then one element of one mailbox
   * or one source poll (downstream first). Crash tests stop between any two
   * steps.
   *
   * @returns `false` if there was nothing to do at the current time.
   */
  step(): boolean {
    const now = this.#clock.now();
    this.#runDueTimers(now);
    for (let a = this.#actors.length - 1; a >= 0; a--) {
      const actor = this.#actors[a];
      this.#updatePause(actor);
      if (actor.paused) continue;
      if (actor.mail) {
        actor.mail = false;
        (actor.subtask ?? actor.source!).processMail();
        return true;
      }
      if (actor.subtask !== null) {
        if (
          actor.head === actor.mailbox.length || actor.subtask.backPressured
        ) continue;
        const message = actor.mailbox[actor.head];
        (actor.mailbox as (Message | undefined)[])[actor.head++] = undefined;
        if (actor.head === actor.mailbox.length) {
          actor.mailbox.length = 0;
          actor.head = 0;
        }
        actor.subtask.receive(message.channel, message.element);
        return true;
      }
      if (!this.#draining && actor.source!.poll(now)) return true;
    }
    return false;
  }

  /**
   * Runs the job until it finishes, or `stop()` is called. When nothing can
   * run, it moves a simulated clock to the next timer, or waits for it in
   * real time.
   */
  async run(): Promise<void> {
    await this.#readStoreHighest();
    while (!this.#stopped) {
      this.runUntilIdle();
      await this.flushCheckpoints();
      if (this.finished) {
        await Promise.all(
          this.#actors.map((a) => (a.subtask ?? a.source!).settle()),
        );
        // The sinks' last writes may have refused records too.
        await this.flushDeadLetters();
        await this.close();
        return;
      }
      // Background reads (a KV log's prefetch) may bring records: let them
      // land before time moves on.
      await Promise.all(this.#actors.map((a) => a.source?.ready()));
      if (this.runUntilIdle() > 0) continue;
      // Asynchronous calls in flight: wait for one to complete before time
      // moves on (a simulated clock must not run ahead of them).
      if (this.#inFlight() > 0 && await this.#waitForMail(1_000)) continue;
      const next = this.nextWakeup();
      if (next === Infinity) {
        throw new RangeError(
          `Cannot run job '${this.#graph.jobName}' as it must finish or have a timer pending: current state has neither (a source never ends and nothing is scheduled)`,
        );
      }
      if (this.#simulate) {
        // A wake-up due now that ran without progress (e.g. a paused
        // source) must not spin: time moves on by at least 1 ms.
        (this.#clock as unknown as { set(ms: number): void }).set(
          Math.max(next, this.#clock.now() + 1),
        );
      } else {
        const wait = Math.max(0, next - this.#clock.now());
        await new Promise((resolve) =>
          setTimeout(resolve, Math.min(wait, 1_000))
        );
      }
    }
  }

  #inFlight(): number {
    let count = 0;
    for (const actor of this.#actors) {
      count += (actor.subtask ?? actor.source!).inFlight;
    }
    return count;
  }

  /** Waits until an operator requests mail, or `ms` of real time; true if mail came. */
  async #waitForMail(ms: number): Promise<boolean> {
    if (this.#actors.some((a) => a.mail)) return true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const mail = await Promise.race([
      new Promise<boolean>((resolve) => this.#wake = () => resolve(true)),
      new Promise<boolean>((resolve) =>
        timer = setTimeout(() => resolve(false), ms)
      ),
    ]);
    clearTimeout(timer);
    this.#wake = null;
    return mail;
  }

  /** Stops `run()` after its current step. */
  stop(): void {
    this.#stopped = true;
  }

  /** The checkpoint triggered and not yet complete, or `null`. */
  get checkpointInProgress(): number | null {
    return this.#pendingCheckpoint?.id ?? null;
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
  async finalCheckpoint(): Promise<number | null> {
    this.#draining = true;
    if (!(await this.#complete(this.#pendingCheckpoint?.id ?? null))) {
      return null;
    }
    // A periodic checkpoint may have started meanwhile: it is the final one.
    const id = this.#pendingCheckpoint?.id ?? this.triggerCheckpoint();
    return (await this.#complete(id)) ? id : null;
  }

  /** Runs until checkpoint `id` (if any) is saved; false if it cannot be. */
  async #complete(id: number | null): Promise<boolean> {
    if (id === null) return true;
    for (;;) {
      const steps = this.runUntilIdle();
      await this.flushCheckpoints();
      if (this.#pendingCheckpoint?.id !== id) {
        return (this.#latestCompleted?.id ?? 0) >= id;
      }
      if (steps > 0) continue;
      // Barriers may wait behind asynchronous calls in flight; with none,
      // nothing can move them any more.
      if (this.#inFlight() === 0) return false;
      await this.#waitForMail(1_000);
    }
  }

  /** Stops the sources' background reading; `run()` calls it when the job finishes. */
  async close(): Promise<void> {
    await Promise.all(this.#actors.map((a) => a.source?.close()));
  }

  /** The earliest processing time at which some subtask has work, or `Infinity`. */
  nextWakeup(): number {
    const now = this.#clock.now();
    let next = Math.min(this.#nextAlignment, this.#nextCheckpoint);
    for (const actor of this.#actors) {
      const due = actor.source !== null
        ? actor.source.nextProcessingTime(now)
        : actor.subtask!.nextProcessingTime();
      if (due < next) next = due;
    }
    return next;
  }

  /** Reports every subtask: watermarks, idleness, counts, mailbox depth, lag. */
  status(): SubtaskStatus[] {
    const now = this.#clock.now();
    return this.#actors.map((actor) => {
      const metrics = (actor.subtask ?? actor.source!).metrics;
      const gauges: Record<string, number> = {};
      for (const [name, read] of actor.gauges) gauges[name] = read();
      const input = actor.source !== null
        ? actor.source.currentWatermark
        : metrics.inputWatermark;
      return {
        id: actor.id,
        operator: actor.operator,
        subtask: actor.index,
        inputWatermark: input,
        outputWatermark: metrics.outputWatermark,
        idle: metrics.idle,
        recordsIn: metrics.recordsIn,
        recordsOut: metrics.recordsOut,
        mailboxDepth: actor.mailbox.length - actor.head,
        watermarkLagMs: now - metrics.outputWatermark,
        paused: actor.paused,
        gauges,
      };
    });
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

  #actor(actorId: string): Actor {
    const actor = this.#actors.find((a) => a.id === actorId);
    if (actor === undefined) {
      throw new RangeError(
        `Cannot find actor as 'actorId' must name an actor of job '${this.#graph.jobName}': current value is "${actorId}"`,
      );
    }
    return actor;
  }

  #blocked(actor: Actor): boolean {
    for (const channels of actor.targets) {
      for (const target of channels) {
        if (target.actor.mailbox.length - target.actor.head >= this.#capacity) {
          return true;
        }
      }
    }
    return false;
  }

  /** Pauses or resumes an actor (and its activity clock) for back-pressure or alignment. */
  #updatePause(actor: Actor): void {
    const held = actor.source !== null && actor.source.shouldWait;
    const paused = held || actor.suspended || this.#blocked(actor);
    if (paused === actor.paused) return;
    actor.paused = paused;
    if (paused) actor.activityClock.pause();
    else actor.activityClock.resume();
  }

  #runDueTimers(now: number): boolean {
    let ran = false;
    if (now >= this.#nextCheckpoint) {
      this.triggerCheckpoint();
      this.#nextCheckpoint = now + this.#checkpointInterval;
    }
    if (now >= this.#nextAlignment) {
      this.#announceAlignment();
      this.#setNextAlignment(now + this.#alignmentInterval);
      ran = true;
    }
    for (const actor of this.#actors) {
      if (actor.source !== null) {
        if (actor.source.nextProcessingTime(now) <= now) {
          const before = actor.source.currentWatermark;
          actor.source.onProcessingTime(now);
          ran ||= actor.source.currentWatermark !== before;
        }
      } else if (actor.subtask!.nextProcessingTime() <= now) {
        actor.subtask!.onProcessingTime(now);
        ran = true;
      }
    }
    return ran;
  }

  /** Reports every aligned source subtask's watermark and applies the announced limits. */
  #announceAlignment(): void {
    for (const actor of this.#actors) {
      if (actor.alignmentSource === null) continue;
      const source = actor.source!;
      const finished = source.finished;
      const reported = finished
        ? Infinity
        : reportableWatermark(source.currentWatermark, source.idle);
      if (reported !== null) {
        this.#alignment.reportWatermark(
          actor.alignmentSource,
          actor.index,
          reported,
        );
      }
    }
    for (const announcement of this.#alignment.announcements()) {
      const actor = this.#actors.find((a) =>
        a.alignmentSource === announcement.sourceId &&
        a.index === announcement.subtask
      )!;
      actor.source!.maxDesiredWatermark = announcement.maxAllowedWatermark;
    }
  }
}
