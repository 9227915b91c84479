/**
 * {@linkcode CheckpointStore}: a job's completed checkpoints in its
 * {@linkcode ActorStorage}, each made visible by one atomic commit, read back
 * only when whole and only by a job with the same fingerprint.
 *
 * @module
 */

import type { ActorStorage, StorageOp } from "./storage.ts";
import type { Encoded } from "./_codec.ts";
import type { CheckpointInfo, CompletedCheckpoint } from "./checkpoint.ts";
import { encodedSnapshots } from "./_encoded_checkpoint.ts";
import type { JobFingerprint } from "../runtime/fingerprint.ts";
import { describeValue, requirePositiveInteger } from "../time/validate.ts";
import {
  type UnreadableCheckpoint,
  UnreadableCheckpointsError,
} from "./unreadable_checkpoints_error.ts";
import {
  HIGHEST,
  indexKey,
  LATEST,
  manifestKey,
  partKey,
  partName,
  snapshotKey,
} from "./_checkpoint_keys.ts";
import {
  checkCheckpoint,
  checkFingerprint,
  encodeSnapshots,
  type Manifest,
} from "./_checkpoint_checks.ts";
import { CheckpointReader, type IndexEntry } from "./_checkpoint_reader.ts";
import { applyInBatches, CheckpointCleaner } from "./_checkpoint_cleanup.ts";

/** Options of {@linkcode CheckpointStore}. */
export interface CheckpointStoreOptions {
  /**
   * How many complete checkpoints to keep: a positive safe integer. Each
   * save deletes the older ones; the kept ones are the fallbacks when the
   * newest is corrupt.
   * @default {3}
   */
  readonly retain?: number;
  /**
   * Receives one line per corrupt checkpoint skipped by
   * {@linkcode CheckpointStore.latest}, and per failed clean-up after a save.
   * @default {console.warn}
   */
  readonly log?: (line: string) => void;
}

/**
 * A job's completed checkpoints in one {@linkcode ActorStorage} (the job's,
 * e.g. `new KvStorage(kv, ["weir", jobName, "checkpoints"])`).
 *
 * Saving is atomic: the subtask snapshots are written first, each under its
 * own key, then ONE commit writes the manifest (id, fingerprint, creation
 * time, subtask ids) and the `latest` pointer. A crash before that commit
 * leaves a partial checkpoint: it is never read, and a later save deletes
 * it. Each save then keeps the newest `retain` complete checkpoints and
 * deletes the rest, and every partial one older than the new checkpoint.
 *
 * Reading verifies: {@linkcode CheckpointStore.latest} returns the newest
 * complete checkpoint whose snapshots are all present and readable; a
 * corrupt one is logged and skipped for the previous one; when no complete
 * one is whole, it throws {@linkcode UnreadableCheckpointsError} rather
 * than let the job start fresh. A checkpoint of another job (a different
 * fingerprint) is never skipped: it throws
 * {@linkcode CheckpointMismatchError}, so that a job never silently starts
 * fresh on, or beside, another job's state.
 *
 * Ids only grow: {@linkcode CheckpointStore.highestId} is the highest id
 * the store ever held, recorded with each save, and the runtimes number
 * new checkpoints above it.
 *
 * Cost: a save writes each snapshot once, in batches of 16 keys, and reads
 * only the small index and manifests; a read reads one checkpoint. Calls
 * on one store run one at a time; one job (one writer) owns the storage.
 * `save` encodes the snapshots before it returns its promise, so the
 * caller may change its state at once.
 *
 * @example Save, then restore the latest checkpoint
 * ```ts
 * import { CheckpointStore, MemoryStorage } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const fingerprint = { jobName: "clicks", operatorIds: ["src-1", "sum-2"], maxParallelism: 128, stateFormatVersion: 1 };
 * const store = new CheckpointStore(new MemoryStorage());
 * await store.save({ id: 1, fingerprint, createdAt: 1_000, subtasks: { "clicks/sum-2/0": { sum: 5, low: -Infinity } } });
 * const restored = await store.latest(fingerprint);
 * assert.equal(restored?.id, 1);
 * assert.deepEqual(restored?.subtasks["clicks/sum-2/0"], { sum: 5, low: -Infinity });
 * ```
 */
export class CheckpointStore {
  readonly #storage: ActorStorage;
  readonly #reader: CheckpointReader;
  readonly #cleaner: CheckpointCleaner;
  readonly #log: (line: string) => void;
  #queue: Promise<unknown> = Promise.resolve();
  // Parts this store wrote in a complete checkpoint, by the very Encoded the
  // runtime handed it, and which of them are still stored: an unchanged
  // part is referred to, not written again.
  readonly #written = new WeakMap<Encoded, string>();
  readonly #stored = new Map<string, readonly [number, number]>();

