/**
 * A job file for the command-line tests of poison records: a
 * bounded log in KV whose record 500 has no key (`null`, which no key
 * selector can hash) is counted per key in 1 s windows into the KV table
 * `poison-counts`. Without periodic checkpoints, a restart processes the
 * whole log again, the poison record included.
 *
 * @module
 */

import {
  type JobContext,
  type JobSettings,
  KvLog,
  KvLogSource,
  KvTableSink,
  TumblingEventTimeWindows,
  WatermarkStrategy,
} from "../../../src/mod.ts";

/** A record of the log. */
export interface Event {
  /** The key counted; `null` for the poison record. */
  key: string | null;
  /** Event time, epoch milliseconds. */
  ts: number;
}

/** A row of the result table. */
export interface EventCount {
  /** `key@windowStart`. */
  id: string;
  /** Records of the key in the window. */
  count: number;
}

/** The log the job reads. */
export const LOG = "poison-events";
/** The table the job writes. */
export const TABLE = "poison-counts";
/** How many records the log holds. */
export const RECORDS = 1_000;
/** The record without a key. */
export const POISON = 500;

/** No periodic checkpoints: every start reads the whole log. */
export const settings: JobSettings = {
  parallelism: 2,
  checkpointIntervalMs: 0,
};

/**
 * Appends the log's records: 3 keys, one record per millisecond of event
 * time, record {@linkcode POISON} without a key.
 *
 * @param kv The store.
 */
export async function seedEvents(kv: Deno.Kv): Promise<void> {
  const records = Array.from({ length: RECORDS }, (_, i) => ({
    value: { key: i === POISON ? null : `k${i % 3}`, ts: i },
    timestamp: i,
  }));
  await new KvLog<Event>(kv, LOG, { partitions: 1 }).append(0, records);
}

/**
 * Builds the job.
 *
 * @param context The job context of the command line.
 */
export default function poisonCounts({ env, kv }: JobContext): void {
  env.fromSource(
    new KvLogSource(new KvLog<Event>(kv, LOG, { partitions: 1 }), {
      bounded: true,
    }),
    WatermarkStrategy.forMonotonousTimestamps<Event>()
      .withTimestampAssigner((e) => e.ts),
    "events",
  )
    .keyBy((e) => e.key as string)
    .window(TumblingEventTimeWindows.of(1_000))
    .aggregate<number, number, EventCount>(
      {
        createAccumulator: () => 0,
        add: (_e, n) => n + 1,
        getResult: (n) => n,
        merge: (a, b) => a + b,
      },
      (key, ctx, [count], out) =>
        out({ id: `${key}@${ctx.window.start}`, count }),
    )
    .sinkTo(new KvTableSink<EventCount>(kv, TABLE, { key: (row) => row.id }));
}
