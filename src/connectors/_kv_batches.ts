// Records packed many to one Deno KV value: shared by KvLog and
// KvAppendSink. Deno KV's limits and commit packing are src/kv/'s.
//
// A batch value is a tag byte, the record count as a big-endian uint32, then
// UTF-8 JSON `{"t":[timestamps],"r":[records]}` where each record is
// superjson's `{ json, meta }` of the value, so `Map`, `Set`, `Date`,
// `bigint` and `Infinity` come back as written. The count in the header lets
// a reader step over a batch without parsing it.

import superjson from "superjson";
import { utf8Length } from "../kv/mod.ts";

/** The tag of a batch stored inline. */
export const TAG_BATCH = 1;
/** The tag of a batch stored in parts (KvLog only). */
export const TAG_MANIFEST = 2;
/** Tag byte and uint32 count. */
export const HEADER_BYTES = 5;
// `{"t":[` + `],"r":[` + `]}`
const JSON_OVERHEAD = 15;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A batch before it is written: its record count and its JSON text. */
export interface EncodedBatch {
  /** How many records. */
  readonly count: number;
  /** `{"t":[...],"r":[...]}`. */
  readonly text: string;
}

/**
 * Packs records, in order, into batches whose values take at most
 * `maxValueBytes`. A record too large to fit even alone gets a batch of
 * its own that is larger: the caller splits it into parts or refuses it.
 */
export function packBatches(
  values: readonly unknown[],
  timestamps: readonly number[],
  maxValueBytes: number,
): EncodedBatch[] {
  const budget = maxValueBytes - HEADER_BYTES - JSON_OVERHEAD;
  const batches: EncodedBatch[] = [];
  let records: string[] = [];
  let times: number[] = [];
  let bytes = 0;
  const flush = () => {
    if (records.length === 0) return;
    batches.push({
      count: records.length,
      text: `{"t":[${times.join(",")}],"r":[${records.join(",")}]}`,
    });
    records = [];
    times = [];
    bytes = 0;
  };
  for (let i = 0; i < values.length; i++) {
    const record = JSON.stringify(superjson.serialize(values[i]));
    const size = utf8Length(record) + String(timestamps[i]).length;
    // Two commas join a record to the ones before it.
    if (records.length > 0 && bytes + 2 + size > budget) flush();
    bytes += (records.length > 0 ? 2 : 0) + size;
    records.push(record);
    times.push(timestamps[i]);
  }
  flush();
  return batches;
}

/** The value bytes of a batch: header and UTF-8 text. */
export function batchValue(batch: EncodedBatch, tag = TAG_BATCH): Uint8Array {
  const text = encoder.encode(batch.text);
  const out = new Uint8Array(HEADER_BYTES + text.length);
  out[0] = tag;
  new DataView(out.buffer).setUint32(1, batch.count);
  out.set(text, HEADER_BYTES);
  return out;
}

/** The size of {@linkcode batchValue} without building it. */
export function batchValueBytes(batch: EncodedBatch): number {
  return HEADER_BYTES + utf8Length(batch.text);
}

/** Reads the tag and count of a stored batch, or `null` if it is not one. */
export function batchHeader(
  raw: unknown,
): { tag: number; count: number } | null {
  if (!(raw instanceof Uint8Array) || raw.length < HEADER_BYTES) return null;
  const tag = raw[0];
  if (tag !== TAG_BATCH && tag !== TAG_MANIFEST) return null;
  const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  return { tag, count: view.getUint32(1) };
}

/** The JSON text after the header of a value. */
export function batchBody(raw: Uint8Array): string {
  return decoder.decode(raw.subarray(HEADER_BYTES));
}

/**
 * Decodes records `from` (inclusive) to `to` (exclusive) of an inline
 * batch; the records outside the range are parsed but not deserialised.
 */
export function decodeBatch<T>(
  raw: Uint8Array,
  from = 0,
  to = Infinity,
): { values: T[]; timestamps: number[] } {
  const { t, r } = JSON.parse(batchBody(raw)) as {
    t: number[];
    r: Parameters<typeof superjson.deserialize>[0][];
  };
  const end = Math.min(to, r.length);
  const values: T[] = [];
  for (let i = from; i < end; i++) values.push(superjson.deserialize<T>(r[i]));
  return { values, timestamps: t.slice(from, end) };
}
