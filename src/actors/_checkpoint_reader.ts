// How a CheckpointStore reads its storage: the index, the highest id, the
// complete checkpoints' manifests, and one checkpoint whole (snapshots and
// parts), telling a corrupt checkpoint from a storage outage.

import type { ActorStorage, StorageKey } from "./storage.ts";
import type { CheckpointInfo, CompletedCheckpoint } from "./checkpoint.ts";
import { fillParts, partRows } from "./_snapshot_parts.ts";
import {
  type JobFingerprint,
  requireMatchingFingerprint,
} from "../runtime/fingerprint.ts";
import {
  HIGHEST,
  INDEX,
  LATEST,
  manifestKey,
  partKey,
  snapshotKey,
} from "./_checkpoint_keys.ts";
import { type Manifest, parseManifest } from "./_checkpoint_checks.ts";

/** An index entry: written before a save writes anything else. */
export interface IndexEntry {
  /** When the checkpoint was taken. */
  readonly createdAt: number;
  /** Whose snapshots the save writes. */
  readonly subtaskIds: readonly string[];
}

/** A checkpoint read back whole, or what is wrong with it. */
export type ReadResult =
  | { readonly checkpoint: CompletedCheckpoint }
  | { readonly problem: string; readonly partial: boolean };

/** Reads a CheckpointStore's storage; the store serialises the calls. */
export class CheckpointReader {
  readonly #storage: ActorStorage;

  constructor(storage: ActorStorage) {
    this.#storage = storage;
  }

  /** The `latest` pointer, as stored. */
  pointer(): Promise<unknown> {
    return this.#storage.get(LATEST);
  }

  /** The index entries by id; a malformed one counts with no subtask ids. */
  async index(): Promise<Map<number, IndexEntry>> {
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
  async highest(
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
  candidates(index: Map<number, IndexEntry>, pointer: unknown): number[] {
    const ids = new Set(index.keys());
    if (typeof pointer === "number") ids.add(pointer);
    return [...ids].sort((a, b) => b - a);
  }

  /**
   * The well-formed manifests among `ids`, by id. One that cannot be read
   * while the storage works counts as absent (corrupt); a storage outage
   * throws, so that a clean-up never deletes what it merely failed to read.
   */
  async complete(ids: readonly number[]): Promise<Map<number, Manifest>> {
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

  /** The complete checkpoints, by ascending id. */
  async list(): Promise<CheckpointInfo[]> {
    const pointer = await this.pointer();
    const ids = this.candidates(await this.index(), pointer);
    const complete = await this.complete(ids);
    return [...complete.values()].sort((a, b) => a.id - b.id).map((m) => ({
      id: m.id,
      createdAt: m.createdAt,
    }));
  }

  /** Reads checkpoint `id` whole, or says what is wrong with it. */
  async read(id: number, fingerprint: JobFingerprint): Promise<ReadResult> {
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
