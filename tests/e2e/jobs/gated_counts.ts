/**
 * A job file for the command-line tests of stopping: records of a bounded
 * log in KV go through a keyed asynchronous call that waits until the file
 * named by `WEIR_GATE` exists (so checkpoint barriers queue behind the
 * calls for as long as a test wants), then are counted per key in 1 s
 * windows into the KV table `gated-counts`.
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
export interface Tick {
  /** The key counted. */
  key: string;
  /** Event time, epoch milliseconds. */
  ts: number;
}

/** A row of the result table. */
export interface TickCount {
  /** `key@windowStart`. */
  id: string;
  /** Records of the key in the window. */
  count: number;
}

/** The log the job reads. */
export const LOG = "gated-ticks";
/** The table the job writes. */
export const TABLE = "gated-counts";

/** Checkpoints only when asked for (`POST /jobs/...`) and at Ctrl-C. */
export const settings: JobSettings = {
  parallelism: 1,
  checkpointIntervalMs: 0,
};

/** The job's log in `kv`. */
export function tickLog(kv: Deno.Kv): KvLog<Tick> {
  return new KvLog<Tick>(kv, LOG, { partitions: 1 });
}

/**
 * Appends `count` records: 5 keys, one record per millisecond of event time.
 *
 * @param kv The store.
 * @param count How many records.
 */
export async function seedTicks(kv: Deno.Kv, count: number): Promise<void> {
  const log = tickLog(kv);
  for (let from = 0; from < count; from += 2_000) {
    const records = [];
    for (let i = from; i < Math.min(count, from + 2_000); i++) {
      records.push({ value: { key: `k${i % 5}`, ts: i }, timestamp: i });
    }
    await log.append(0, records);
  }
}

let open = false;

/** Resolves once the gate file exists (looked for every 20 ms until then). */
async function gate(): Promise<void> {
  const path = Deno.env.get("WEIR_GATE");
  while (!open && path !== undefined) {
    try {
      await Deno.stat(path);
      open = true;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

/**
 * Builds the job.
 *
 * @param context The job context of the command line.
 */
export default function gatedCounts({ env, kv }: JobContext): void {
  env.fromSource(
    new KvLogSource(tickLog(kv), { bounded: true }),
    WatermarkStrategy.forMonotonousTimestamps<Tick>()
      .withTimestampAssigner((t) => t.ts),
    "ticks",
  )
    .keyBy((t) => t.key)
    .mapAsync(async (t) => {
      if (!open) await gate();
      return t;
    })
    .keyBy((t) => t.key)
    .window(TumblingEventTimeWindows.of(1_000))
    .aggregate<number, number, TickCount>(
      {
        createAccumulator: () => 0,
        add: (_t, n) => n + 1,
        getResult: (n) => n,
        merge: (a, b) => a + b,
      },
      (key, ctx, [count], out) =>
        out({ id: `${key}@${ctx.window.start}`, count }),
    )
    .sinkTo(new KvTableSink<TickCount>(kv, TABLE, { key: (row) => row.id }));
}
