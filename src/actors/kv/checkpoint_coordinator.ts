/**
 * {@linkcode CheckpointCoordinator}: the KV runtime's checkpoint
 * coordinator, a pseudo-actor with its own lease, so that exactly one
 * worker at a time starts and completes checkpoints.
 *
 * @module
 */

import type { Clock } from "../../time/mod.ts";
import type { JobFingerprint } from "../../runtime/fingerprint.ts";
import type { CompletedCheckpoint } from "../checkpoint.ts";
import { encodeSnapshot } from "../snapshot_encoding.ts";
import { CheckpointDurations } from "../checkpoint_durations.ts";
import { checkpointSaved } from "../checkpoint_telemetry.ts";
import { readHighestId } from "../checkpoint_ids.ts";
import { PendingCheckpoint } from "../pending_checkpoint.ts";
import type { KvStorage } from "./kv_storage.ts";
import type { Lease } from "./lease.ts";

/** What every worker learns from the coordinator each round. */
export interface CoordinatorState {
  /** The checkpoint sources should take part in, or `null`. */
  readonly pending: number | null;
  /** The last completed checkpoint (0 for none): sinks commit up to it. */
  readonly completed: number;
  /** Whether this round committed anything. */
  readonly progressed: boolean;
}

/** Options of a {@linkcode CheckpointCoordinator}. */
export interface CoordinatorOptions {
  /** The database (for checkpoint requests). */
  readonly kv: Deno.Kv;
  /** The coordinator's own storage. */
  readonly storage: KvStorage;
  /** The coordinator's lease. */
  readonly lease: Lease;
  /** Processing time. */
  readonly clock: Clock;
  /** Processing time between checkpoints; 0: only on request. */
  readonly intervalMs: number;
  /** The highest checkpoint id already stored. */
  readonly lastCheckpointId: number;
  /** The job's fingerprint, recorded with each checkpoint. */
  readonly fingerprint: JobFingerprint;
  /** Every actor of the job. */
  readonly actors: readonly string[];
  /** Reads another actor's storage. */
  storageOf(actorId: string): KvStorage;
  /**
   * Where completed checkpoints go; with `highestId`, each checkpoint is
   * numbered above the highest id the store ever held.
   */
  readonly store?: {
    save(checkpoint: CompletedCheckpoint): Promise<void>;
    highestId?(): Promise<number>;
  };
  /** Retries transient KV errors. */
  retry<T>(what: string, call: () => Promise<T>): Promise<T>;
}

interface CoordinatorMeta {
  lastId: number;
  pending: number | null;
  pendingAt: number;
  completed: number;
  nextAt: number;
  /** The versionstamp of the last request handled ("" for none). */
  requestSeen: string;
}

interface ActorProgress {
  readonly finished: boolean;
  readonly acked: number;
}

/**
 * Starts a checkpoint every `intervalMs` (or on request), numbered above
 * both its last id and the highest id of the store: it records
 * the id as pending, sources see it and send barriers, and every actor
 * stores its aligned snapshot under `["ack", id]` in the same commit as the
 * step that aligned. Once every actor has acknowledged, the coordinator
 * saves the checkpoint to the store and records it as completed. One
 * checkpoint runs at a time and none is abandoned (its barriers may already
 * be in channels); none starts once part of the job has finished.
 */
export class CheckpointCoordinator {
  readonly #options: CoordinatorOptions;
  readonly #requestKey: Deno.KvKey;
  #latest: CompletedCheckpoint | null = null;
  readonly #durations = new CheckpointDurations();
  #nextTry = -Infinity;
  #nextAt = Infinity;

  /**
   * Creates the coordinator's view; it does not touch KV yet.
   *
   * @param options Storage, lease, clock, interval and actors.
   */
  constructor(options: CoordinatorOptions) {
    this.#options = options;
    this.#requestKey = [...options.storage.prefix, "request"];
  }

  /** The last checkpoint this worker completed, or `null`. */
  get latest(): CompletedCheckpoint | null {
    return this.#latest;
  }

  /**
   * How long checkpoint `id` took from its start to being saved, in
   * processing time, if this worker completed it.
   *
   * @param id A checkpoint id.
   */
  durationMs(id: number): number | undefined {
    return this.#durations.durationMs(id);
  }

