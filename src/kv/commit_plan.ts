/**
 * How an atomic batch of a storage becomes Deno KV commits, shared by
 * `MemoryStorage` and `KvStorage` so that both accept and reject exactly
 * the same batches. The stored layout is {@linkcode chunkValue}'s.
 *
 * A batch that fits one commit (values, new parts, deletes of replaced
 * parts) is one commit. Otherwise it is split safely: new parts are written
 * first, invisible to readers, under a marker that each later commit
 * checks (so a sweep that started meanwhile fences the writer); ONE commit
 * then switches every value key; replaced parts are deleted afterwards.
 * Readers see the whole batch or none of it; a crash leaves only
 * unreferenced parts, listed by a marker.
 *
 * @module
 */

import type { PlainKeyPart } from "./key_encoding.ts";
import { KV_LIMITS } from "./limits.ts";
import { CommitCost } from "./commit_cost.ts";
import { type CommitSizer, packBySize } from "./pack_commits.ts";
import {
  chunkValue,
  fitsInline,
  inlineValue,
  type Manifest,
  MARKER_KEY_BYTES,
  MARKERS,
  markerValue,
  newId,
  PART_KEY_BYTES,
  partKey,
  VALUES,
} from "./chunks.ts";

/** One mutation, with its key relative to the storage's prefix. */
export interface Mutation {
  /** The relative key. */
  readonly key: readonly PlainKeyPart[];
  /** Its encoded size in bytes. */
  readonly keyBytes: number;
  /** The bytes to set; absent for a delete. */
  readonly value?: Uint8Array;
}

/** One operation of a batch, checked: the last one per key. */
export interface PlanOp {
  /** The user's key, relative to the value subspace. */
  readonly key: readonly PlainKeyPart[];
  /** Its encoded size. */
  readonly keyBytes: number;
  /** An identity of the key, e.g. its {@linkcode orderedKey}. */
  readonly id: string;
  /** The payload of a put; absent for a delete. */
  readonly bytes?: Uint8Array;
}

/** The commits of one batch, in order. */
export interface CommitPlan {
  /**
   * Commits of new parts before the switch; the first sets the marker and
   * each later one checks it, so a sweep stops the staging at once.
   */
  readonly staged: Mutation[][];
  /** The one commit that makes the batch visible. */
  readonly main: Mutation[];
  /** Commits deleting replaced parts, then the marker. */
  readonly cleanup: Mutation[][];
  /** The marker that `main` must check, when there are staged commits. */
  readonly marker: readonly PlainKeyPart[] | null;
}

/** Options of {@linkcode planCommit}. */
export interface PlanInput {
  /** The checked operations, one per key. */
  readonly ops: readonly PlanOp[];
  /** The chunked values that the ops replace or delete, by op id. */
  readonly old: ReadonlyMap<string, Manifest>;
  /** The encoded size of the storage's prefix. */
  readonly prefixBytes: number;
  /**
   * The caller's own checks for the main commit (KvStorage only).
   * @default {{ count: 0, bytes: 0 }}
   */
  readonly checks?: { readonly count: number; readonly bytes: number };
}

function costOf(
  mutations: readonly Mutation[],
  prefixBytes: number,
  checkBytes: number,
): CommitCost {
  const cost = new CommitCost(checkBytes);
  for (const m of mutations) {
    cost.addSized(prefixBytes + m.keyBytes, m.value?.length ?? null);
  }
  return cost;
}

function pack(
  mutations: Mutation[],
  prefixBytes: number,
  checkBytes = 0,
): Mutation[][] {
  const sizer: CommitSizer<Mutation> = {
    keyBytes: (m) => prefixBytes + m.keyBytes,
    valueBytes: (m) => m.value?.length ?? null,
    checkBytes,
  };
  return packBySize(mutations, sizer);
}

/** The parts of `bytes` as mutations, and the manifest that points at them. */
function chunk(
  key: readonly PlainKeyPart[],
  keyBytes: number,
  bytes: Uint8Array,
  parts: Mutation[],
): { manifest: Mutation; version: string; count: number } {
  const chunked = chunkValue(bytes);
  chunked.parts.forEach((value, i) =>
    parts.push({
      key: partKey(chunked.version, i),
      keyBytes: PART_KEY_BYTES,
      value,
    })
  );
  return {
    manifest: { key, keyBytes, value: chunked.manifest },
    version: chunked.version,
    count: chunked.parts.length,
  };
}

function partDeletes(
  list: ReadonlyArray<readonly [string, number]>,
): Mutation[] {
  return list.flatMap(([version, n]) =>
    Array.from({ length: n }, (_, i) => ({
      key: partKey(version, i),
      keyBytes: PART_KEY_BYTES,
    }))
  );
}

/**
 * Plans the commits of one batch.
 *
 * @param input The operations, the values they replace, and the sizes.
 * @returns The commits, in order.
 * @throws {RangeError} If the main commit exceeds a limit of one commit.
 */
