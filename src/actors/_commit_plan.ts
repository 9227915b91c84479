// How an atomic batch becomes Deno KV commits, shared by MemoryStorage and
// KvStorage so that both accept and reject exactly the same batches.
//
// Layout under a storage's prefix (relative keys):
//   ["v", ...key]      a value: tag 1 + payload, or tag 2 + manifest; the
//                      payload is superjson UTF-8 or, for a snapshot,
//                      V8's structured-clone format (see _codec.ts)
//   ["p", version, i]  part i of a chunked value (never rewritten)
//   ["g", id]          a marker: tag 3 + the [version, parts] whose parts
//                      may be unreferenced; a sweep deletes them
//
// A batch that fits one commit (values, new parts, deletes of replaced
// parts) is one commit. Otherwise it is split safely: new parts are written
// first, invisible to readers, under a marker that each later commit
// checks (so a sweep that started meanwhile fences the writer); ONE commit
// then switches every value key; replaced parts are deleted afterwards.
// Readers see the whole batch or none of it; a crash leaves only
// unreferenced parts, listed by a marker.

import { Encoded, encodeSuperjson } from "./_codec.ts";
import type { StorageKey, StorageKeyPart } from "./storage.ts";
import { checkKey, type KeyCheck, orderedKey } from "./_storage_keys.ts";

/** Deno KV's limits on one commit, and weir's on checks (KV Connect's). */
export const LIMITS = {
  valueBytes: 65_536,
  mutations: 1000,
  mutationBytes: 819_200,
  keyTotalBytes: 81_920,
  checks: 10,
  getMany: 10,
} as const;

/** The largest part of a chunked value. */
export const PART_BYTES = 60 * 1024;
/** The subspace of values. */
export const VALUES = "v";
/** The subspace of the parts of chunked values. */
export const PARTS = "p";
/** The subspace of markers of possibly unreferenced parts. */
export const MARKERS = "g";

const TAG_INLINE = 1;
const TAG_MANIFEST = 2;
const TAG_MARKER = 3;
const ID_LENGTH = 22;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A placeholder version of the real length, for sizes only. */
export const SIZING_VERSION = "x".repeat(ID_LENGTH);

/** A fresh random id of {@linkcode ID_LENGTH} url-safe characters. */
export function newId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-")
    .replaceAll("/", "_").slice(0, ID_LENGTH);
}

/** Where a chunked value's parts are: `parts` keys under `version`. */
export interface Manifest {
  /** The random id that names the parts. */
  readonly version: string;
  /** How many parts. */
  readonly parts: number;
  /** The payload's length, all parts together. */
  readonly bytes: number;
}

/** One mutation, with its key relative to the storage's prefix. */
export interface Mutation {
  /** The relative key. */
  readonly key: readonly StorageKeyPart[];
  /** Its encoded size in bytes. */
  readonly keyBytes: number;
  /** The bytes to set; absent for a delete. */
  readonly value?: Uint8Array;
}

/** A checked operation: a put carries its serialised value. */
export interface ResolvedOp {
  /** The user's key. */
  readonly key: StorageKey;
  /** Its encoded size. */
  readonly keyBytes: number;
  /** `orderedKey(key)`: an identity and a sort key. */
  readonly id: string;
  /** The encoded value of a put. */
  readonly encoded?: Encoded;
  /** Its payload. */
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
  readonly marker: readonly StorageKeyPart[] | null;
}

/**
 * Serialises a value with superjson, or takes an {@linkcode Encoded} one as
 * it is; the message names `param`.
 */
