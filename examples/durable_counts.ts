/**
 * A durable job: events from a partitioned log in Deno KV, counted per key
 * in 10-second event-time windows, upserted into a KV table, with a
 * checkpoint every 20 ms in the same KV. Kill the process at any moment and
 * run it again: it resumes from the latest checkpoint, and the table ends up
 * exactly as if nothing had happened.
 *
 * ```sh
 * deno task dev durable ./.weir/durable.sqlite            # seed, then run or resume
 * deno task dev durable ./.weir/durable.sqlite --restore 7 # from checkpoint 7
 * ```
 *
 * @module
 */

import {
  type Clock,
  KvLog,
  KvLogSource,
  KvStorage,
  KvTableSink,
  StreamEnvironment,
  TumblingEventTimeWindows,
  WatermarkStrategy,
} from "../src/mod.ts";

/** An event of the log. */
export interface Event {
  /** The key counted. */
  key: string;
  /** Event time, epoch milliseconds. */
  ts: number;
}

/** A row of the result table. */
export interface WindowCount {
  /** `key@windowStart`: the row key. */
  id: string;
  /** The counted key. */
  key: string;
  /** Window start, epoch milliseconds. */
  windowStart: number;
  /** Events of the key in the window. */
  count: number;
}

/** The log the job reads. */
export const LOG_NAME = "durable-events";
/** The table the job writes. */
export const TABLE_NAME = "durable-counts";
const PARTITIONS = 4;
const EPOCH = Date.UTC(2026, 0, 1);

/** Opens the job's log in `kv`. */
export function eventLog(kv: Deno.Kv): KvLog<Event> {
  return new KvLog<Event>(kv, LOG_NAME, { partitions: PARTITIONS });
}

/**
 * Appends `count` deterministic events (10 keys, up to 2 s out of order).
 *
 * @param kv The KV database.
 * @param count How many events.
 */
export async function seedEvents(kv: Deno.Kv, count: number): Promise<void> {
  const log = eventLog(kv);
  for (let p = 0; p < PARTITIONS; p++) {
    const records = [];
    for (let i = p; i < count; i += PARTITIONS) {
      const ts = EPOCH + i * 10 - ((i * 7919) % 2_000);
      records.push({ value: { key: `k${i % 10}`, ts }, timestamp: ts });
    }
    for (let from = 0; from < records.length; from += 2_000) {
      await log.append(p, records.slice(from, from + 2_000));
    }
  }
}

/**
 * Builds the job over `kv` without running it: the log, checkpoints every
 * 20 ms in the same KV, and the table.
 *
 * @param kv The KV database holding the log, the checkpoints and the table.
 * @param options The processing-time clock (a `ManualClock` in tests).
 * @returns The environment; `execute()` runs it.
 */
export function durableCountsJob(
  kv: Deno.Kv,
  options: { clock?: Clock } = {},
): StreamEnvironment {
  const env = new StreamEnvironment({
    jobName: "durable-counts",
    parallelism: 2,
    checkpointIntervalMs: 20,
    watermarkRecovery: "persist",
    checkpointStorage: new KvStorage(kv, [
      "weir",
      "durable-counts",
      "checkpoints",
    ]),
    clock: options.clock,
  });
  env.fromSource(
    new KvLogSource(eventLog(kv), { bounded: true }),
    WatermarkStrategy.forBoundedOutOfOrderness<Event>(2_000)
      .withTimestampAssigner((e) => e.ts),
    "events",
  )
    .keyBy((e) => e.key)
    .window(TumblingEventTimeWindows.of(10_000))
    .aggregate<number, number, WindowCount>(
      {
        createAccumulator: () => 0,
        add: (_e, n) => n + 1,
        getResult: (n) => n,
        merge: (a, b) => a + b,
      },
      (key, ctx, [count], out) =>
        out({
          id: `${key}@${ctx.window.start}`,
          key,
          windowStart: ctx.window.start,
          count,
        }),
    )
    .sinkTo(
      new KvTableSink<WindowCount>(kv, TABLE_NAME, { key: (row) => row.id }),
    );
  return env;
}

/**
 * Runs the job to the end of the log, starting from the latest checkpoint
 * (or the one asked for).
 *
 * @param kv The KV database holding the log, the checkpoints and the table.
 * @param restore `"latest"`, `"none"` or a checkpoint id.
 */
export async function runDurableCounts(
  kv: Deno.Kv,
  restore: "latest" | "none" | number = "latest",
): Promise<void> {
  await durableCountsJob(kv).execute({ restore });
}

if (import.meta.main) {
  const kv = await Deno.openKv(Deno.args[0] ?? "./.weir/durable.sqlite");
  try {
    await runDurableCounts(kv);
  } finally {
    kv.close();
  }
}
