/**
 * {@linkcode CheckpointStore}: a job's completed checkpoints in its
 * {@linkcode ActorStorage}, each made visible by one atomic commit, read back
 * only when whole and only by a job with the same fingerprint.
 *
 * @module
 */

import type { ActorStorage, StorageKey, StorageOp } from "./storage.ts";
import {
  type Encoded,
  encodedSnapshots,
  fillParts,
  partRows,
} from "./_codec.ts";
import {
  type JobFingerprint,
  requireMatchingFingerprint,
} from "../runtime/fingerprint.ts";
import { describeValue, requirePositiveInteger } from "../time/_validate.ts";
import {
  type UnreadableCheckpoint,
  UnreadableCheckpointsError,
} from "./unreadable_checkpoints_error.ts";
import {
  BATCH,
  CHECKPOINTS,
  HIGHEST,
  INDEX,
  indexKey,
  keyBytes,
  LATEST,
  manifestKey,
  nameOfPartKey,
  partKey,
  partName,
  PARTS,
  SHORT_KEY,
  SHORT_KEY_BATCH,
  snapshotKey,
} from "./_checkpoint_keys.ts";
import {
  checkCheckpoint,
  checkFingerprint,
  encodeSnapshots,
  type Manifest,
  parseManifest,
} from "./_checkpoint_checks.ts";

/** A consistent cut of a job: every subtask's snapshot, with the job's fingerprint. */
export interface CompletedCheckpoint {
  /** The checkpoint id: a positive safe integer, increasing per checkpoint. */
  readonly id: number;
  /** The fingerprint of the job that took it. */
  readonly fingerprint: JobFingerprint;
  /** When it was taken, in milliseconds since the epoch (from the job's clock). */
  readonly createdAt: number;
  /**
   * Each subtask's snapshot by actor id (`job/operator/subtask`): data that
   * `structuredClone` copies (`±Infinity`, `Map`, `Set`, `Date` and shared
   * references survive; class instances come back as plain objects). A
   * snapshot may be several MB; it is stored in V8's structured-clone
   * format, deflated when large and compressible.
   */
  readonly subtasks: Readonly<Record<string, unknown>>;
}

/** One entry of {@linkcode CheckpointStore.list}. */
export interface CheckpointInfo {
  /** The checkpoint id. */
  readonly id: number;
  /** When it was taken, in milliseconds since the epoch. */
  readonly createdAt: number;
}

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

interface IndexEntry {
  readonly createdAt: number;
  readonly subtaskIds: readonly string[];
}

