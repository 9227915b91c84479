/**
 * {@linkcode LocalJob}: a job on the local runtime with Flink's restart
 * strategy for a record that fails under the `"fail"` error policy.
 *
 * @module
 */

import type { JobGraph } from "../../runtime/job_graph.ts";
import {
  type DeadLetter,
  RecordFailedError,
} from "../../runtime/dead_letter.ts";
import type { InputChannelStatus } from "../../runtime/subtask.ts";
import type { PartitionState } from "../../runtime/partition_state.ts";
import type { CompletedCheckpoint } from "../checkpoint.ts";
import type { DeadLetterLog } from "../dead_letter_log.ts";
import type { ActorStorage } from "../storage.ts";
import { StrikeLog } from "../_strike_log.ts";
import { MemoryStorage } from "./memory_storage.ts";
import { LocalRuntime, type LocalRuntimeOptions } from "./local_runtime.ts";
import type { ActorRuntime, SubtaskStatus } from "../actor_runtime.ts";

/** Options of a {@linkcode LocalJob}: the runtime's, and where strikes go. */
export interface LocalJobOptions
  extends Omit<LocalRuntimeOptions, "quarantine"> {
  /**
   * Where the records that failed once under `"fail"` are remembered (e.g.
   * `new KvStorage(kv, ["weir", job, "strikes"])`), so that after a
   * process restart too such a record is quarantined if it fails again.
   * @default {a new MemoryStorage}
   */
  strikeStorage?: ActorStorage;
}

/**
 * Runs a job on {@linkcode LocalRuntime}s, one after the other: when a
 * record fails under the `"fail"` error policy (a `RecordFailedError` out
 * of the runtime), the job restarts in this process from its latest
 * completed checkpoint (from the start without one), as Flink's restart
 * strategy does, with the record's strike quarantined: if the same record
 * (by content, wherever it comes) fails again, it is set aside in the
 * dead-letter log as `"quarantined"` and the job goes on. The strike is
 * written to `strikeStorage` before the restart, so a process restart
 * quarantines the record too. Any other failure ends `run()` as it would
 * end the runtime's.
 *
 * A record whose content changes from one run to the next (its timestamp
 * is ingestion time, a map adds `Date.now()` or a random id) has another
 * strike each time: when the same operator subtask fails again after a
 * restart from the same checkpoint, the job restarts once more with that
 * operator subtask (its site, `RecordFailedError.site`) quarantined, so
 * every record that fails there is set aside as `"quarantined"` until a
 * newer checkpoint completes (the job made progress). That costs one
 * restart more than a record recognised by its content, and never loops.
 *
 * Under `"dead-letter"` no record fails a runtime: a `LocalJob` then runs
 * exactly one. The job is an {@linkcode ActorRuntime} itself, and reads
 * like a runtime to the HTTP service (status, channels, checkpoints),
 * following the runtime that runs now.
 *
 * A restart redoes, from the checkpoint, what the failed runtime did after
 * it: two-phase sinks (`KvTableSink`, `KvAppendSink`) commit it once;
 * other sinks (a `CollectSink`) see it again.
 *
 * @example Running a job to its end, restarting if a record fails
 * ```ts ignore
 * const job = new LocalJob(graph, { clock, errorPolicy: "fail" });
 * const runtime = await job.run();
 * console.log(job.restarts, await job.deadLetters.list());
 * ```
 */
export class LocalJob implements ActorRuntime {
  readonly #graph: JobGraph;
  readonly #options: LocalJobOptions;
  readonly #deadLetterStorage: ActorStorage;
  readonly #strikes: StrikeLog;
  readonly #quarantine = new Set<string>();
  // Sites (`RecordFailedError.site`) in the quarantine: until a checkpoint
  // newer than the one the job restarted from completes.
  readonly #sites = new Set<string>();
  // Where the last record failed, and the checkpoint the job restarted
  // from after it (`null`: the start).
  #lastFailure: { site: string; from: number | null } | null = null;
  readonly #print: (line: string) => void = (line) => console.error(line);
  #runtime: LocalRuntime;
  #restarts = 0;
  // Letters counted by the runtimes before this one.
  #counted = 0;
  #stopped = false;
  // The record failure the job stopped at without a restart.
  #failedRecord: RecordFailedError | null = null;

