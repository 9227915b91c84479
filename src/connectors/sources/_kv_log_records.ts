// The records handed to a KvLog append, checked and packed into batches:
// each a `{ value, timestamp }` with a safe-integer timestamp, and each
// partition named once.

import {
  describeValue,
  requireIndex,
  requireSafeInteger,
} from "../../time/validate.ts";
import { type EncodedBatch, packBatches } from "../_kv_batches.ts";
import { KV_LIMITS } from "../../kv/mod.ts";
import type { AppendRecord, PartitionRecords } from "./kv_log_append.ts";

/** One partition's records, packed into batches of at most 64 KiB. */
export interface PackedGroup {
  /** The partition. */
  readonly partition: number;
  /** Its records' batches, in order; none for no records. */
  readonly batches: EncodedBatch[];
}

/**
 * Checks `appends` against a log of `partitions` partitions and packs each
 * partition's records.
 *
 * @returns The groups in the order given, and the partitions named.
 */
export function packAppends<T>(
  appends: ReadonlyArray<PartitionRecords<T>>,
  partitions: number,
  action: string,
): { groups: PackedGroup[]; partitions: number[] } {
  if (!Array.isArray(appends)) {
    throw new TypeError(
      `Cannot ${action} as 'appends' must be an array of { partition, records }: current value is ${
        describeValue(appends)
      }`,
    );
  }
  const seen = new Set<number>();
  const groups = appends.map(({ partition, records }, i) => {
    requireIndex(partition, partitions, {
      action,
      param: `appends[${i}].partition`,
    });
    if (seen.has(partition)) {
      throw new RangeError(
        `Cannot ${action} as 'appends' must name each partition once: partition ${partition} repeats`,
      );
    }
    seen.add(partition);
    const { values, timestamps } = checkRecords(
      records,
      action,
      `appends[${i}].records`,
    );
    return {
      partition,
      batches: packBatches(values, timestamps, KV_LIMITS.valueBytes),
    };
  });
  return { groups, partitions: [...seen] };
}

/** Checks records and splits them into values and timestamps. */
export function checkRecords<T>(
  records: ReadonlyArray<AppendRecord<T>>,
  action: string,
  param: string,
): { values: T[]; timestamps: number[] } {
  if (!Array.isArray(records)) {
    throw new TypeError(
      `Cannot ${action} as '${param}' must be an array of { value, timestamp }: current value is ${
        describeValue(records)
      }`,
    );
  }
  const values = new Array<T>(records.length);
  const timestamps = new Array<number>(records.length);
  records.forEach((record, i) => {
    if (typeof record !== "object" || record === null) {
      throw new TypeError(
        `Cannot ${action} as '${param}[${i}]' must be { value, timestamp }: current value is ${
          describeValue(record)
        }`,
      );
    }
    values[i] = record.value;
    timestamps[i] = requireSafeInteger(record.timestamp, {
      action,
      param: `${param}[${i}].timestamp`,
    });
  });
  return { values, timestamps };
}
