/**
 * A job file for the ingest fuzz test: `examples/ingest_counts.ts` with a
 * map that throws on records marked `boom` (user code that fails on some
 * accepted records), counting per key in 10-second windows into the KV
 * table `fuzz-counts`. Row ids are `JSON.stringify([key, windowStart])`,
 * so the key `1` and the key `"1"` keep rows of their own.
 *
 * @module
 */

import {
  type JobContext,
  type JobSettings,
  KvTableSink,
  TumblingEventTimeWindows,
  WatermarkStrategy,
} from "../../../src/mod.ts";

/** A posted record. */
export interface Event {
  /** The key counted. */
  key: string | number;
  /** Event time, epoch milliseconds. */
  ts: number;
  /** Makes the job's map throw. */
  boom?: boolean;
}

/** A row of the result table. */
export interface KeyCount {
  /** `JSON.stringify([key, windowStart])`. */
  id: string;
  /** Events of the key in the window. */
  count: number;
}

/** The result table's name. */
export const TABLE = "fuzz-counts";

/** As `examples/ingest_counts.ts`, with checkpoints every 200 ms. */
export const settings: JobSettings = {
  parallelism: 2,
  checkpointIntervalMs: 200,
  watermarkRecovery: "persist",
};

/**
 * Builds the job.
 *
 * @param context The job context of the command line.
 */
export default function fuzzCounts({ ingest, kv }: JobContext): void {
  ingest<Event>("events", {
    timestampField: "ts",
    strategy: WatermarkStrategy.forBoundedOutOfOrderness<Event>(1_000),
  })
    .map((e) => {
      if (e.boom === true) throw new Error(`boom at ${e.ts}`);
      return e;
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
        out({ id: JSON.stringify([key, ctx.window.start]), count }),
    )
    .sinkTo(new KvTableSink<KeyCount>(kv, TABLE, { key: (row) => row.id }));
}
