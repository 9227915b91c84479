/**
 * Values over Deno KV's value limit, split into parts: the layout a
 * storage keeps under its key prefix, and the functions that write and
 * read it.
 *
 * Layout under a storage's prefix (relative keys):
 *
 * - `["v", ...key]`: a value: tag 1 and the payload, or tag 2 and a
 *   manifest `{"v": version, "n": parts, "b": bytes}` (JSON).
 * - `["p", version, i]`: part i of a chunked value, at most
 *   {@linkcode PART_BYTES}; never rewritten, as each write takes a fresh
 *   random version.
 * - `["g", id]`: a marker: tag 3 and the `[version, parts]` list (JSON)
 *   whose parts may be unreferenced; a sweep deletes them.
 *
 * Existing databases hold this layout: it must not change.
 *
 * @module
 */

import type { PlainKeyPart } from "./key_encoding.ts";
import { KV_LIMITS } from "./limits.ts";

/** The largest part of a chunked value, in bytes. */
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

/** The encoded size of a part's relative key `["p", version, i]`. */
export const PART_KEY_BYTES: number = 3 + 2 + ID_LENGTH + 9;
/** The encoded size of a marker's relative key `["g", id]`. */
export const MARKER_KEY_BYTES: number = 3 + 2 + ID_LENGTH;
// A placeholder version of the real length, for sizes only.
const SIZING_VERSION = "x".repeat(ID_LENGTH);

/**
 * A fresh random id of 22 url-safe characters: a version or a marker.
 *
 * @returns The id.
 */
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

/**
 * Whether a payload of `payloadBytes` bytes is stored inline: with its tag
 * byte, within Deno KV's value limit.
 *
 * @param payloadBytes The encoded value's size.
 * @returns `true` if it is one value, `false` if it is chunked.
 */
export function fitsInline(payloadBytes: number): boolean {
  return payloadBytes + 1 <= KV_LIMITS.valueBytes;
}

/**
 * The manifest a chunked value of `payloadBytes` bytes has, with a
 * placeholder version: for sizing the commits that replace it.
 *
 * @param payloadBytes The encoded value's size.
 * @returns Its manifest.
 */
export function sizingManifest(payloadBytes: number): Manifest {
  return {
    version: SIZING_VERSION,
    parts: Math.ceil(payloadBytes / PART_BYTES),
    bytes: payloadBytes,
  };
}

/** A stored value as read back: inline bytes or a manifest. */
export type Stored =
  | { readonly inline: Uint8Array }
  | { readonly manifest: Manifest };

/**
 * The relative key of part `index` of `version`.
 *
 * @param version The value's version.
 * @param index The part's index, from 0.
 * @returns The key, relative to the storage's prefix.
 */
export function partKey(version: string, index: number): PlainKeyPart[] {
  return [PARTS, version, index];
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

/**
 * The stored form of a value that fits one Deno KV value: tag and payload.
 *
 * @param payload The encoded value.
 * @returns What to store under its value key.
 */
export function inlineValue(payload: Uint8Array): Uint8Array {
  return tagged(TAG_INLINE, payload);
}

/**
 * Splits a payload into parts under a fresh version.
 *
 * @param payload The encoded value.
 * @returns The version, the parts (views of `payload`) and the manifest to
 * store under the value key.
 */
export function chunkValue(
  payload: Uint8Array,
): { version: string; parts: Uint8Array[]; manifest: Uint8Array } {
  const version = newId();
  const count = Math.ceil(payload.length / PART_BYTES);
  const parts: Uint8Array[] = [];
  for (let i = 0; i < count; i++) {
    parts.push(payload.subarray(i * PART_BYTES, (i + 1) * PART_BYTES));
  }
  const manifest = taggedJson(TAG_MANIFEST, {
    v: version,
    n: count,
    b: payload.length,
  });
  return { version, parts, manifest };
}

/**
 * The stored form of a marker.
 *
 * @param list The `[version, parts]` pairs whose parts may be unreferenced.
 * @returns What to store under the marker key.
 */
export function markerValue(
  list: ReadonlyArray<readonly [string, number]>,
): Uint8Array {
  return taggedJson(TAG_MARKER, list);
}

/**
 * Reads what a storage stored under a value key.
 *
 * @param raw The stored value.
 * @param where The key, for the message.
 * @returns The inline payload or the manifest.
 * @throws {TypeError} If `raw` is in no format of this layout.
 */
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
 *
 * @param raw The stored value.
 * @returns Its manifest, or `null`.
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

/**
 * Reads the `[version, parts]` list of a marker.
 *
 * @param raw The stored marker.
 * @returns The list; empty if `raw` is not a marker.
 */
export function readMarker(raw: unknown): Array<[string, number]> {
  if (raw instanceof Uint8Array && raw[0] === TAG_MARKER) {
    return JSON.parse(decoder.decode(raw.subarray(1)));
  }
  return [];
}

/**
 * Reads the parts of one version and joins them.
 *
 * Cost: one `list` of the version's parts.
 *
 * @param kv The database.
 * @param prefix The storage's prefix.
 * @param manifest Where the parts are.
 * @returns The payload, or `null` if a part is missing or the parts do not
 * add up (a concurrent write replaced the value: read its key again).
 */
export async function readChunks(
  kv: Deno.Kv,
  prefix: readonly PlainKeyPart[],
  manifest: Manifest,
): Promise<Uint8Array | null> {
  const out = new Uint8Array(manifest.bytes);
  let next = 0;
  let offset = 0;
  const parts = kv.list<Uint8Array>({
    prefix: [...prefix, PARTS, manifest.version],
  });
  for await (const entry of parts) {
    const part = entry.value;
    if (
      entry.key.at(-1) !== next || offset + part.length > manifest.bytes
    ) return null;
    out.set(part, offset);
    offset += part.length;
    next++;
  }
  return next === manifest.parts && offset === manifest.bytes ? out : null;
}
