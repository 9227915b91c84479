// How weir's storages encode values, shared by MemoryStorage, KvStorage and
// CheckpointStore (snapshot parts: _snapshot_parts.ts). A stored payload says which codec wrote it by its first
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
import { fillParts } from "./_snapshot_parts.ts";

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
   * Arrays stored apart from the payload (see `partsPlaceholder`):
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
