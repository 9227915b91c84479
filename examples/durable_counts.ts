/**
 * A durable job: events from a partitioned log in Deno KV, counted per key
 * in 10-second event-time windows, upserted into a KV table, with a
 * checkpoint every 20 ms in the same KV. Kill the process at any moment and
 * run it again: it resumes from the latest checkpoint, and the table ends up
 * exactly as if nothing had happened.
 *
 * ```sh
 * deno task durable ./.weir/durable.sqlite            # seed, then run or resume
 * deno task durable ./.weir/durable.sqlite --restore 7 # from checkpoint 7
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
 * Appends to the log whatever it lacks of `count` deterministic events (10
 * keys, up to 2 s out of order), so that seeding is resumable: partition
 * `p` holds events `p`, `p + 4`, `p + 8`… in that order, and each
 * `KvLog.append` is all-or-nothing, so a partition's head says exactly how
 * many of its events are in. Seeding again after a kill appends the rest
 * from there; a complete log is left as it is. One seeder at a time: two at
 * once would both append the missing events.
 *
 * @param kv The KV database.
 * @param count How many events the log holds in the end.
 * @returns How many events were appended now.
 * @throws {RangeError} If a partition holds more events than its share of
 * `count` (a log seeded with another count, or written by something else).
 */
export async function seedEvents(kv: Deno.Kv, count: number): Promise<number> {
  const log = eventLog(kv);
  let appended = 0;
  for (let p = 0; p < PARTITIONS; p++) {
    const share = shareOf(p, count);
    for (let j = await seededHead(log, p, count); j < share;) {
      const records = [];
      for (; records.length < 2_000 && j < share; j++) {
        const i = p + j * PARTITIONS;
        const ts = EPOCH + i * 10 - ((i * 7919) % 2_000);
        records.push({ value: { key: `k${i % 10}`, ts }, timestamp: ts });
      }
      await log.append(p, records);
      appended += records.length;
    }
  }
  return appended;
}

/**
 * How many of the `count` events of {@linkcode seedEvents} the log lacks:
 * 0 once it is seeded.
 *
 * @param kv The KV database.
 * @param count How many events the log holds once seeded.
 * @returns The number of events still to append.
 * @throws {RangeError} If a partition holds more events than its share.
 */
export async function eventsToSeed(
  kv: Deno.Kv,
  count: number,
): Promise<number> {
  const log = eventLog(kv);
  let missing = 0;
  for (let p = 0; p < PARTITIONS; p++) {
    missing += shareOf(p, count) - await seededHead(log, p, count);
  }
  return missing;
}

/** How many of `count` events go to partition `p`: every fourth from `p`. */
function shareOf(p: number, count: number): number {
  return Math.max(0, Math.ceil((count - p) / PARTITIONS));
}

/** Partition `p`'s head, checked against its share of `count`. */
async function seededHead(
  log: KvLog<Event>,
  p: number,
  count: number,
): Promise<number> {
  const head = await log.head(p);
  if (head > shareOf(p, count)) {
    throw new RangeError(
      `Cannot seed the log '${LOG_NAME}' as partition ${p} must hold at most ${
        shareOf(p, count)
      } of ${count} events: current value is ${head}`,
    );
  }
  return head;
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