  /**
   * Creates the job's first runtime (nothing runs until `run()`).
   *
   * @param graph The job's plan.
   * @param options The runtime's options, and where strikes are kept.
   * @throws {RangeError} If an option is out of range (see `LocalRuntime`).
   */
  constructor(graph: JobGraph, options: LocalJobOptions) {
    this.#graph = graph;
    // One log and one strike list for every runtime of the job.
    this.#deadLetterStorage = options.deadLetterStorage ?? new MemoryStorage();
    this.#options = {
      ...options,
      deadLetterStorage: this.#deadLetterStorage,
    };
    this.#strikes = new StrikeLog(
      options.strikeStorage ?? new MemoryStorage(),
    );
    this.#runtime = this.#create(options.restoreFrom, options.lastCheckpointId);
  }

  #create(
    restoreFrom: CompletedCheckpoint | undefined,
    lastCheckpointId: number | undefined,
  ): LocalRuntime {
    const { strikeStorage: _, checkpointStore: store, ...options } =
      this.#options;
    const saved = () => this.#progressed();
    return new LocalRuntime(this.#graph, {
      ...options,
      restoreFrom,
      lastCheckpointId,
      // The subtasks read the set as it is when a record fails.
      quarantine: this.#quarantine,
      // A checkpoint saved is progress: quarantined sites are released.
      checkpointStore: {
        async save(checkpoint) {
          await store?.save(checkpoint);
          saved();
        },
        ...(typeof store?.highestId === "function"
          ? { highestId: () => store.highestId!() }
          : {}),
      },
    });
  }

  // A checkpoint newer than the restart's completed: a record failing at
  // a quarantined site now is a new failure (restart), not the one whose
  // content could not be recognised.
  #progressed(): void {
    for (const site of this.#sites) this.#quarantine.delete(site);
    this.#sites.clear();
  }

  /** The runtime that runs the job now (a new one after each restart). */
  get runtime(): LocalRuntime {
    return this.#runtime;
  }

  /** How many times the job restarted because a record failed. */
  get restarts(): number {
    return this.#restarts;
  }

  /** The job's dead-letter log (the same for every runtime of the job). */
  get deadLetters(): DeadLetterLog {
    return this.#runtime.deadLetters;
  }

  /** Letters this job's runtimes wrote that were new to the dead-letter log. */
  get deadLetterCount(): number {
    return this.#counted + this.#runtime.deadLetterCount;
  }

  /**
   * Runs the job until it finishes or `stop()` is called, restarting it
   * when a record fails under `"fail"` (see the class doc).
   *
   * A record that fails as the job stops (`stop()` came during the step
   * that failed) does not restart it: the record is struck, as for a
   * restart, and the job stays stopped where it failed, with
   * {@linkcode failedRecord} set. The failed runtime is never checkpointed
   * (`finalCheckpoint()` returns `null`): the next start restores the
   * latest checkpoint, before the record, and quarantines it if it fails
   * again.
   *
   * @returns The runtime that ran it last, for its final status.
   * @throws {RecordFailedError} If a record failed as the job stopped (see
   * above), or a quarantined record failed anyway.
   * @throws {Error} Whatever else ended the runtime's `run()`.
   */
  async run(): Promise<LocalRuntime> {
    for (const id of await this.#strikes.ids()) this.#quarantine.add(id);
    for (;;) {
      const runtime = this.#runtime;
      try {
        await runtime.run();
        return runtime;
      } catch (error) {
        if (!(error instanceof RecordFailedError)) throw error;
        if (this.#stopped) {
          await this.#stopAt(runtime, error);
          throw error;
        }
        await this.#restart(runtime, error.letter, error);
      }
    }
  }

  /**
   * The record failure (under `"fail"`) the job stopped at without a
   * restart: it failed as the job stopped, or while `finalCheckpoint()`
   * drained it; or `null`. The record is struck, and no checkpoint past it
   * was taken: the next start restores `latestCheckpoint` (the start
   * without one) and quarantines the record if it fails again.
   */
  get failedRecord(): RecordFailedError | null {
    return this.#failedRecord;
  }

  // A record failed while the job stops: what a restart would do before it
  // restores, and no more. The failed runtime stays the job's (for its
  // status, and `close()`), and is never checkpointed.
  async #stopAt(failed: LocalRuntime, error: RecordFailedError): Promise<void> {
    this.#failedRecord = error;
    if (
      this.#quarantine.has(error.strike) || this.#quarantine.has(error.site)
    ) return;
    this.#quarantine.add(error.strike);
    await this.#strikes.add(error);
    // Letters of records before the failure (quarantined ones).
    await failed.flushDeadLetters();
  }

  async #restart(
    failed: LocalRuntime,
    letter: DeadLetter,
    error: RecordFailedError,
  ): Promise<void> {
    // A record quarantined is set aside, never thrown: failing again would
    // restart forever.
    if (
      this.#quarantine.has(error.strike) || this.#quarantine.has(error.site)
    ) throw error;
    this.#quarantine.add(error.strike);
    await this.#strikes.add(error);
    // Letters of records before the failure (quarantined ones): the restored
    // runtime sets them aside again only if it processes them again.
    await failed.flushDeadLetters();
    await failed.close();
    this.#counted += failed.deadLetterCount;
    const from = failed.latestCheckpoint ?? undefined;
    const fromId = from?.id ?? null;
    // The same operator subtask failed again after a restart from the same
    // checkpoint, on a record its strike did not recognise: its content
    // changes from run to run (ingestion time, a map adding `Date.now()` or
    // a random id), so its strike never matches. Its site is quarantined
    // until the job makes progress (a newer checkpoint), else it would
    // restart forever.
    const unrecognised = this.#lastFailure?.site === error.site &&
      this.#lastFailure.from === fromId;
    this.#lastFailure = { site: error.site, from: fromId };
    if (unrecognised) {
      this.#quarantine.add(error.site);
      this.#sites.add(error.site);
    }
    const where = `${letter.operator} subtask ${letter.subtask}`;
    this.#print(
      `weir: job '${this.#graph.jobName}' restarts from ${
        from === undefined ? "the start" : `checkpoint ${from.id}`
      } as a record of ${where} at ${letter.position} failed (errorPolicy "fail"): ${letter.error.name}: ${letter.error.message}; ${
        unrecognised
          ? `it failed there after the same restore before, with other content (a timestamp or value that depends on processing time?), so every record that fails at ${where} is quarantined until a newer checkpoint completes`
          : "if it fails again it is quarantined"
      } (dead-letter log: GET /jobs/${this.#graph.jobName}/dead-letters)`,
    );
    this.#restarts++;
    this.#runtime = this.#create(from, failed.lastCheckpointId);
    // Stopped while restarting: the new runtime does not start either.
    if (this.#stopped) this.#runtime.stop();
  }

  /** Stops `run()` after the current step (of the runtime running now). */
  stop(): void {
    this.#stopped = true;
    this.#runtime.stop();
  }

  /**
   * Stops with a final checkpoint (see
   * {@linkcode LocalRuntime.finalCheckpoint}), after `stop()` and once
   * `run()` has returned, unless a record failed: then none is taken.
   *
   * A record that fails under `"fail"` while the runtime drains (a window
   * that the last watermark fires throws) is struck, and no checkpoint past
   * it is saved, as when a record fails as the job stops (see `run()`):
   * {@linkcode failedRecord} says which, and the next start restores the
   * latest checkpoint and quarantines the record if it fails again.
   *
   * @returns The final checkpoint's id, or `null` if none was taken: part
   * of the job has finished, or a record failed ({@linkcode failedRecord}).
   */
  async finalCheckpoint(): Promise<number | null> {
    if (this.#failedRecord !== null) return null;
    const runtime = this.#runtime;
    try {
      return await runtime.finalCheckpoint();
    } catch (error) {
      if (!(error instanceof RecordFailedError)) throw error;
      await this.#stopAt(runtime, error);
      return null;
    }
  }

  /** See {@linkcode LocalRuntime.close}. */
  close(): Promise<void> {
    return this.#runtime.close();
  }

  /** Whether the job has finished (see {@linkcode LocalRuntime.finished}). */
  get finished(): boolean {
    return this.#runtime.finished;
  }

  /** The checkpoint in progress, or `null`. */
  get checkpointInProgress(): number | null {
    return this.#runtime.checkpointInProgress;
  }

  /** The latest checkpoint completed (or restored), or `null`. */
  get latestCheckpoint(): CompletedCheckpoint | null {
    return this.#runtime.latestCheckpoint;
  }

  /** Every subtask's status (see {@linkcode LocalRuntime.status}). */
  status(): SubtaskStatus[] {
    return this.#runtime.status();
  }

  /** Processing time of the next timer or checkpoint due (of the runtime running now). */
  nextWakeup(): number {
    return this.#runtime.nextWakeup();
  }

  /** See {@linkcode LocalRuntime.triggerCheckpoint}. */
  triggerCheckpoint(): number | null {
    return this.#runtime.triggerCheckpoint();
  }

  /**
   * How long a checkpoint took (see `LocalRuntime.checkpointDurationMs`).
   *
   * @param id The checkpoint id.
   */
  checkpointDurationMs(id: number): number | undefined {
    return this.#runtime.checkpointDurationMs(id);
  }

  /**
   * An actor's input channels (see `LocalRuntime.inputChannels`).
   *
   * @param actorId The actor id, `job/operator/subtask`.
   */
  inputChannels(actorId: string): InputChannelStatus[] {
    return this.#runtime.inputChannels(actorId);
  }

  /**
   * A source actor's partitions (see `LocalRuntime.sourcePartitions`).
   *
   * @param actorId The actor id, `job/operator/subtask`.
   */
  sourcePartitions(actorId: string): readonly string[] {
    return this.#runtime.sourcePartitions(actorId);
  }

  /**
   * A source actor's partitions with their watermarks and statuses (see
   * `LocalRuntime.sourcePartitionStates`).
   *
   * @param actorId The actor id, `job/operator/subtask`.
   */
  sourcePartitionStates(actorId: string): PartitionState[] {
    return this.#runtime.sourcePartitionStates(actorId);
  }
}
