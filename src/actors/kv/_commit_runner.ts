// Runs a storage's commit plan (src/kv/commit_plan.ts) against Deno KV:
// the staged parts under their marker, the one switch commit, the clean-up
// of replaced parts; and the sweep of markers a crashed writer left. Used
// by KvStorage, which serialises the calls per prefix.

import {
  AtomicConflictError,
  type CommitPlan,
  MARKERS,
  type Mutation,
  type PlainKeyPart,
  planSweep,
  readMarker,
} from "../../kv/mod.ts";
import { describeKey } from "../_storage_keys.ts";

/** A storage's place in Deno KV: the database and its key prefix. */
export interface CommitTarget {
  /** The database. */
  readonly kv: Deno.Kv;
  /** The storage's prefix. */
  readonly prefix: readonly PlainKeyPart[];
  /** Its encoded size. */
  readonly prefixBytes: number;
}

function full(
  target: CommitTarget,
  relative: readonly PlainKeyPart[],
): Deno.KvKey {
  return [...target.prefix, ...relative];
}

/**
 * Commits one set of mutations with `checks`.
 *
 * @throws {AtomicConflictError} If a check failed.
 */
async function writeMutations(
  target: CommitTarget,
  mutations: readonly Mutation[],
  checks: readonly Deno.AtomicCheck[],
  what: string,
): Promise<Deno.KvCommitResult> {
  const op = target.kv.atomic();
  for (const check of checks) op.check(check);
  for (const m of mutations) {
    if (m.value === undefined) op.delete(full(target, m.key));
    else op.set(full(target, m.key), m.value);
  }
  const result = await op.commit();
  if (!result.ok) {
    throw new AtomicConflictError(
      `Cannot ${what} the atomic batch to KvStorage ${
        describeKey(target.prefix)
      } as a check failed: an entry changed since it was read (a caller's check such as a lease, or another instance swept this prefix); nothing of the batch is visible`,
    );
  }
  return result;
}

/**
 * Runs a plan: staged commits (each after the first fenced by the marker),
 * the switch with the caller's `checks`, then the clean-up. If staging or
 * the switch is fenced or refused, the staged parts are deleted at once.
 *
 * @throws {AtomicConflictError} If a check failed; nothing is visible.
 */
export async function runPlan(
  target: CommitTarget,
  plan: CommitPlan,
  checks: readonly Deno.AtomicCheck[],
): Promise<void> {
  const marker = plan.marker === null ? null : full(target, plan.marker);
  let stamp: string | null = null;
  try {
    for (const commit of plan.staged) {
      const fence: Deno.AtomicCheck[] = stamp === null
        ? []
        : [{ key: marker!, versionstamp: stamp }];
      const result = await writeMutations(
        target,
        commit,
        fence,
        "stage parts of",
      );
      stamp ??= result.versionstamp;
    }
    const fence: Deno.AtomicCheck[] = marker === null
      ? []
      : [{ key: marker, versionstamp: stamp }];
    await writeMutations(target, plan.main, [...checks, ...fence], "commit");
  } catch (error) {
    // Fenced or refused: nothing is visible, and the staged parts are
    // ours alone, so delete them now rather than at the next sweep.
    if (error instanceof AtomicConflictError && marker !== null) {
      const list = readMarker(plan.staged[0][0].value);
      const commits = planSweep(list, plan.marker!, target.prefixBytes);
      for (const commit of commits) {
        await writeMutations(target, commit, [], "discard");
      }
    }
    throw error;
  }
  for (const commit of plan.cleanup) {
    await writeMutations(target, commit, [], "delete replaced parts of");
  }
}

/**
 * Deletes the parts that the markers under the prefix list, then the
 * markers.
 *
 * @returns How many markers were swept.
 */
export async function sweepMarkers(target: CommitTarget): Promise<number> {
  let swept = 0;
  for await (
    const entry of target.kv.list({ prefix: full(target, [MARKERS]) })
  ) {
    // Rewriting the marker first fences a writer still staging under it:
    // its switch commit checks the marker's versionstamp.
    const touched = await target.kv.atomic().check(entry).set(
      entry.key,
      entry.value,
    ).commit();
    if (!touched.ok) continue; // switched or swept meanwhile
    const marker = entry.key.slice(target.prefix.length) as PlainKeyPart[];
    const commits = planSweep(
      readMarker(entry.value),
      marker,
      target.prefixBytes,
    );
    for (const commit of commits) {
      await writeMutations(target, commit, [], "sweep");
    }
    swept++;
  }
  return swept;
}
