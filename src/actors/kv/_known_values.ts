// What a KvStorage knows about its keys from its own commits, so that a
// commit need not read first what it replaces (a round trip to KV that
// only finds the parts of a chunked value to delete with it): after a
// commit, each key it wrote holds an inline value or the manifest it
// wrote, and each key it deleted holds nothing. A caller that is the only
// writer of the prefix (an actor under its lease) may also name keys it
// knows hold nothing (a log entry past the last one written). Anything
// else is read as before; a commit whose outcome is unknown (it threw)
// forgets everything.

import {
  KV_LIMITS,
  type Manifest,
  orderedKey,
  replacedManifest,
  VALUES,
} from "../../kv/mod.ts";
import type { CommitPlan } from "../../kv/mod.ts";
import type { ResolvedOp } from "../_resolve_ops.ts";
import type { CommitTarget } from "./_commit_runner.ts";

/**
 * The manifests of the chunked values that `ops` replace or delete, as
 * read now (one consistent `getMany` per 10 keys). A value a KvStorage
 * did not write (set by hand) has none: it is replaced or deleted like an
 * inline one, so a job can always overwrite or clean up a corrupt entry.
 */
export async function readReplaced(
  target: CommitTarget,
  ops: readonly ResolvedOp[],
): Promise<Map<string, Manifest>> {
  const old = new Map<string, Manifest>();
  const reads: Promise<void>[] = [];
  for (let i = 0; i < ops.length; i += KV_LIMITS.getMany) {
    const group = ops.slice(i, i + KV_LIMITS.getMany);
    const keys = group.map((op) => [...target.prefix, VALUES, ...op.key]);
    reads.push(
      target.kv.getMany(keys).then((entries) =>
        entries.forEach((entry, j) => {
          const manifest = replacedManifest(entry.value);
          if (manifest !== null) old.set(group[j].id, manifest);
        })
      ),
    );
  }
  await Promise.all(reads);
  return old;
}

/** The stored form of keys a storage wrote or deleted itself. */
export class KnownValues {
  // By op id: the manifest of a chunked value, or null (inline, or none).
  readonly #known = new Map<string, Manifest | null>();

  /**
   * The ops whose replaced value must be read, and the manifests of those
   * known to replace a chunked value.
   *
   * @param ops The commit's ops.
   * @param absent Ids of keys the caller knows hold nothing.
   */
  split(
    ops: readonly ResolvedOp[],
    absent: ReadonlySet<string>,
  ): { unknown: ResolvedOp[]; old: Map<string, Manifest> } {
    const unknown: ResolvedOp[] = [];
    const old = new Map<string, Manifest>();
    for (const op of ops) {
      if (absent.has(op.id)) continue;
      const known = this.#known.get(op.id);
      if (known === undefined) unknown.push(op);
      else if (known !== null) old.set(op.id, known);
    }
    return { unknown, old };
  }

  /** Records what a committed plan left at the keys of `ops`. */
  committed(ops: readonly ResolvedOp[], plan: CommitPlan): void {
    // By op id, i.e. `orderedKey`: Deno KV keeps 0 and -0 apart, and
    // Infinity and -Infinity (JSON would merge them).
    const written = new Map<string, Uint8Array | undefined>();
    for (const m of plan.main) {
      if (m.key[0] === VALUES) written.set(orderedKey(m.key.slice(1)), m.value);
    }
    for (const op of ops) {
      // A deleted key is forgotten (read again if ever written again), so
      // that what is known stays as small as what is stored.
      if (op.bytes === undefined) {
        this.#known.delete(op.id);
        continue;
      }
      const raw = written.get(op.id);
      if (raw === undefined) this.#known.delete(op.id);
      else this.#known.set(op.id, replacedManifest(raw));
    }
  }

  /** Forgets everything: a commit's outcome is unknown. */
  forget(): void {
    this.#known.clear();
  }
}
