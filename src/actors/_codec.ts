// How weir's storages encode values, shared by MemoryStorage, KvStorage and
// CheckpointStore. A stored payload says which codec wrote it by its first
// byte:
//
//   0xFF  V8's structured-clone format (`node:v8` serialize): subtask
//         snapshots. One native pass, no text; keeps everything
//         `structuredClone` keeps (±Infinity, NaN, -0, undefined, bigint,
//         Map, Set, Date, RegExp, Error, typed arrays, shared references
//         and cycles).
//   0x78  the same, deflated in zlib's format (RFC 1950, whose header byte
//         is 0x78), with its checksum: a large snapshot that compresses
//         well, so that far fewer bytes go to storage.
//   "{"   superjson's `{"json": ...}` text in UTF-8: every other value, and
//         snapshots written before checkpoints used V8's format.
//
// UTF-8 text never starts with 0xFF, and superjson's never with 0x78 ("x").

import { deserialize, serialize } from "node:v8";
import { deflateSync, inflateSync } from "node:zlib";
import superjson from "superjson";
import type { CompletedCheckpoint } from "./checkpoint_store.ts";

const STRUCTURED = 0xff;
const DEFLATED = 0x78;
// Compression: of values from 4 KiB (incremental checkpoints store state in
// parts of that order), kept when it shrinks the value to 40% or less.
// Deflate at level 1 took about 3 ms per MB of input where
// bench/checkpoint_bench.ts was measured, and writing to a local KV file
// about 5.5 ms per MB, so a value that shrinks less is stored sooner as it
// is. Values from 256 KiB are judged by their first 32 KiB.
const COMPRESS_FROM = 4 * 1024;
const SAMPLE_FROM = 256 * 1024;
const SAMPLE_BYTES = 32 * 1024;
const WORTH = 0.4;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * A value already in its stored form: storages write its bytes as they are
 * and read them back with {@linkcode decodeStored}. The bytes are also a
 * copy: changing the value afterwards never changes what is stored.
 */
export class Encoded {
  /** The payload. */
  readonly bytes: Uint8Array;
  /** The superjson text of the payload, when it is text. */
  readonly text: string | undefined;
  /**
   * Arrays stored apart from the payload (see {@linkcode partsPlaceholder}):
   * the payload's placeholders index into them.
   */
  readonly parts: readonly Encoded[];

  /**
   * Wraps a payload.
   *
   * @param bytes The payload, in one of the formats above.
   * @param text Its superjson text, if it is text (saves decoding UTF-8).
   * @param parts The arrays its placeholders refer to.
   */
  constructor(
    bytes: Uint8Array,
    text?: string,
    parts: readonly Encoded[] = [],
  ) {
    this.bytes = bytes;
    this.text = text;
    this.parts = parts;
  }

  /** Decodes a fresh copy of the value, its placeholders filled in. */
  decode<V = unknown>(): V {
    const value = this.text === undefined
      ? decodeStored<V>(this.bytes)
      : superjson.parse<V>(this.text);
    if (this.parts.length === 0) return value;
    return fillParts(value, this.parts.map((part) => part.decode())) as V;
  }
}

// A snapshot keeps large, separately stored arrays out of its payload: in
// their place it holds `{ [PARTS]: [i, j, ...] }`, which stands for the
// concatenation of parts i, j, ... of its Encoded (or of its stored parts).
const PARTS = "weir:parts";

/**
 * The placeholder for the concatenation of parts `indices`.
 *
 * @param indices Indices into the snapshot's parts, in order.
 * @returns A small plain object to store in their place.
 */
export function partsPlaceholder(indices: readonly number[]): unknown {
  return { [PARTS]: indices };
}

/**
 * Replaces every placeholder in `value` (found in plain objects and arrays,
 * not inside the parts themselves) by the concatenation of its parts.
 *
 * @param value A decoded snapshot.
 * @param parts Its decoded parts, each an array.
 * @returns `value`, changed in place (or the concatenation, if `value` is a
 * placeholder).
 * @throws {RangeError} If a placeholder names a part that is not there or
 * is not an array.
 */
