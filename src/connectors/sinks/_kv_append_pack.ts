// Packing the records of a KvAppendSink transaction into batches of at
// most one Deno KV value, leaving out the records Deno KV cannot hold.

import {
  batchValueBytes,
  type EncodedBatch,
  packBatches,
} from "../_kv_batches.ts";
import { KV_LIMITS } from "../../kv/mod.ts";
import type { RefusedRecords } from "./_two_phase_writer.ts";

/**
 * The batches of a transaction's records. A record too large for one KV
 * value even alone (packBatches gives it a batch of its own), or one
 * superjson cannot encode (a getter that throws), is left out and added
 * to `refused`.
 *
 * @param values The records, in order.
 * @param timestamps Their timestamps.
 * @param options The output's name (for messages) and where refused
 * records go.
 * @returns The batches of the records kept, in order.
 */
export function packRecords<T>(
  values: T[],
  timestamps: number[],
  { name, refused }: { name: string; refused: RefusedRecords<T> },
): EncodedBatch[] {
  let batches: EncodedBatch[];
  try {
    batches = packBatches(values, timestamps, KV_LIMITS.valueBytes);
  } catch {
    // Only on this failure path: encode one by one to find the records.
    [values, timestamps] = encodable(values, timestamps, refused);
    batches = packBatches(values, timestamps, KV_LIMITS.valueBytes);
  }
  let first = 0;
  let kept: EncodedBatch[] | null = null;
  for (let b = 0; b < batches.length; b++) {
    const batch = batches[b];
    const bytes = batchValueBytes(batch);
    if (bytes > KV_LIMITS.valueBytes) {
      kept ??= batches.slice(0, b);
      refused.add(
        values[first],
        timestamps[first],
        new RangeError(
          `Cannot snapshot KvAppendSink '${name}' as each record must encode to at most ${KV_LIMITS.valueBytes} bytes (Deno KV's 64 KiB value limit): current value is ${bytes} bytes`,
        ),
      );
    } else {
      kept?.push(batch);
    }
    first += batch.count;
  }
  return kept ?? batches;
}

// The records superjson can encode; the others go to `refused`.
function encodable<T>(
  values: T[],
  timestamps: number[],
  refused: RefusedRecords<T>,
): [T[], number[]] {
  const keptValues: T[] = [];
  const keptTimestamps: number[] = [];
  for (let i = 0; i < values.length; i++) {
    try {
      packBatches([values[i]], [timestamps[i]], KV_LIMITS.valueBytes);
      keptValues.push(values[i]);
      keptTimestamps.push(timestamps[i]);
    } catch (error) {
      refused.add(values[i], timestamps[i], error);
    }
  }
  return [keptValues, keptTimestamps];
}
