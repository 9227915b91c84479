// How a KvLog partition is read back: the stored batches from an offset
// on, a batch stored in parts joined again, and only the records asked for
// deserialised.
//
// Batches are keyed by their first offset, so the one holding `fromOffset`
// may start before it (a reader restored in the middle of a batch): when
// no batch starts exactly there, the batch before it is read too.

import { describeValue } from "../../time/validate.ts";
import {
  batchBody,
  batchHeader,
  decodeBatch,
  TAG_BATCH,
} from "../_kv_batches.ts";
import { KV_LIMITS } from "../../kv/mod.ts";
import type { LogKeys, Manifest } from "./_kv_log_plan.ts";
import type { LogRecord } from "./kv_log_append.ts";

/** The partition a read is of. */
export interface ReadTarget {
  /** The log's name, for error messages. */
  readonly name: string;
  /** The log's keys. */
  readonly keys: LogKeys;
  /** The partition. */
  readonly partition: number;
}

/** How much a read takes. */
export interface ReadSize {
  /** The most records. */
  readonly max: number;
  /** Whether the last batch taken from is read to its end, past `max`. */
  readonly wholeBatches: boolean;
}

/**
 * Reads up to `max` records of a partition from `fromOffset` on, in offset
 * order (with `wholeBatches`, to the end of the last batch reached);
 * arguments are checked by the caller.
 */
export async function readRecords<T>(
  kv: Deno.Kv,
  target: ReadTarget,
  fromOffset: number,
  size: ReadSize,
): Promise<LogRecord<T>[]> {
  const { max } = size;
  const prefix = target.keys.partition(target.partition) as Deno.KvKey;
  const out: LogRecord<T>[] = [];
  // One entry per 256 records asked (batches of small records hold more),
  // so that a read is one page; a page is at most 64 batches (4 MiB).
  const batchSize = Math.min(64, Math.max(2, Math.ceil(max / 256)));
  const entries = kv.list<unknown>(
    { prefix, start: [...prefix, fromOffset] },
    { batchSize },
  );
  let step = await entries.next();
  if (step.done || step.value.key.at(-1) !== fromOffset) {
    // `fromOffset` may lie inside a batch that starts earlier (a reader
    // restored in the middle of one), or at the head.
    const previous = kv.list<unknown>(
      { prefix, end: [...prefix, fromOffset] },
      { reverse: true, limit: 1 },
    );
    for await (const entry of previous) {
      await take(kv, target, entry, { from: fromOffset, size, out });
    }
  }
  while (!step.done && out.length < max) {
    await take(kv, target, step.value, { from: fromOffset, size, out });
    if (out.length >= max) break;
    step = await entries.next();
  }
  return out;
}

/** Adds the records of one stored batch at or after `from` to `out`. */
async function take<T>(
  kv: Deno.Kv,
  target: ReadTarget,
  entry: Deno.KvEntry<unknown>,
  into: { from: number; size: ReadSize; out: LogRecord<T>[] },
): Promise<void> {
  const { from, size: { max, wholeBatches }, out } = into;
  const first = entry.key.at(-1) as number;
  const header = batchHeader(entry.value);
  if (header === null) {
    throw new TypeError(
      `Cannot read KvLog '${target.name}' as the entry at offset ${first} of partition ${target.partition} must be a batch written by KvLog: current value is ${
        describeValue(entry.value)
      }`,
    );
  }
  const skip = Math.max(0, from - first);
  if (skip >= header.count) return;
  const raw = header.tag === TAG_BATCH
    ? entry.value as Uint8Array
    : await assemble(kv, target, entry.value as Uint8Array, first);
  const take = wholeBatches
    ? header.count - skip
    : Math.min(header.count - skip, max - out.length);
  const { values, timestamps } = decodeBatch<T>(raw, skip, skip + take);
  for (let i = 0; i < values.length; i++) {
    out.push({
      offset: first + skip + i,
      value: values[i],
      timestamp: timestamps[i],
    });
  }
}

/** Reads the parts a manifest points at and joins them into one batch value. */
async function assemble(
  kv: Deno.Kv,
  target: ReadTarget,
  manifest: Uint8Array,
  first: number,
): Promise<Uint8Array> {
  const { name, keys: logKeys, partition } = target;
  const { id, from, parts } = JSON.parse(batchBody(manifest)) as Manifest;
  const keys = Array.from(
    { length: parts },
    (_, i) => logKeys.part(partition, id, from + i) as Deno.KvKey,
  );
  const groups: Promise<Deno.KvEntryMaybe<unknown>[]>[] = [];
  for (let i = 0; i < keys.length; i += KV_LIMITS.getMany) {
    groups.push(kv.getMany(keys.slice(i, i + KV_LIMITS.getMany)));
  }
  const chunks = (await Promise.all(groups)).flat().map((entry, i) => {
    if (!(entry.value instanceof Uint8Array)) {
      throw new TypeError(
        `Cannot read KvLog '${name}' as part ${i} of the batch at offset ${first} of partition ${partition} must exist: current value is ${
          describeValue(entry.value)
        }`,
      );
    }
    return entry.value;
  });
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}