export function planCommit(input: PlanInput): CommitPlan {
  const { ops, old, prefixBytes } = input;
  const checks = input.checks ?? { count: 0, bytes: 0 };
  const visible: Mutation[] = [];
  const parts: Mutation[] = [];
  const fresh: Array<[string, number]> = [];
  const inline: number[] = [];
  for (const op of ops) {
    const key = [VALUES, ...op.key];
    const keyBytes = 3 + op.keyBytes;
    if (op.bytes === undefined) {
      visible.push({ key, keyBytes });
    } else if (fitsInline(op.bytes.length)) {
      inline.push(visible.length);
      visible.push({ key, keyBytes, value: inlineValue(op.bytes) });
    } else {
      const { manifest, version, count } = chunk(
        key,
        keyBytes,
        op.bytes,
        parts,
      );
      visible.push(manifest);
      fresh.push([version, count]);
    }
  }
  const garbage = [...old.values()].map((
    m,
  ): [string, number] => [m.version, m.parts]);
  const oldParts = partDeletes(garbage);

  const all = [...visible, ...parts, ...oldParts];
  if (
    costOf(all, prefixBytes, checks.bytes).fits() &&
    checks.count <= KV_LIMITS.checks
  ) {
    return { staged: [], main: all, cleanup: [], marker: null };
  }

  // Split: stage the largest inline values too while the switch is too big.
  const marker: PlainKeyPart[] = [MARKERS, newId()];
  const markerSet = (list: Array<[string, number]>): Mutation => ({
    key: marker,
    keyBytes: MARKER_KEY_BYTES,
    value: markerValue(list),
  });
  const markerDelete: Mutation = { key: marker, keyBytes: MARKER_KEY_BYTES };
  // The switch commit: every value key, then the marker becomes the list of
  // replaced parts (or goes, once the staged parts are referenced).
  const mainCommit = (): Mutation[] => {
    if (garbage.length > 0) return [...visible, markerSet(garbage)];
    return parts.length > 0 ? [...visible, markerDelete] : [...visible];
  };
  const mainCost = (): CommitCost =>
    costOf(
      mainCommit(),
      prefixBytes,
      checks.bytes + (parts.length > 0 ? prefixBytes + MARKER_KEY_BYTES : 0),
    );
  inline.sort((a, b) => visible[b].value!.length - visible[a].value!.length);
  let cost = mainCost();
  for (const index of inline) {
    if (cost.payload <= KV_LIMITS.mutationBytes) break;
    const m = visible[index];
    const { manifest, version, count } = chunk(
      m.key,
      m.keyBytes,
      m.value!.subarray(1),
      parts,
    );
    visible[index] = manifest;
    fresh.push([version, count]);
    cost = mainCost();
  }
  enforce(cost, ops.length, checks.count + (parts.length > 0 ? 1 : 0));

  return {
    staged: parts.length > 0
      ? pack(
        [markerSet(fresh), ...parts],
        prefixBytes,
        prefixBytes + MARKER_KEY_BYTES,
      )
      : [],
    main: mainCommit(),
    cleanup: garbage.length > 0
      ? pack([...oldParts, markerDelete], prefixBytes)
      : [],
    marker: parts.length > 0 ? marker : null,
  };
}

/**
 * The commits that delete the parts a marker lists, then the marker: the
 * sweep of a crashed writer's staged parts or of parts a batch replaced.
 *
 * @param list The marker's `[version, parts]` pairs.
 * @param marker The marker's relative key.
 * @param prefixBytes The encoded size of the storage's prefix.
 * @returns The commits, in order.
 */
export function planSweep(
  list: ReadonlyArray<readonly [string, number]>,
  marker: readonly PlainKeyPart[],
  prefixBytes: number,
): Mutation[][] {
  const deletes = partDeletes(list);
  deletes.push({ key: marker, keyBytes: MARKER_KEY_BYTES });
  return pack(deletes, prefixBytes);
}

/** Throws the RangeError of the first limit the main commit exceeds. */
function enforce(cost: CommitCost, operations: number, checks: number): void {
  const head =
    "Cannot commit the atomic batch as 'ops' must fit one Deno KV commit of at most";
  if (cost.mutations > KV_LIMITS.mutations) {
    throw new RangeError(
      `${head} ${KV_LIMITS.mutations} mutations: current value is ${cost.mutations} mutations (${operations} operations and ${
        cost.mutations - operations
      } for bookkeeping); split the batch`,
    );
  }
  if (cost.payload > KV_LIMITS.mutationBytes) {
    throw new RangeError(
      `${head} ${KV_LIMITS.mutationBytes} bytes (800 KiB) of keys and values: current value is ${cost.payload} bytes; use fewer or shorter keys`,
    );
  }
  if (cost.keys > KV_LIMITS.keyTotalBytes) {
    throw new RangeError(
      `${head} ${KV_LIMITS.keyTotalBytes} bytes (80 KiB) of written keys: current value is ${cost.keys} bytes; use fewer or shorter keys`,
    );
  }
  if (checks > KV_LIMITS.checks) {
    throw new RangeError(
      `${head} ${KV_LIMITS.checks} checks (the limit of KV Connect): current value is ${checks} checks`,
    );
  }
}
