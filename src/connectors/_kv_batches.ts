// Records packed many to one Deno KV value, and writes packed into commits
// within Deno KV's limits: shared by KvLog, KvAppendSink and KvTableSink.
//
// A batch value is a tag byte, the record count as a big-endian uint32, then
// UTF-8 JSON `{"t":[timestamps],"r":[records]}` where each record is
// superjson's `{ json, meta }` of the value, so `Map`, `Set`, `Date`,
// `bigint` and `Infinity` come back as written. The count in the header lets
// a reader step over a batch without parsing it.

import superjson from "superjson";
import { LIMITS } from "../actors/_commit_plan.ts";
import { encodedKeySize } from "../actors/_storage_keys.ts";

/** Deno KV's limits on one value and one commit. */
export const KV_LIMITS = LIMITS;

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

/** The UTF-8 length of `text`, without encoding it. */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
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

/** A Deno KV key of strings and numbers, as the connectors write them. */
export type Key = readonly (string | number)[];

/** One mutation of a commit: a set (with bytes) or a delete. */
export interface KvWrite {
  /** The full Deno KV key: strings and numbers only. */
  readonly key: Key;
  /** The value to set, or `null` to delete. */
  readonly value: Uint8Array | number | null;
}

/**
 * The bytes a key counts for in Deno KV's commit limits; one byte more
 * than its encoding, to stay on the safe side of the server's accounting.
 */
export function keyCost(key: Key): number {
  return encodedKeySize(key) + 1;
}

// A number value is V8-serialised by Deno KV: a few bytes; 16 is a bound.
function valueCost(value: Uint8Array | number): number {
  return typeof value === "number" ? 16 : value.length;
}

/** What one commit costs against {@linkcode KV_LIMITS}, as Deno KV counts it. */
export class CommitCost {
  /** Mutations so far. */
  mutations = 0;
  /** Keys and values so far, checks included. */
  payload = 0;
  /** Written keys so far. */
  keys = 0;

  /** Counts a check of `key`. */
  addCheck(key: Key): void {
    this.payload += keyCost(key);
  }

  /** Counts a set of `key` to a value of `valueBytes` bytes. */
  addSet(key: Key, valueBytes: number): void {
    const size = keyCost(key);
    this.mutations++;
    this.payload += 2 * size + valueBytes;
    this.keys += size;
  }

  /** Counts a mutation. */
  add(write: KvWrite): void {
    const [payload, keys] = CommitCost.#deltas(write);
    this.mutations++;
    this.payload += payload;
    this.keys += keys;
  }

  /** Whether the commit fits with one more mutation. */
  fitsWith(write: KvWrite): boolean {
    const [payload, keys] = CommitCost.#deltas(write);
    return this.mutations + 1 <= KV_LIMITS.mutations &&
      this.payload + payload <= KV_LIMITS.mutationBytes &&
      this.keys + keys <= KV_LIMITS.keyTotalBytes;
  }

  /** Whether the commit fits the limits. */
  fits(): boolean {
    return this.mutations <= KV_LIMITS.mutations &&
      this.payload <= KV_LIMITS.mutationBytes &&
      this.keys <= KV_LIMITS.keyTotalBytes;
  }

  // A key counts once in the payload; a set's key counts again with its
  // value, and in the total of written keys (ext/kv/lib.rs).
  static #deltas(write: KvWrite): [payload: number, keys: number] {
    const size = keyCost(write.key);
    return write.value === null
      ? [size, 0]
      : [2 * size + valueCost(write.value), size];
  }
}

/** Splits writes, in order, into as few commits as the limits allow. */
export function packCommits(writes: readonly KvWrite[]): KvWrite[][] {
  const commits: KvWrite[][] = [];
  let current: KvWrite[] = [];
  let cost = new CommitCost();
  for (const write of writes) {
    if (current.length > 0 && !cost.fitsWith(write)) {
      commits.push(current);
      current = [];
      cost = new CommitCost();
    }
    cost.add(write);
    current.push(write);
  }
  if (current.length > 0) commits.push(current);
  return commits;
}

/** Applies writes to an atomic operation. */
export function applyWrites(
  op: Deno.AtomicOperation,
  writes: readonly KvWrite[],
): Deno.AtomicOperation {
  for (const write of writes) {
    if (write.value === null) op.delete(write.key as Deno.KvKey);
    else op.set(write.key as Deno.KvKey, write.value);
  }
  return op;
}

/** Commits writes in as many commits as needed, one after the other. */
export async function commitAll(
  kv: Deno.Kv,
  writes: readonly KvWrite[],
): Promise<void> {
  for (const commit of packCommits(writes)) {
    await applyWrites(kv.atomic(), commit).commit();
  }
}
