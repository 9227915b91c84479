/**
 * A job fed over HTTP: records posted to `POST /ingest/events` (JSON with a
 * `key`, required, and an epoch-millisecond `ts`) are counted per key in 10-second
 * windows into the KV table `event-counts`. Acknowledged records survive a
 * crash: they are in the stream's log, and the job resumes from its latest
 * checkpoint.
 *
 * ```sh
 * deno task dev examples/ingest_counts.ts
 * curl -X POST localhost:8000/ingest/events -H 'content-type: application/json' \
 *   -d '[{"key":"a","ts":1767225600000}]'
 * ```
 *
 * @module
 */

import {
  type JobContext,
  type JobSettings,
  KvTableSink,
  TumblingEventTimeWindows,
  WatermarkStrategy,
} from "../src/mod.ts";

/** A posted record. */
export interface Event {
  /** The key counted. */
  key: string;
  /** Event time, epoch milliseconds. */
  ts: number;
}

/** A row of the result table. */
export interface KeyCount {
  /** `key@windowStart`. */
  id: string;
  /** Events of the key in the window. */
  count: number;
}

/** The result table's name. */
export const COUNTS_TABLE = "event-counts";

/**
 * Two subtasks per operator; event time is part of every checkpoint, so a
 * restart decides exactly as the run before it which records are late.
 */
export const settings: JobSettings = {
  parallelism: 2,
  watermarkRecovery: "persist",
};

/**
 * Builds the job.
 *
 * @param context The job context of the command line.
 */
export default function ingestCounts({ ingest, kv }: JobContext): void {
  ingest<Event>("events", {
    timestampField: "ts",
    // Counted by key: a record without one is refused at the door (400)
    // rather than set aside by the job as a dead letter.
    key: { required: true },
    strategy: WatermarkStrategy.forBoundedOutOfOrderness<Event>(1_000),
  })
    .keyBy((e) => e.key)
    .window(TumblingEventTimeWindows.of(10_000))
    .aggregate<number, number, KeyCount>(
      {
        createAccumulator: () => 0,
        add: (_e, n) => n + 1,
        getResult: (n) => n,
        merge: (a, b) => a + b,
      },
      (key, ctx, [count], out) =>
        out({ id: `${key}@${ctx.window.start}`, count }),
    )
    .sinkTo(
      new KvTableSink<KeyCount>(kv, COUNTS_TABLE, { key: (row) => row.id }),
    );
}