export function fillParts(value: unknown, parts: readonly unknown[]): unknown {
  if (typeof value !== "object" || value === null) return value;
  const top = placeholderIndices(value);
  if (top !== null) return concatParts(top, parts);
  // Iterative, so that deeply nested operator state cannot overflow the stack.
  const pending: object[] = [value];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const container = next as Record<string | number, unknown>;
    const keys: Iterable<string | number> = Array.isArray(container)
      ? container.keys()
      : Object.getPrototypeOf(container) === Object.prototype
      ? Object.keys(container)
      : [];
    for (const key of keys) {
      const item = container[key];
      if (typeof item !== "object" || item === null) continue;
      const indices = placeholderIndices(item);
      if (indices !== null) container[key] = concatParts(indices, parts);
      else pending.push(item);
    }
  }
  return value;
}

function concatParts(
  indices: readonly number[],
  parts: readonly unknown[],
): unknown[] {
  return indices.flatMap((i) => {
    const rows = partRows(parts[i]);
    if (rows === null) {
      throw new RangeError(
        `Cannot decode a snapshot as its part ${i} must be an array or a table: current value is ${typeof parts[
          i
        ]}`,
      );
    }
    return rows;
  });
}

// A part whose items are plain objects with the same fields is stored as a
// table: one column per field, and a column of numbers as a Float64Array,
// which V8 serialises as raw bytes (window slots: ids, starts, ends and
// often their contents are numbers; about twice as fast to encode).
const TABLE = "weir:table";

/**
 * A part in the form to encode it in: `rows` as a table when every row is
 * a plain object with the same fields in the same order, else `rows`.
 *
 * @param rows A group of operator state.
 * @returns The rows, or their table.
 */
export function partForm(rows: readonly unknown[]): unknown {
  if (rows.length < 2) return rows;
  const first = rows[0];
  if (!isPlainObject(first)) return rows;
  const fields = Object.keys(first);
  const columns: unknown[][] = fields.map(() => new Array(rows.length));
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r];
    if (!isPlainObject(row)) return rows;
    const keys = Object.keys(row);
    if (keys.length !== fields.length) return rows;
    for (let f = 0; f < fields.length; f++) {
      if (keys[f] !== fields[f]) return rows;
      columns[f][r] = (row as Record<string, unknown>)[fields[f]];
    }
  }
  return {
    [TABLE]: fields,
    columns: columns.map((column) =>
      column.every((v) => typeof v === "number")
        ? Float64Array.from(column as number[])
        : column
    ),
  };
}

/**
 * The rows of a stored part: the part itself if it is an array, the rows of
 * its table if it is one, else `null`.
 *
 * @param part A decoded part.
 * @returns Its rows, or `null` if it is neither.
 */
export function partRows(part: unknown): unknown[] | null {
  if (Array.isArray(part)) return part;
  if (!isPlainObject(part) || !Object.hasOwn(part, TABLE)) return null;
  const fields = (part as Record<string, unknown>)[TABLE];
  const columns = (part as { columns?: unknown }).columns;
  if (
    !Array.isArray(fields) || !Array.isArray(columns) ||
    columns.length !== fields.length || columns.length === 0
  ) return null;
  const length = (columns[0] as ArrayLike<unknown>).length;
  if (
    columns.some((c) =>
      !(Array.isArray(c) || c instanceof Float64Array) || c.length !== length
    )
  ) return null;
  const rows = new Array<Record<string, unknown>>(length);
  for (let r = 0; r < length; r++) {
    const row: Record<string, unknown> = {};
    for (let f = 0; f < fields.length; f++) row[fields[f]] = columns[f][r];
    rows[r] = row;
  }
  return rows;
}

function isPlainObject(value: unknown): value is object {
  return typeof value === "object" && value !== null &&
    Object.getPrototypeOf(value) === Object.prototype;
}

function placeholderIndices(value: object): number[] | null {
  if (!Object.hasOwn(value, PARTS)) return null;
  const indices = (value as Record<string, unknown>)[PARTS];
  return Array.isArray(indices) && Object.keys(value).length === 1
    ? indices
    : null;
}

/**
 * Encodes a value in V8's structured-clone format, as `structuredClone`
 * would copy it: class instances become plain objects.
 *
 * @param value The value.
 * @returns The encoded value.
 * @throws {Error} If the value holds a function or a symbol ("could not be
 * cloned").
 */
