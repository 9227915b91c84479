// What a KvStorage knows about its keys from its own commits, so that a
// commit need not read first what it replaces (a round trip to KV that
// only finds the parts of a chunked value to delete with it): after a
// commit, each key it wrote holds an inline value or the manifest it
// wrote, and each key it deleted holds nothing. A caller that is the only
// writer of the prefix (an actor under its lease) may also name keys it
// knows hold nothing (a log entry past the last one written). Anything
// else is read as before; a commit whose outcome is unknown (it threw)
// forgets everything.

import { type Manifest, replacedManifest, VALUES } from "../../kv/mod.ts";
import type { CommitPlan } from "../../kv/mod.ts";
import type { ResolvedOp } from "../_resolve_ops.ts";

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
    const written = new Map<string, Uint8Array | undefined>();
    for (const m of plan.main) {
      if (m.key[0] === VALUES) {
        written.set(JSON.stringify(m.key.slice(1)), m.value);
      }
    }
    for (const op of ops) {
      // A deleted key is forgotten (read again if ever written again), so
      // that what is known stays as small as what is stored.
      if (op.bytes === undefined) {
        this.#known.delete(op.id);
        continue;
      }
      const raw = written.get(JSON.stringify(op.key));
      if (raw === undefined) this.#known.delete(op.id);
      else this.#known.set(op.id, replacedManifest(raw));
    }
  }

  /** Forgets everything: a commit's outcome is unknown. */
  forget(): void {
    this.#known.clear();
  }
}
