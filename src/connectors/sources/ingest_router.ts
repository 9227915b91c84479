/**
 * Which partition of a `KvLog` each ingested record goes to: a record with
 * a key to `hashKey(key) % partitions`, so equal keys share a partition
 * (and a `keyBy` subtask), the others round-robin.
 *
 * @example Spreading keyless records over two partitions
 * ```ts
 * import { IngestRouter } from "./ingest_router.ts";
 * import assert from "node:assert/strict";
 *
 * const router = new IngestRouter({ partitions: 2, keyField: "key" });
 * const appends = router.route([{ n: 1 }, { n: 2 }, { n: 3 }], [1, 2, 3]);
 * assert.deepEqual(appends.map((a) => a.records.length), [2, 1]);
 * assert.deepEqual(router.route([{ n: 4 }], [4])[0].partition, 1);
 * ```
 *
 * @module
 */

import { hashKey } from "../../runtime/key_groups.ts";
import type { IngestRecord } from "./ingest_records.ts";
import type { PartitionRecords } from "./kv_log_append.ts";

/**
 * Spreads checked records over a log's partitions: a record with a key
 * goes to `hashKey(key) % partitions`, the others round-robin, continuing
 * from one call to the next (from partition 0 at first).
 */
export class IngestRouter {
  readonly #partitions: number;
  readonly #keyField: string;
  #cursor = 0;

  /**
   * Creates a router with its round-robin at partition 0.
   *
   * @param options The log's number of partitions, and the key field.
   */
  constructor(options: { partitions: number; keyField: string }) {
    this.#partitions = options.partitions;
    this.#keyField = options.keyField;
  }

  /**
   * Groups records by partition; moves the round-robin on past the
   * keyless ones.
   *
   * @param values Records accepted by `checkIngestRecords`.
   * @param timestamps Their timestamps.
   * @returns One append per partition that gets records, by partition.
   */
  route(
    values: readonly unknown[],
    timestamps: readonly number[],
  ): PartitionRecords<IngestRecord>[] {
    const partitions = this.#partitions;
    const keyField = this.#keyField;
    const groups = Array.from(
      { length: partitions },
      (): { value: IngestRecord; timestamp: number }[] => [],
    );
    let cursor = this.#cursor;
    values.forEach((v, i) => {
      const value = v as IngestRecord;
      // Checking let through only keys hashKey takes.
      const partition = Object.hasOwn(value, keyField)
        ? hashKey(value[keyField]) % partitions
        : cursor++ % partitions;
      groups[partition].push({ value, timestamp: timestamps[i] });
    });
    this.#cursor = cursor % partitions;
    return groups.flatMap((records, partition) =>
      records.length === 0 ? [] : [{ partition, records }]
    );
  }
}