export function encodeValue(
  value: unknown,
  action: string,
  param: string,
): { encoded: Encoded; bytes: Uint8Array } {
  if (value instanceof Encoded) return { encoded: value, bytes: value.bytes };
  const head = `Cannot ${action} as '${param}' must be`;
  if (value === undefined) {
    throw new TypeError(
      `${head} defined: current value is undefined; use delete() to remove a key`,
    );
  }
  let encoded: Encoded | undefined;
  try {
    encoded = encodeSuperjson(value);
  } catch (error) {
    throw new TypeError(`${head} superjson-serialisable: ${error}`);
  }
  if (encoded === undefined) {
    throw new TypeError(
      `${head} superjson-serialisable: current value is a ${typeof value}`,
    );
  }
  return { encoded, bytes: encoded.bytes };
}

/**
 * Checks a batch, serialises its puts and keeps the last op per key. Errors
 * name `ops[i].key`, or just `key` and `value` for a `single` put or delete.
 */
export function resolveOps(
  ops: unknown,
  action: string,
  keys: Omit<KeyCheck, "action" | "param">,
  single = false,
): ResolvedOp[] {
  if (!Array.isArray(ops)) {
    throw new TypeError(
      `Cannot ${action} as 'ops' must be an array of operations: current value is ${ops}`,
    );
  }
  const param = (i: number, field: string) =>
    single ? field : `ops[${i}].${field}`;
  const byId = new Map<string, ResolvedOp>();
  ops.forEach((op: unknown, i) => {
    const type = (op as { type?: unknown } | null)?.type;
    if (type !== "put" && type !== "delete") {
      throw new TypeError(
        `Cannot ${action} as '${
          param(i, "type")
        }' must be "put" or "delete": current value is ${
          typeof type === "string" ? JSON.stringify(type) : type
        }`,
      );
    }
    const checked = checkKey((op as { key: unknown }).key, {
      ...keys,
      action,
      param: param(i, "key"),
    });
    const id = orderedKey(checked.key);
    byId.delete(id); // a key written twice keeps its last operation only
    byId.set(id, {
      key: [...checked.key],
      keyBytes: checked.bytes,
      id,
      ...(type === "put"
        ? encodeValue(
          (op as { value: unknown }).value,
          action,
          param(i, "value"),
        )
        : {}),
    });
  });
  return [...byId.values()];
}

/** Prefixes `bytes` with a one-byte format tag. */
function tagged(tag: number, bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(bytes.length + 1);
  out[0] = tag;
  out.set(bytes, 1);
  return out;
}

function taggedJson(tag: number, data: unknown): Uint8Array {
  return tagged(tag, encoder.encode(JSON.stringify(data)));
}

/** A stored value as read back: inline bytes or a manifest. */
export type Stored =
  | { readonly inline: Uint8Array }
  | { readonly manifest: Manifest };

/** Reads what `planCommit` stored under a value key. */
export function readStored(raw: unknown, where: string): Stored {
  if (raw instanceof Uint8Array && raw[0] === TAG_INLINE) {
    return { inline: raw.subarray(1) };
  }
  if (raw instanceof Uint8Array && raw[0] === TAG_MANIFEST) {
    const { v, n, b } = JSON.parse(decoder.decode(raw.subarray(1)));
    return { manifest: { version: v, parts: n, bytes: b } };
  }
  throw new TypeError(
    `Cannot read ${where} as it was not written by weir's storage (unknown format)`,
  );
}

/**
 * The manifest of a value that a write replaces or deletes (its parts go
 * with it), or `null` when there are no parts to delete: an inline value,
 * or a value weir's storage did not write (set by hand or by another tool),
 * which the write then simply replaces.
 */
export function replacedManifest(raw: unknown): Manifest | null {
  if (!(raw instanceof Uint8Array) || raw[0] !== TAG_MANIFEST) return null;
  let manifest: { v?: unknown; n?: unknown; b?: unknown } | null = null;
  try {
    manifest = JSON.parse(decoder.decode(raw.subarray(1)));
  } catch {
    return null; // Not ours: no parts.
  }
  const { v, n, b } = manifest ?? {};
  return typeof v === "string" && v !== "" && Number.isSafeInteger(n) &&
      Number.isSafeInteger(b)
    ? { version: v, parts: n as number, bytes: b as number }
    : null;
}