  /** When the coordinator next has work in this worker, or `Infinity`. */
  nextWakeup(): number {
    return this.#options.lease.held
      ? this.#nextAt
      : Math.max(this.#nextTry, this.#options.clock.now() + 1);
  }

  /** Asks for a checkpoint as soon as possible, from any worker. */
  async request(): Promise<void> {
    await this.#options.kv.set(this.#requestKey, this.#options.clock.now());
  }

  /**
   * The checkpoints as stored, read from any worker: the highest id given
   * out, and the one in progress.
   *
   * @returns `lastId` (0 for none yet) and `pending` (`null` for none).
   */
  async progress(): Promise<{ lastId: number; pending: number | null }> {
    const meta = await this.#options.storage.get<CoordinatorMeta>(["meta"]);
    return {
      lastId: meta?.lastId ?? this.#options.lastCheckpointId,
      pending: meta?.pending ?? null,
    };
  }

  /**
   * One round: reads the coordinator's state; if this worker holds (or can
   * take) its lease, advances the protocol.
   *
   * @returns The pending checkpoint, and whether anything was committed.
   */
  async step(): Promise<CoordinatorState> {
    const { storage, lease, clock, retry } = this.#options;
    const now = clock.now();
    if (!lease.held && now >= this.#nextTry) {
      this.#nextTry = now + 1_000;
      await retry("take the coordinator's lease", () => lease.acquire());
    } else if (lease.held && lease.due(now)) {
      await retry("renew the coordinator's lease", () => lease.renew());
    }
    const [stored, request] = await retry(
      "read the checkpoint coordinator",
      () =>
        Promise.all([
          storage.get<CoordinatorMeta>(["meta"]),
          this.#options.kv.get(this.#requestKey),
        ]),
    );
    const meta: CoordinatorMeta = stored ?? {
      lastId: this.#options.lastCheckpointId,
      pending: null,
      pendingAt: 0,
      completed: 0,
      nextAt: this.#options.intervalMs > 0
        ? now + this.#options.intervalMs
        : Infinity,
      requestSeen: "",
    };
    if (!lease.held) {
      this.#nextAt = Infinity;
      return {
        pending: meta.pending,
        completed: meta.completed,
        progressed: false,
      };
    }
    const next = stored === undefined
      ? meta
      : await this.#advance(meta, request.versionstamp ?? "", now);
    this.#nextAt = next?.pending !== null && next !== null
      ? now + 10
      : (next ?? meta).nextAt;
    if (next === null) {
      return {
        pending: meta.pending,
        completed: meta.completed,
        progressed: false,
      };
    }
    try {
      await retry(
        "commit the checkpoint coordinator",
        () =>
          storage.atomic([{ type: "put", key: ["meta"], value: next }], {
            checks: [lease.check],
          }),
      );
    } catch (error) {
      lease.lost();
      throw error;
    }
    return {
      pending: next.pending,
      completed: next.completed,
      progressed: true,
    };
  }

  /** The next state, or `null` if nothing changes. */
  async #advance(
    meta: CoordinatorMeta,
    requested: string,
    now: number,
  ): Promise<CoordinatorMeta | null> {
    const interval = this.#options.intervalMs;
    if (meta.pending === null) {
      // Versionstamps grow with every commit: a newer one is a new request.
      const asked = requested > meta.requestSeen;
      if (!asked && now < meta.nextAt) return null;
      const progress = await this.#progress();
      const next = {
        ...meta,
        requestSeen: asked ? requested : meta.requestSeen,
        nextAt: interval > 0 ? now + interval : Infinity,
      };
      // As in the local runtime: no checkpoints once part of the job ended.
      if (progress.some((p) => p.finished)) return next;
      const id = Math.max(meta.lastId, await this.#storeHighest()) + 1;
      return { ...next, lastId: id, pending: id, pendingAt: now };
    }
    // Never abandoned: its barriers may already be in some channels, and a
    // later checkpoint's barriers behind them would never align. Once part
    // of the job finished it cannot complete; it stays pending, so no other
    // starts (as in the local runtime).
    const progress = await this.#progress();
    const id = meta.pending;
    if (!progress.every((p) => p.acked >= id)) return null;
    await this.#complete(id, meta.pendingAt, now);
    return { ...meta, pending: null, completed: id };
  }

  /**
   * The highest id the store ever held (0 without a store that knows it):
   * ids only grow within a store,
   * although a job started over (`KvRuntime.reset`) or restored from an
   * older checkpoint begins with a fresh `lastId`, and another runtime may
   * have saved to the store meanwhile. Read at each start: one small read.
   */
  #storeHighest(): Promise<number> {
    const { store, retry } = this.#options;
    return readHighestId(
      store,
      (read) => retry("read the highest checkpoint id of the store", read),
    );
  }

  async #progress(): Promise<ActorProgress[]> {
    const { actors, storageOf, retry } = this.#options;
    return await retry("read the actors' progress", () =>
      Promise.all(
        actors.map(async (id) =>
          (await storageOf(id).get<ActorProgress>(["meta"])) ??
            { finished: false, acked: 0 }
        ),
      ));
  }

  async #complete(id: number, startedAt: number, now: number): Promise<void> {
    const { actors, storageOf, retry, fingerprint, store } = this.#options;
    // Started by whichever worker held the lease then: its start is in KV.
    this.#durations.triggered(id, startedAt);
    const pending = new PendingCheckpoint(id, actors.length);
    for (const actor of actors) {
      const snapshot = await retry(
        `read the snapshot of '${actor}'`,
        () => storageOf(actor).get(["ack", id]),
      );
      pending.ack(actor, encodeSnapshot(actor, snapshot));
    }
    const checkpoint = pending.complete(fingerprint, now);
    await store?.save(checkpoint);
    this.#durations.saved(id, now);
    checkpointSaved(checkpoint, this.#durations.durationMs(id));
    this.#latest = checkpoint;
  }

  /** Gives the lease up, so another worker coordinates at once. */
  release(): Promise<void> {
    return this.#options.lease.release();
  }
}