export function encodeStructured(value: unknown): Encoded {
  const buffer = serialize(value);
  const bytes = new Uint8Array(
    buffer.buffer,
    buffer.byteOffset,
    buffer.byteLength,
  );
  if (bytes.length < COMPRESS_FROM) return new Encoded(bytes);
  // A large value is sampled first, so that megabytes that do not compress
  // are not deflated in vain; a small one is deflated at once (each deflate
  // sets up zlib's state, which costs more than deflating a few KiB).
  const sampleFirst = bytes.length >= SAMPLE_FROM;
  if (sampleFirst) {
    const sample = deflateSync(bytes.subarray(0, SAMPLE_BYTES), { level: 1 });
    if (sample.length > SAMPLE_BYTES * WORTH) return new Encoded(bytes);
  }
  const deflated = deflateSync(bytes, { level: 1 });
  if (!sampleFirst && deflated.length > bytes.length * WORTH) {
    return new Encoded(bytes);
  }
  // Free the serialised copy now rather than at the next GC: megabytes of
  // external memory per checkpoint make V8 collect the whole heap early.
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength) {
    (bytes.buffer as ArrayBuffer).transfer(0);
  }
  return new Encoded(
    new Uint8Array(
      deflated.buffer,
      deflated.byteOffset,
      deflated.byteLength,
    ),
  );
}

/**
 * Encodes a value as superjson text.
 *
 * @param value The value.
 * @returns The encoded value, or `undefined` if superjson drops all of it
 * (a function or a symbol).
 * @throws What superjson throws.
 */
export function encodeSuperjson(value: unknown): Encoded | undefined {
  const text = superjson.stringify(value);
  // superjson drops what it cannot represent; at the top level that is all.
  if (!text.startsWith('{"json"')) return undefined;
  return new Encoded(encoder.encode(text), text);
}

/**
 * Decodes a stored payload into a fresh value, whichever codec wrote it.
 *
 * @param bytes The payload.
 * @returns The value.
 * @throws {Error} If the payload is malformed.
 */
export function decodeStored<V = unknown>(bytes: Uint8Array): V {
  if (bytes[0] === STRUCTURED) return deserialize(bytes) as V;
  if (bytes[0] === DEFLATED) return deserialize(inflateSync(bytes)) as V;
  return superjson.parse<V>(decoder.decode(bytes));
}

// The snapshots of the checkpoints made by encodedCheckpoint(), as encoded.
const snapshotsOf = new WeakMap<
  CompletedCheckpoint,
  Readonly<Record<string, Encoded>>
>();

/**
 * A completed checkpoint whose snapshots are already encoded (the runtime
 * encodes each when it is taken): {@linkcode CheckpointStore} writes them
 * as they are. Its `subtasks` are decoded on first read, once.
 *
 * @param meta The checkpoint's id, fingerprint and creation time.
 * @param snapshots Each subtask's encoded snapshot by actor id.
 * @returns The checkpoint.
 */
export function encodedCheckpoint(
  meta: Omit<CompletedCheckpoint, "subtasks">,
  snapshots: Readonly<Record<string, Encoded>>,
): CompletedCheckpoint {
  let decoded: Record<string, unknown> | undefined;
  const checkpoint = {
    id: meta.id,
    fingerprint: meta.fingerprint,
    createdAt: meta.createdAt,
  } as CompletedCheckpoint;
  Object.defineProperty(checkpoint, "subtasks", {
    enumerable: true,
    get: () => decoded ??= decodeSnapshots(snapshots),
  });
  snapshotsOf.set(checkpoint, snapshots);
  return checkpoint;
}

/**
 * The encoded snapshots of a checkpoint made by
 * {@linkcode encodedCheckpoint}, or `undefined` for any other.
 *
 * @param checkpoint The checkpoint.
 * @returns Each subtask's encoded snapshot by actor id.
 */
export function encodedSnapshots(
  checkpoint: CompletedCheckpoint,
): Readonly<Record<string, Encoded>> | undefined {
  return snapshotsOf.get(checkpoint);
}

/**
 * A checkpoint's snapshots as fresh values, for a restore that may change
 * them: decoded anew when encoded, otherwise the checkpoint's own.
 *
 * @param checkpoint The checkpoint.
 * @returns Each subtask's snapshot by actor id.
 */
export function snapshotsToUse(
  checkpoint: CompletedCheckpoint,
): Readonly<Record<string, unknown>> {
  const encoded = snapshotsOf.get(checkpoint);
  return encoded === undefined ? checkpoint.subtasks : decodeSnapshots(encoded);
}

function decodeSnapshots(
  snapshots: Readonly<Record<string, Encoded>>,
): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(snapshots).map(([id, snapshot]) => [id, snapshot.decode()]),
  );
}