  /**
   * Creates a store over `storage`; it does not read anything yet.
   *
   * @param storage The job's storage, used by this store alone.
   * @param options How many checkpoints to keep, and where warnings go.
   * @throws {TypeError} If `storage` is not an ActorStorage or
   * `options.log` is not a function.
   * @throws {RangeError} If `options.retain` is not a positive safe integer.
   */
  constructor(storage: ActorStorage, options: CheckpointStoreOptions = {}) {
    const action = "create CheckpointStore";
    if (
      typeof (storage as Partial<ActorStorage> | null)?.atomic !== "function"
    ) {
      throw new TypeError(
        `Cannot ${action} as 'storage' must be an ActorStorage: current value is ${
          describeValue(storage)
        }`,
      );
    }
    if (options.log !== undefined && typeof options.log !== "function") {
      throw new TypeError(
        `Cannot ${action} as 'options.log' must be a function: current value is ${
          describeValue(options.log)
        }`,
      );
    }
    const retain = options.retain === undefined
      ? 3
      : requirePositiveInteger(options.retain, {
        action,
        param: "options.retain",
      });
    this.#storage = storage;
    this.#reader = new CheckpointReader(storage);
    this.#cleaner = new CheckpointCleaner({
      storage,
      reader: this.#reader,
      retain,
      stored: this.#stored,
    });
    this.#log = options.log ?? console.warn;
  }

  /**
   * Saves a checkpoint so that it becomes visible atomically, then deletes
   * the checkpoints beyond the newest `retain` complete ones and the
   * partial ones older than it.
   *
   * If the clean-up fails, the checkpoint is saved all the same: the
   * failure is logged and the next save retries. A partial checkpoint with
   * the same id (an earlier attempt that crashed) is deleted first.
   *
   * @param checkpoint The checkpoint; its id must be above every complete one.
   * @throws {TypeError} If a field of `checkpoint` has the wrong type or a
   * snapshot is `undefined` or cannot be structured-cloned (it holds a
   * function or a symbol).
   * @throws {RangeError} If `checkpoint.id` is not a positive safe integer
   * above the newest complete checkpoint's, or a field is out of range.
   */
  async save(checkpoint: CompletedCheckpoint): Promise<void> {
    const checked = checkCheckpoint(checkpoint);
    // Encoded now: a bad snapshot fails before anything is written, and the
    // caller may change its state while the save waits for its turn.
    const snapshots = encodedSnapshots(checked) ??
      encodeSnapshots(checked.subtasks);
    await this.#exclusive(() => this.#save(checked, snapshots));
  }

  /**
   * Reads the newest complete checkpoint that is whole: its manifest
   * present and every subtask snapshot present and readable.
   *
   * A corrupt one is skipped for the previous complete one, with one line
   * to `options.log` naming its id and what is wrong once a whole one is
   * found. Partial checkpoints (saves that crashed before their manifest)
   * are skipped silently.
   *
   * @param fingerprint The fingerprint of the job that restores.
   * @returns The checkpoint, or `null` if the store holds none, or only
   * partial ones.
   * @throws {UnreadableCheckpointsError} If complete checkpoints exist and
   * none is whole: the error lists each and what is wrong with it.
   * @throws {CheckpointMismatchError} If the newest whole-looking checkpoint
   * belongs to a job with another fingerprint: never skipped.
   * @throws {TypeError} If `fingerprint` is malformed.
   */
  async latest(
    fingerprint: JobFingerprint,
  ): Promise<CompletedCheckpoint | null> {
    checkFingerprint(fingerprint, "read the latest checkpoint", "fingerprint");
    return await this.#exclusive(async () => {
      const pointer = await this.#reader.pointer();
      const ids = this.#reader.candidates(await this.#reader.index(), pointer);
      const skipped: UnreadableCheckpoint[] = [];
      for (const id of ids) {
        const result = await this.#reader.read(id, fingerprint);
        if ("checkpoint" in result) {
          for (const { id, problem } of skipped) {
            this.#log(
              `Skipping checkpoint ${id} of job '${fingerprint.jobName}' as ${problem}; falling back to the previous complete checkpoint, if any`,
            );
          }
          return result.checkpoint;
        }
        // An abandoned save is expected after a crash; a checkpoint that
        // was complete and is no longer whole is worth a line.
        if (result.partial && id !== pointer) continue;
        skipped.push({ id, problem: result.problem });
      }
      // Complete checkpoints existed and none is whole: starting fresh
      // would silently run the job again from the beginning of its input.
      if (skipped.length > 0) {
        throw new UnreadableCheckpointsError(fingerprint.jobName, skipped);
      }
      return null;
    });
  }

  /**
   * Reads one checkpoint, for an explicit restore to an earlier point.
   *
   * @param id The checkpoint id.
   * @param fingerprint The fingerprint of the job that restores.
   * @returns The checkpoint, whole.
   * @throws {RangeError} If `id` does not name a complete, whole checkpoint
   * (the message lists the complete ones).
   * @throws {CheckpointMismatchError} If it belongs to a job with another
   * fingerprint.
   * @throws {TypeError} If `id` is not a number or `fingerprint` is malformed.
   */
  async load(
    id: number,
    fingerprint: JobFingerprint,
  ): Promise<CompletedCheckpoint> {
    const action = "load a checkpoint";
    requirePositiveInteger(id, { action, param: "id" });
    checkFingerprint(fingerprint, action, "fingerprint");
    return await this.#exclusive(async () => {
      const result = await this.#reader.read(id, fingerprint);
      if ("checkpoint" in result) return result.checkpoint;
      const complete = (await this.#reader.list()).map((info) => info.id);
      throw new RangeError(
        `Cannot ${action} as 'id' must name a complete checkpoint: current value is ${id}, but ${result.problem}; the complete ones are ${
          complete.length > 0 ? complete.join(", ") : "none"
        }`,
      );
    });
  }

  /**
   * Lists the complete checkpoints (those with a manifest), oldest first.
   * Their snapshots are not read, so a corrupt one is listed too.
   *
   * @returns Their ids and creation times, by ascending id.
   */
  async list(): Promise<CheckpointInfo[]> {
    return await this.#exclusive(() => this.#reader.list());
  }

  /**
   * The highest checkpoint id this store ever held or began to save:
   * complete, partial (a save that crashed before its manifest) or
   * corrupt, including those that retention (or a hand) deleted since.
   * Runtimes number their checkpoints above it, so that ids only grow
   * within a store whichever checkpoint a job restores, or when it starts
   * over; a save may still reuse the id of a partial checkpoint above
   * every complete one (a retry).
   *
   * @returns The id, or 0 if the store never held a checkpoint.
   */
  async highestId(): Promise<number> {
    return await this.#exclusive(async () =>
      this.#reader.highest(
        await this.#reader.index(),
        await this.#reader.pointer(),
      )
    );
  }

  #exclusive<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(task);
    this.#queue = run.catch(() => {});
    return run;
  }

  async #save(
    checkpoint: CompletedCheckpoint,
    snapshots: Readonly<Record<string, Encoded>>,
  ): Promise<void> {
    const { id, fingerprint, createdAt } = checkpoint;
    const reader = this.#reader;
    const index = await reader.index();
    const pointer = await reader.pointer();
    const complete = await reader.complete(reader.candidates(index, pointer));
    const newest = Math.max(...complete.keys());
    if (id <= newest) {
      throw new RangeError(
        `Cannot save checkpoint as 'checkpoint.id' must be greater than the newest complete checkpoint ${newest}: current value is ${id}; use an id above ${newest}`,
      );
    }
    const previous = index.get(id);
    if (previous !== undefined) {
      await this.#cleaner.drop(id, previous.subtaskIds);
    }

    const subtaskIds = Object.keys(snapshots);
    const entry: IndexEntry = { createdAt, subtaskIds };
    const highest = Math.max(id, await reader.highest(index, pointer));
    await this.#storage.atomic([
      { type: "put", key: indexKey(id), value: entry },
      { type: "put", key: HIGHEST, value: highest },
    ]);
    const ops: StorageOp[] = [];
    const parts: Record<string, number[]> = {};
    const written: Array<[Encoded, string, readonly [number, number]]> = [];
    for (const actorId of subtaskIds) {
      const snapshot = snapshots[actorId];
      ops.push({ type: "put", key: snapshotKey(id, actorId), value: snapshot });
      if (snapshot.parts.length === 0) continue;
      const refs: number[] = parts[actorId] = [];
      snapshot.parts.forEach((part, n) => {
        const name = this.#written.get(part);
        const at = name === undefined ? undefined : this.#stored.get(name);
        // Only a part of this subtask: refs name the writer by actor id.
        if (at !== undefined && name === partName(at[0], actorId, at[1])) {
          refs.push(at[0], at[1]);
          return;
        }
        ops.push({ type: "put", key: partKey(id, actorId, n), value: part });
        refs.push(id, n);
        written.push([part, partName(id, actorId, n), [id, n]]);
      });
    }
    await applyInBatches(this.#storage, ops);
    const manifest: Manifest = {
      id,
      fingerprint,
      createdAt,
      subtaskIds,
      ...(Object.keys(parts).length > 0 ? { parts } : {}),
    };
    await this.#storage.atomic([
      { type: "put", key: manifestKey(id), value: manifest },
      { type: "put", key: LATEST, value: id },
    ]);
    for (const [part, name, at] of written) {
      this.#written.set(part, name);
      this.#stored.set(name, at);
    }

    try {
      await this.#cleaner.cleanUp(id);
    } catch (error) {
      this.#log(
        `Checkpoint ${id} of job '${fingerprint.jobName}' is saved, but deleting older checkpoints failed, so they stay until the next save: ${error}`,
      );
    }
  }
}
