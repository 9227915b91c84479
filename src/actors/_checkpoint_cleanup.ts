// How a CheckpointStore deletes: the checkpoints retention drops, partial
// ones older than the newest, and the parts no kept checkpoint refers to;
// each in an order that a crash leaves findable by the next save.

import type { ActorStorage, StorageKey, StorageOp } from "./storage.ts";
import {
  BATCH,
  CHECKPOINTS,
  indexKey,
  keyBytes,
  manifestKey,
  nameOfPartKey,
  partKey,
  partName,
  PARTS,
  SHORT_KEY,
  SHORT_KEY_BATCH,
  snapshotKey,
} from "./_checkpoint_keys.ts";
import type { Manifest } from "./_checkpoint_checks.ts";
import type { CheckpointReader } from "./_checkpoint_reader.ts";

/** Applies ops in as few `storage.atomic()` batches as the key sizes allow. */
export async function applyInBatches(
  storage: ActorStorage,
  ops: readonly StorageOp[],
): Promise<void> {
  for (let i = 0; i < ops.length;) {
    const head = ops.slice(i, i + SHORT_KEY_BATCH);
    const size = head.every((op) => keyBytes(op.key) <= SHORT_KEY)
      ? head.length
      : Math.min(BATCH, head.length);
    await storage.atomic(ops.slice(i, i + size));
    i += size;
  }
}

/** What a {@linkcode CheckpointCleaner} works on. */
export interface CleanerContext {
  /** The store's storage. */
  readonly storage: ActorStorage;
  /** The store's reader of it. */
  readonly reader: CheckpointReader;
  /** How many complete checkpoints to keep. */
  readonly retain: number;
  /**
   * The parts the store wrote and still holds, by name: a dropped part is
   * forgotten here, so that no later save refers to it.
   */
  readonly stored: Map<string, readonly [number, number]>;
}

/** Deletes a CheckpointStore's old checkpoints; the store serialises calls. */
export class CheckpointCleaner {
  readonly #context: CleanerContext;

  constructor(context: CleanerContext) {
    this.#context = context;
  }

  /** Deletes what the retention drops, and partial checkpoints below `newest`. */
  async cleanUp(newest: number): Promise<void> {
    const { storage, reader, retain } = this.#context;
    const index = await reader.index();
    const manifests = await reader.complete([...index.keys()]);
    const complete = [...manifests.keys()].sort((a, b) => b - a);
    const kept = new Set(complete.slice(0, retain));
    const keep = await this.#referencedParts([...kept, newest]);
    for (const [id, entry] of index) {
      if (!kept.has(id) && id < newest) {
        await this.drop(id, entry.subtaskIds, keep, manifests.get(id));
      }
    }
    // Parts without an index entry (written by hand, or by a tool) are
    // found once they are the oldest keys: one small read per save.
    const oldestKept = Math.min(newest, ...kept);
    let dropped: unknown;
    for (;;) {
      const [first] = await storage.list([CHECKPOINTS], {
        limit: 1,
        keysOnly: true,
      });
      const id = first?.[0][1];
      if (typeof id !== "number" || id >= oldestKept || id === dropped) break;
      await this.drop(id, [], keep);
      dropped = id;
    }
  }

  /** The names of the parts the manifests of `ids` refer to. */
  async #referencedParts(ids: readonly number[]): Promise<Set<string>> {
    const names = new Set<string>();
    for (
      const manifest of (await this.#context.reader.complete(ids)).values()
    ) {
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
  async drop(
    id: number,
    subtaskIds: readonly string[],
    keep: ReadonlySet<string> = new Set(),
    manifest?: Manifest,
  ): Promise<void> {
    const { storage, stored } = this.#context;
    const del = (key: StorageKey): StorageOp => ({ type: "delete", key });
    const stale: StorageOp[] = [];
    for (const [actorId, refs] of Object.entries(manifest?.parts ?? {})) {
      for (let i = 0; i < refs.length; i += 2) {
        const name = partName(refs[i], actorId, refs[i + 1]);
        if (refs[i] === id || keep.has(name)) continue;
        stored.delete(name);
        stale.push(del(partKey(refs[i], actorId, refs[i + 1])));
      }
    }
    await applyInBatches(storage, [
      ...stale,
      del(manifestKey(id)),
      ...subtaskIds.map((actorId) => del(snapshotKey(id, actorId))),
    ]);
    const rest = await storage.list([CHECKPOINTS, id], { keysOnly: true });
    const parts = (await storage.list([PARTS, id], { keysOnly: true }))
      .filter(([key]) => !keep.has(nameOfPartKey(key)));
    for (const [key] of parts) stored.delete(nameOfPartKey(key));
    await applyInBatches(storage, [...rest, ...parts].map(([key]) => del(key)));
    await storage.delete(indexKey(id));
  }
}
