/**
 * The channels of the KV runtime: one append-only log of element batches
 * per producer subtask and consumer subtask, written only by the producer.
 * Its layout (an entry per key, numbered without gaps), how a step's
 * elements become entries, and how a consumer reads them.
 *
 * @module
 */

import type { StreamElement } from "../../runtime/stream_element.ts";
import type { ActorStorage, StorageKey } from "../storage.ts";

/**
 * The key of entry `seq` (from 1, no gaps) of output channel `out` in the
 * producer's storage.
 *
 * @param out The producer's output channel: its edges' channels numbered
 * one after another.
 * @param seq The entry's sequence number.
 */
export function logKey(out: number, seq: number): StorageKey {
  return ["out", out, seq];
}

/**
 * Cuts the elements one step sends to one channel into log entries. A
 * checkpoint barrier is an entry of its own, so that a consumer can stop
 * in front of it (aligning barriers by not reading on) without splitting an
 * entry, and deliver the barriers of all its channels in one step.
 *
 * @param elements The elements, in send order.
 * @returns The entries, in order; none for no elements.
 *
 * @example
 * ```ts
 * import { logEntries } from "./channel_log.ts";
 * import assert from "node:assert/strict";
 *
 * const w = { kind: "watermark", watermark: 5 } as const;
 * const b = { kind: "barrier", checkpointId: 1 } as const;
 * assert.deepEqual(logEntries([w, b, w]), [[w], [b], [w]]);
 * ```
 */
export function logEntries(
  elements: readonly StreamElement[],
): StreamElement[][] {
  const entries: StreamElement[][] = [];
  let current: StreamElement[] = [];
  for (const element of elements) {
    if (element.kind !== "barrier") {
      current.push(element);
      continue;
    }
    if (current.length > 0) entries.push(current);
    entries.push([element]);
    current = [];
  }
  if (current.length > 0) entries.push(current);
  return entries;
}

/**
 * The checkpoint id of an entry that is a lone barrier, or `null`.
 *
 * @param entry A log entry.
 */
export function barrierOf(entry: readonly StreamElement[]): number | null {
  return entry.length === 1 && entry[0].kind === "barrier"
    ? entry[0].checkpointId
    : null;
}

/**
 * Reads the entries of output channel `out` after `applied`, at most
 * `max`, in one `getMany` (one consistent read): they stop at the first
 * entry not written yet.
 *
 * @param storage The producer's storage.
 * @param out The producer's output channel.
 * @param range The last entry the consumer applied, and the most entries
 * to read.
 * @returns The entries `applied + 1` on, in order; none if none is there.
 *
 * @example
 * ```ts
 * import { readEntries } from "./channel_log.ts";
 * import type { StorageKey } from "../storage.ts";
 * import assert from "node:assert/strict";
 *
 * // Entries 1, 2 and 4 of channel 0 are written: 3 is not yet.
 * const w = { kind: "watermark", watermark: 5 } as const;
 * const written = new Set([1, 2, 4]);
 * const storage = {
 *   getMany: <V>(keys: readonly StorageKey[]) =>
 *     Promise.resolve(keys.map((k) =>
 *       written.has(k[2] as number) ? [w] as V : undefined
 *     )),
 * };
 * const entries = await readEntries(storage, 0, { applied: 0, max: 16 });
 * assert.equal(entries.length, 2);
 * ```
 */
export async function readEntries(
  storage: Pick<ActorStorage, "getMany">,
  out: number,
  range: { applied: number; max: number },
): Promise<StreamElement[][]> {
  const { applied, max } = range;
  const keys: StorageKey[] = [];
  for (let seq = applied + 1; seq <= applied + max; seq++) {
    keys.push(logKey(out, seq));
  }
  const values = await storage.getMany<StreamElement[]>(keys);
  const entries: StreamElement[][] = [];
  for (const value of values) {
    if (value === undefined) break;
    entries.push(value);
  }
  return entries;
}