/** Reads the `[version, parts]` list of a marker. */
export function readMarker(raw: unknown): Array<[string, number]> {
  if (raw instanceof Uint8Array && raw[0] === TAG_MARKER) {
    return JSON.parse(decoder.decode(raw.subarray(1)));
  }
  return [];
}

/** The key of part `index` of `version`. */
export function partKey(version: string, index: number): StorageKeyPart[] {
  return [PARTS, version, index];
}

const PART_KEY_BYTES = 3 + 2 + ID_LENGTH + 9;
const MARKER_KEY_BYTES = 3 + 2 + ID_LENGTH;

/** Counts one commit's mutations and bytes as Deno KV does (ext/kv/lib.rs). */
class Cost {
  mutations = 0;
  payload: number;
  keys = 0;
  readonly #prefixBytes: number;

  constructor(prefixBytes: number, checkBytes = 0) {
    this.#prefixBytes = prefixBytes;
    this.payload = checkBytes;
  }

  // Every key counts once in the payload; a set's key counts again, with
  // its value, and in the total of written keys.
  #deltas(m: Mutation): [payload: number, keys: number] {
    const size = this.#prefixBytes + m.keyBytes;
    return m.value ? [2 * size + m.value.length, size] : [size, 0];
  }

  add(m: Mutation): void {
    const [payload, keys] = this.#deltas(m);
    this.mutations++;
    this.payload += payload;
    this.keys += keys;
  }

  fits(): boolean {
    return this.mutations <= LIMITS.mutations &&
      this.payload <= LIMITS.mutationBytes && this.keys <= LIMITS.keyTotalBytes;
  }

  fitsWith(m: Mutation): boolean {
    const [payload, keys] = this.#deltas(m);
    return this.mutations + 1 <= LIMITS.mutations &&
      this.payload + payload <= LIMITS.mutationBytes &&
      this.keys + keys <= LIMITS.keyTotalBytes;
  }
}

/**
 * Splits mutations into as few commits as the limits allow, in order,
 * leaving `checkBytes` in each for the key of a check.
 */
function pack(
  mutations: Mutation[],
  prefixBytes: number,
  checkBytes = 0,
): Mutation[][] {
  const commits: Mutation[][] = [];
  let current: Mutation[] = [];
  let cost = new Cost(prefixBytes, checkBytes);
  for (const m of mutations) {
    if (current.length > 0 && !cost.fitsWith(m)) {
      commits.push(current);
      current = [];
      cost = new Cost(prefixBytes, checkBytes);
    }
    cost.add(m);
    current.push(m);
  }
  if (current.length > 0) commits.push(current);
  return commits;
}

/** The parts of `bytes` as mutations, and the manifest that points at them. */
function chunk(
  key: readonly StorageKeyPart[],
  keyBytes: number,
  bytes: Uint8Array,
  parts: Mutation[],
): { manifest: Mutation; version: string; count: number } {
  const version = newId();
  const count = Math.ceil(bytes.length / PART_BYTES);
  for (let i = 0; i < count; i++) {
    parts.push({
      key: partKey(version, i),
      keyBytes: PART_KEY_BYTES,
      value: bytes.subarray(i * PART_BYTES, (i + 1) * PART_BYTES),
    });
  }
  const value = taggedJson(TAG_MANIFEST, {
    v: version,
    n: count,
    b: bytes.length,
  });
  return { manifest: { key, keyBytes, value }, version, count };
}

/** Options of {@linkcode planCommit}. */
export interface PlanInput {
  /** The checked operations, one per key. */
  readonly ops: readonly ResolvedOp[];
  /** The chunked values that the ops replace or delete, by op id. */
  readonly old: ReadonlyMap<string, Manifest>;
  /** The encoded size of the storage's prefix. */
  readonly prefixBytes: number;
  /** The caller's own checks for the main commit (KvStorage only). */
  readonly checks?: { readonly count: number; readonly bytes: number };
}

