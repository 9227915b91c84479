// The local runtime's checkpoint coordination: the periodic trigger,
// acknowledgements as subtasks snapshot, completion, saving to the store
// and telling every subtask, so two-phase sinks commit.

import type { Clock } from "../../time/clock.ts";
import type { JobGraph } from "../../runtime/job_graph.ts";
import { fingerprintOf } from "../../runtime/fingerprint.ts";
import type { CompletedCheckpoint } from "../checkpoint.ts";
import type { RuntimeOptions } from "../actor_runtime.ts";
import { machineOf } from "../actor_record.ts";
import { CheckpointIds } from "../checkpoint_ids.ts";
import { CheckpointDurations } from "../checkpoint_durations.ts";
import {
  checkpointRestored,
  checkpointSaved,
} from "../checkpoint_telemetry.ts";
import { PendingCheckpoint } from "../pending_checkpoint.ts";
import { SnapshotEncoder } from "./_snapshot_encoder.ts";
import type { LocalActor } from "./_local_actor.ts";

/** Options of {@linkcode LocalCheckpoints}. */
export interface LocalCheckpointsOptions {
  readonly graph: JobGraph;
  readonly clock: Clock;
  readonly store: RuntimeOptions["checkpointStore"];
  /** Processing time between checkpoints; 0: only when triggered. */
  readonly intervalMs: number;
  /** The highest id already given out. */
  readonly lastCheckpointId: number;
  /** Every actor of the job (filled in once built). */
  readonly actors: readonly LocalActor[];
}

/**
 * One checkpoint at a time: triggered at the sources, acknowledged by every
 * actor as its barriers align, completed, then saved and committed by
 * {@linkcode LocalCheckpoints.save}.
 */
export class LocalCheckpoints {
  /** Encodes the snapshots the actors hand out. */
  readonly encoder = new SnapshotEncoder();
  readonly #graph: JobGraph;
  readonly #clock: Clock;
  readonly #store: RuntimeOptions["checkpointStore"];
  readonly #intervalMs: number;
  readonly #actors: readonly LocalActor[];
  readonly #ids: CheckpointIds;
  readonly #durations = new CheckpointDurations();
  #nextMs = Infinity;
  #pending: PendingCheckpoint | null = null;
  // Completed, to be saved by `save()`.
  readonly #completed: CompletedCheckpoint[] = [];
  #latest: CompletedCheckpoint | null = null;
  #recommit: number | null = null;

  constructor(options: LocalCheckpointsOptions) {
    this.#graph = options.graph;
    this.#clock = options.clock;
    this.#store = options.store;
    this.#intervalMs = options.intervalMs;
    this.#actors = options.actors;
    this.#ids = new CheckpointIds(options.store, options.lastCheckpointId);
    if (this.#intervalMs > 0) {
      this.#nextMs = this.#clock.now() + this.#intervalMs;
    }
  }

  /** The checkpoint triggered and not yet complete, or `null`. */
  get inProgress(): number | null {
    return this.#pending?.id ?? null;
  }

  /** The latest checkpoint saved (or restored), or `null`. */
  get latest(): CompletedCheckpoint | null {
    return this.#latest;
  }

  /** The highest id given out. */
  get lastId(): number {
    return this.#ids.last;
  }

  /** Whether a completed checkpoint waits for `save()`. */
  get hasCompleted(): boolean {
    return this.#completed.length > 0;
  }

  /** When the next periodic checkpoint is due, or `Infinity`. */
  get nextMs(): number {
    return this.#nextMs;
  }

  /** See `LocalRuntime.checkpointDurationMs`. */
  durationMs(id: number): number | undefined {
    return this.#durations.durationMs(id);
  }

  /** Triggers the periodic checkpoint if it is due at `nowMs`. */
  runTimer(nowMs: number): void {
    if (nowMs < this.#nextMs) return;
    this.trigger();
    this.#nextMs = nowMs + this.#intervalMs;
  }

  /** The job was restored from `checkpoint`: ids go on above it, sinks commit it again. */
  restored(checkpoint: CompletedCheckpoint): void {
    this.#ids.raise(checkpoint.id);
    this.#latest = checkpoint;
    // Transactions in the checkpoint may not have been committed before the
    // crash: two-phase sinks commit them again (idempotently).
    this.#recommit = checkpoint.id;
    checkpointRestored(checkpoint);
  }

  /** Reads the store's highest id once; ids continue above it. */
  readStoreHighest(): Promise<void> {
    return this.#ids.read();
  }

  /** See `LocalRuntime.triggerCheckpoint`. */
  trigger(): number | null {
    // A program that steps the runtime may trigger before its first await.
    if (!this.#ids.known) this.#ids.read().catch(() => {});
    if (this.#pending !== null) return null;
    if (this.#actors.some((a) => machineOf(a).finished)) return null;
    const id = this.#ids.next();
    this.#pending = new PendingCheckpoint(id, this.#actors.length);
    this.#durations.triggered(id, this.#clock.now());
    for (const actor of this.#actors) actor.source?.triggerCheckpoint(id);
    return id;
  }

  /** Actor `actorId` snapshotted for checkpoint `checkpointId`. */
  ack(actorId: string, checkpointId: number, snapshot: unknown): void {
    const pending = this.#pending;
    if (pending === null || pending.id !== checkpointId) return;
    // Operators hand out live state: encode it (once, in its stored form)
    // before processing continues; the bytes are the copy.
    if (!pending.ack(actorId, this.encoder.encode(actorId, snapshot))) return;
    this.#pending = null;
    this.#completed.push(
      pending.complete(fingerprintOf(this.#graph), this.#clock.now()),
    );
  }

  /**
   * Commits the restored checkpoint again if not yet done, then saves the
   * checkpoints completed since the last call and tells every subtask.
   * Call after {@linkcode readStoreHighest}.
   */
  async save(): Promise<void> {
    if (this.#recommit !== null) {
      const id = this.#recommit;
      this.#recommit = null;
      await this.#notifyAll(id);
    }
    while (this.#completed.length > 0) {
      const checkpoint = this.#completed.shift()!;
      if (!this.#ids.isAboveStore(checkpoint.id)) {
        // Triggered before the store's highest id was known: saving it
        // would collide with a checkpoint the store holds or held.
        this.#durations.dropped(checkpoint.id);
        continue;
      }
      await this.#store?.save(checkpoint);
      this.#latest = checkpoint;
      this.#durations.saved(checkpoint.id, this.#clock.now());
      checkpointSaved(checkpoint, this.#durations.durationMs(checkpoint.id));
      await this.#notifyAll(checkpoint.id);
    }
  }

  async #notifyAll(checkpointId: number): Promise<void> {
    await Promise.all(
      this.#actors.map((a) =>
        machineOf(a).notifyCheckpointComplete(checkpointId)
      ),
    );
  }
}