/** A checkpoint read back whole, or what is wrong with it. */
type ReadResult =
  | { readonly checkpoint: CompletedCheckpoint }
  | { readonly problem: string; readonly partial: boolean };

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
  readonly #retain: number;
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
    this.#storage = storage;
    this.#retain = options.retain === undefined
      ? 3
      : requirePositiveInteger(options.retain, {
        action,
        param: "options.retain",
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
      const pointer = await this.#storage.get(LATEST);
      const ids = this.#candidates(await this.#index(), pointer);
      const skipped: UnreadableCheckpoint[] = [];
      for (const id of ids) {
        const result = await this.#read(id, fingerprint);
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
      const result = await this.#read(id, fingerprint);
      if ("checkpoint" in result) return result.checkpoint;
      const complete = (await this.#list()).map((info) => info.id);
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
    return await this.#exclusive(() => this.#list());
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
      this.#highest(await this.#index(), await this.#storage.get(LATEST))
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
    const index = await this.#index();
    const pointer = await this.#storage.get(LATEST);
    const complete = await this.#complete(this.#candidates(index, pointer));
    const newest = Math.max(...complete.keys());
    if (id <= newest) {
      throw new RangeError(
        `Cannot save checkpoint as 'checkpoint.id' must be greater than the newest complete checkpoint ${newest}: current value is ${id}; use an id above ${newest}`,
      );
    }
    const previous = index.get(id);
    if (previous !== undefined) await this.#drop(id, previous.subtaskIds);

    const subtaskIds = Object.keys(snapshots);
    const entry: IndexEntry = { createdAt, subtaskIds };
    const highest = Math.max(id, await this.#highest(index, pointer));
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
    await this.#apply(ops);
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
      await this.#cleanUp(id);
    } catch (error) {
      this.#log(
        `Checkpoint ${id} of job '${fingerprint.jobName}' is saved, but deleting older checkpoints failed, so they stay until the next save: ${error}`,
      );
    }
  }

  /** Deletes what the retention drops, and partial checkpoints below `newest`. */
  async #cleanUp(newest: number): Promise<void> {
    const index = await this.#index();
    const manifests = await this.#complete([...index.keys()]);
    const complete = [...manifests.keys()].sort((a, b) => b - a);
    const kept = new Set(complete.slice(0, this.#retain));
    const keep = await this.#referencedParts([...kept, newest]);
    for (const [id, entry] of index) {
      if (!kept.has(id) && id < newest) {
        await this.#drop(id, entry.subtaskIds, keep, manifests.get(id));
      }
    }
    // Parts without an index entry (written by hand, or by a tool) are
    // found once they are the oldest keys: one small read per save.
    const oldestKept = Math.min(newest, ...kept);
    let dropped: unknown;
    for (;;) {
      const [first] = await this.#storage.list([CHECKPOINTS], {
        limit: 1,
        keysOnly: true,
      });
      const id = first?.[0][1];
      if (typeof id !== "number" || id >= oldestKept || id === dropped) break;
      await this.#drop(id, [], keep);
      dropped = id;
    }
  }

  /** The names of the parts the manifests of `ids` refer to. */
  async #referencedParts(ids: readonly number[]): Promise<Set<string>> {
    const names = new Set<string>();
    for (const manifest of (await this.#complete(ids)).values()) {
      for (const [actorId, refs] of Object.entries(manifest.parts ?? {})) {
        for (let i = 0; i < refs.length; i += 2) {
          names.add(partName(refs[i], actorId, refs[i + 1]));
        }
      }
    }
    return names;
  }

  /**
   * Deletes a checkpoint: the parts of older checkpoints that its
   * `manifest` refers to and `keep` does not (their own checkpoint's keys
   * may be gone already, and only this manifest still says where they are),
   * in the same commits as its manifest, so that it is partial (never read)
   * once they are gone; then its snapshots, any other key under it, and its
   * own parts except those in `keep` (later checkpoints refer to them); its
   * index entry last, so that a crash leaves it findable.
   */
  async #drop(
    id: number,
    subtaskIds: readonly string[],
    keep: ReadonlySet<string> = new Set(),
    manifest?: Manifest,
  ): Promise<void> {
    const del = (key: StorageKey): StorageOp => ({ type: "delete", key });
    const stale: StorageOp[] = [];
    for (const [actorId, refs] of Object.entries(manifest?.parts ?? {})) {
      for (let i = 0; i < refs.length; i += 2) {
        const name = partName(refs[i], actorId, refs[i + 1]);
        if (refs[i] === id || keep.has(name)) continue;
        this.#stored.delete(name);
        stale.push(del(partKey(refs[i], actorId, refs[i + 1])));
      }
    }
    await this.#apply([
      ...stale,
      del(manifestKey(id)),
      ...subtaskIds.map((actorId) => del(snapshotKey(id, actorId))),
    ]);
    const rest = await this.#storage.list([CHECKPOINTS, id], {
      keysOnly: true,
    });
    const parts = (await this.#storage.list([PARTS, id], { keysOnly: true }))
      .filter(([key]) => !keep.has(nameOfPartKey(key)));
    for (const [key] of parts) this.#stored.delete(nameOfPartKey(key));
    await this.#apply([...rest, ...parts].map(([key]) => del(key)));
    await this.#storage.delete(indexKey(id));
  }

  async #apply(ops: readonly StorageOp[]): Promise<void> {
    for (let i = 0; i < ops.length;) {
      const head = ops.slice(i, i + SHORT_KEY_BATCH);
      const size = head.every((op) => keyBytes(op.key) <= SHORT_KEY)
        ? head.length
        : Math.min(BATCH, head.length);
      await this.#storage.atomic(ops.slice(i, i + size));
      i += size;
    }
  }

  /** The index entries by id; a malformed one counts with no subtask ids. */
  async #index(): Promise<Map<number, IndexEntry>> {
    const index = new Map<number, IndexEntry>();
    for (const [key, value] of await this.#storage.list([INDEX])) {
      if (key.length !== 2 || typeof key[1] !== "number") continue;
      const entry = value as Partial<IndexEntry> | null;
      index.set(key[1], {
        createdAt: Number(entry?.createdAt),
        subtaskIds: Array.isArray(entry?.subtaskIds)
          ? entry.subtaskIds.filter((s) => typeof s === "string")
          : [],
      });
    }
    return index;
  }

  /**
   * The highest id: the recorded one, or an indexed id or the pointer if
   * higher (stores written before the record existed). A record that
   * cannot be read while the storage works counts as absent, and the next
   * save writes it again.
   */
  async #highest(
    index: Map<number, IndexEntry>,
    pointer: unknown,
  ): Promise<number> {
    let recorded: unknown;
    try {
      recorded = await this.#storage.get(HIGHEST);
    } catch (error) {
      await this.#probe(error);
    }
    return Math.max(
      0,
      ...[recorded, pointer, ...index.keys()].filter((id): id is number =>
        Number.isSafeInteger(id)
      ),
    );
  }

  /** The ids to look at, newest first: the indexed ones and the pointer. */
  #candidates(index: Map<number, IndexEntry>, pointer: unknown): number[] {
    const ids = new Set(index.keys());
    if (typeof pointer === "number") ids.add(pointer);
    return [...ids].sort((a, b) => b - a);
  }

  /**
   * The well-formed manifests among `ids`, by id. One that cannot be read
   * while the storage works counts as absent (corrupt); a storage outage
   * throws, so that a clean-up never deletes what it merely failed to read.
   */
  async #complete(ids: readonly number[]): Promise<Map<number, Manifest>> {
    const out = new Map<number, Manifest>();
    await Promise.all(ids.map(async (id) => {
      let raw: unknown;
      try {
        raw = await this.#storage.get(manifestKey(id));
      } catch (error) {
        await this.#probe(error);
      }
      const manifest = raw == null ? null : parseManifest(raw, id);
      if (typeof manifest === "object" && manifest !== null) {
        out.set(id, manifest);
      }
    }));
    return out;
  }

  async #list(): Promise<CheckpointInfo[]> {
    const pointer = await this.#storage.get(LATEST);
    const ids = this.#candidates(await this.#index(), pointer);
    const complete = await this.#complete(ids);
    return [...complete.values()].sort((a, b) => a.id - b.id).map((m) => ({
      id: m.id,
      createdAt: m.createdAt,
    }));
  }

  /** Reads checkpoint `id` whole, or says what is wrong with it. */
  async #read(id: number, fingerprint: JobFingerprint): Promise<ReadResult> {
    let raw: unknown;
    try {
      raw = await this.#storage.get(manifestKey(id));
    } catch (error) {
      await this.#probe(error);
      return {
        problem: `its manifest cannot be read (${error})`,
        partial: false,
      };
    }
    if (raw === undefined) {
      return {
        problem: "it has no manifest (it was never completed, or was deleted)",
        partial: true,
      };
    }
    const manifest = parseManifest(raw, id);
    if (typeof manifest === "string") {
      return {
        problem: `its manifest is malformed: ${manifest}`,
        partial: false,
      };
    }
    requireMatchingFingerprint(fingerprint, manifest.fingerprint, id);

    const keys = manifest.subtaskIds.map((actorId) => snapshotKey(id, actorId));
    let values: unknown[];
    try {
      values = await this.#storage.getMany(keys);
    } catch (error) {
      await this.#probe(error);
      return { problem: await this.#unreadable(keys, error), partial: false };
    }
    const missing = manifest.subtaskIds.filter((_, i) =>
      values[i] === undefined
    );
    if (missing.length > 0) {
      const more = missing.length > 1
        ? ` (and ${missing.length - 1} more)`
        : "";
      return {
        problem: `the snapshot of subtask '${missing[0]}' is missing${more}`,
        partial: false,
      };
    }
    const subtasks = Object.fromEntries(
      manifest.subtaskIds.map((actorId, i) => [actorId, values[i]]),
    );
    for (const [actorId, refs] of Object.entries(manifest.parts ?? {})) {
      const problem = await this.#fillParts(subtasks, actorId, refs);
      if (problem !== null) return { problem, partial: false };
    }
    return {
      checkpoint: {
        id,
        fingerprint: manifest.fingerprint,
        createdAt: manifest.createdAt,
        subtasks,
      },
    };
  }

  /** Reads the parts of one subtask's snapshot into it, or says what is wrong. */
  async #fillParts(
    subtasks: Record<string, unknown>,
    actorId: string,
    refs: readonly number[],
  ): Promise<string | null> {
    const keys: StorageKey[] = [];
    for (let i = 0; i < refs.length; i += 2) {
      keys.push(partKey(refs[i], actorId, refs[i + 1]));
    }
    let parts: unknown[];
    try {
      parts = await this.#storage.getMany(keys);
    } catch (error) {
      await this.#probe(error);
      return `the parts of subtask '${actorId}' cannot be read (${error})`;
    }
    const rows = parts.map(partRows);
    const missing = rows.indexOf(null);
    if (missing >= 0) {
      return `part ${refs[2 * missing + 1]} of checkpoint ${
        refs[2 * missing]
      } of subtask '${actorId}' is ${
        parts[missing] === undefined ? "missing" : "not an array or a table"
      }`;
    }
    try {
      subtasks[actorId] = fillParts(subtasks[actorId], rows);
    } catch (error) {
      return `the snapshot of subtask '${actorId}' cannot take its parts (${error})`;
    }
    return null;
  }

  /**
   * Rethrows `error` if the storage itself fails (a healthy key cannot be
   * read either): that is an outage, not a corrupt checkpoint, and must not
   * make a job fall back or start fresh.
   */
  async #probe(error: unknown): Promise<void> {
    try {
      await this.#storage.get(LATEST);
    } catch {
      throw error;
    }
  }

  /** Names the first snapshot among `keys` that cannot be read. */
  async #unreadable(
    keys: readonly StorageKey[],
    error: unknown,
  ): Promise<string> {
    for (const key of keys) {
      try {
        await this.#storage.get(key);
      } catch (cause) {
        return `the snapshot of subtask '${key[3]}' cannot be read (${cause})`;
      }
    }
    return `its snapshots cannot be read (${error})`;
  }
}