/**
 * Plans the commits of one batch.
 *
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
    } else if (op.bytes.length + 1 <= LIMITS.valueBytes) {
      inline.push(visible.length);
      visible.push({ key, keyBytes, value: tagged(TAG_INLINE, op.bytes) });
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
  const oldParts: Mutation[] = garbage.flatMap(([version, n]) =>
    Array.from({ length: n }, (_, i) => ({
      key: partKey(version, i),
      keyBytes: PART_KEY_BYTES,
    }))
  );

  const single = new Cost(prefixBytes, checks.bytes);
  for (const m of [...visible, ...parts, ...oldParts]) single.add(m);
  if (single.fits() && checks.count <= LIMITS.checks) {
    return {
      staged: [],
      main: [...visible, ...parts, ...oldParts],
      cleanup: [],
      marker: null,
    };
  }

  // Split: stage the largest inline values too while the switch is too big.
  const marker: StorageKeyPart[] = [MARKERS, newId()];
  const markerSet = (list: Array<[string, number]>): Mutation => ({
    key: marker,
    keyBytes: MARKER_KEY_BYTES,
    value: taggedJson(TAG_MARKER, list),
  });
  const markerDelete: Mutation = { key: marker, keyBytes: MARKER_KEY_BYTES };
  // The switch commit: every value key, then the marker becomes the list of
  // replaced parts (or goes, once the staged parts are referenced).
  const mainCommit = (): Mutation[] => {
    if (garbage.length > 0) return [...visible, markerSet(garbage)];
    return parts.length > 0 ? [...visible, markerDelete] : [...visible];
  };
  const mainCost = (): Cost => {
    const staged = parts.length > 0;
    const cost = new Cost(
      prefixBytes,
      checks.bytes + (staged ? prefixBytes + MARKER_KEY_BYTES : 0),
    );
    for (const m of mainCommit()) cost.add(m);
    return cost;
  };
  inline.sort((a, b) => visible[b].value!.length - visible[a].value!.length);
  let cost = mainCost();
  for (const index of inline) {
    if (cost.payload <= LIMITS.mutationBytes) break;
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
 */
export function planSweep(
  list: ReadonlyArray<readonly [string, number]>,
  marker: readonly StorageKeyPart[],
  prefixBytes: number,
): Mutation[][] {
  const deletes: Mutation[] = list.flatMap(([version, n]) =>
    Array.from({ length: n }, (_, i) => ({
      key: partKey(version, i),
      keyBytes: PART_KEY_BYTES,
    }))
  );
  deletes.push({ key: marker, keyBytes: MARKER_KEY_BYTES });
  return pack(deletes, prefixBytes);
}

/** Throws the RangeError of the first limit the main commit exceeds. */
function enforce(cost: Cost, operations: number, checks: number): void {
  const head =
    "Cannot commit the atomic batch as 'ops' must fit one Deno KV commit of at most";
  if (cost.mutations > LIMITS.mutations) {
    throw new RangeError(
      `${head} ${LIMITS.mutations} mutations: current value is ${cost.mutations} mutations (${operations} operations and ${
        cost.mutations - operations
      } for bookkeeping); split the batch`,
    );
  }
  if (cost.payload > LIMITS.mutationBytes) {
    throw new RangeError(
      `${head} ${LIMITS.mutationBytes} bytes (800 KiB) of keys and values: current value is ${cost.payload} bytes; use fewer or shorter keys`,
    );
  }
  if (cost.keys > LIMITS.keyTotalBytes) {
    throw new RangeError(
      `${head} ${LIMITS.keyTotalBytes} bytes (80 KiB) of written keys: current value is ${cost.keys} bytes; use fewer or shorter keys`,
    );
  }
  if (checks > LIMITS.checks) {
    throw new RangeError(
      `${head} ${LIMITS.checks} checks (the limit of KV Connect): current value is ${checks} checks`,
    );
  }
}
