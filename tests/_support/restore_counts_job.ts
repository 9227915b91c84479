// The job file of the restore-path command-line tests: events from a
// paced, bounded source counted per key per 10 s into a KV table (upserts,
// so any run that reaches the end leaves the failure-free table), and a
// history of checkpoints written through the library exactly as `main.ts`
// would write them: a fixed number, whatever the machine's speed.

import {
  createJobContext,
  type JobContext,
  type JobSettings,
  KvStorage,
  KvTableSink,
  ManualClock,
  type Source,
  type SourceBatch,
  type SourceReader,
  StreamEnvironment,
  TumblingEventTimeWindows,
  WatermarkStrategy,
} from "../../src/mod.ts";
import { readTable } from "../../src/connectors/mod.ts";
import { takeCheckpoints } from "./take_checkpoints.ts";

/** An event of the source. */
interface Event {
  key: string;
  ts: number;
}

/** A row of the result table. */
interface Count {
  id: string;
  count: number;
}

/** The job's name in `main.ts`: the file's name. */
export const RESTORE_COUNTS_JOB = "restore_counts_job";
/** Where its checkpoints are. */
export const RESTORE_COUNTS_CHECKPOINTS = [
  "weir",
  RESTORE_COUNTS_JOB,
  "checkpoints",
];
const TABLE = "restore-counts";
const PARTITIONS = 4;
const PER_PARTITION = 500;
const BATCH = 20;
// A partition's batches are 100 ms of processing time apart: whatever the
// machine's speed, a run from the start (or from an early checkpoint) lasts
// over 2 s, so `main.ts` (a checkpoint every second) takes checkpoints.
const TICK_MS = 100;
const EPOCH = Date.UTC(2026, 0, 1);

/** Event `i` of partition `p`: ascending, up to 2 s out of order. */
function event(p: number, i: number): Event {
  const n = i * PARTITIONS + p;
  return { key: `k${n % 7}`, ts: EPOCH + n * 10 - ((n * 7_919) % 2_000) };
}

/**
 * A bounded source paced by processing time: each partition gives a batch
 * of {@linkcode BATCH} events at its first poll, then one every
 * {@linkcode TICK_MS}. Its snapshot is the read position of each partition.
 */
class PacedSource implements Source<Event> {
  readonly name = "paced";

  createReader(subtask: number, parallelism: number): SourceReader<Event> {
    const mine: number[] = [];
    for (let p = subtask; p < PARTITIONS; p += parallelism) mine.push(p);
    const positions = mine.map(() => 0);
    const due = mine.map(() => -Infinity);
    return {
      partitions: mine.map((p) => `paced-${p}`),
      get finished() {
        return positions.every((n) => n === PER_PARTITION);
      },
      poll(now: number, maxRecords: number): SourceBatch<Event> | null {
        const k = mine.findIndex((_, k) =>
          positions[k] < PER_PARTITION && due[k] <= now
        );
        if (k < 0) return null;
        const from = positions[k];
        const to = Math.min(from + BATCH, from + maxRecords, PER_PARTITION);
        positions[k] = to;
        due[k] = now + TICK_MS;
        const values: Event[] = [];
        for (let i = from; i < to; i++) values.push(event(mine[k], i));
        return {
          partition: k,
          values,
          timestamps: values.map(() => -Infinity),
        };
      },
      nextAvailableAt(now: number): number {
        let next = Infinity;
        positions.forEach((n, k) => {
          if (n < PER_PARTITION) next = Math.min(next, Math.max(now, due[k]));
        });
        return next;
      },
      snapshotState: () => ({ positions: [...positions] }),
      restoreState(state: unknown) {
        (state as { positions: number[] }).positions.forEach((n, k) =>
          positions[k] = n
        );
      },
    };
  }
}

/** The failure-free table: `key@windowStart` → count. */
export function expectedRestoreCounts(): Map<string, number> {
  const counts = new Map<string, number>();
  for (let p = 0; p < PARTITIONS; p++) {
    for (let i = 0; i < PER_PARTITION; i++) {
      const { key, ts } = event(p, i);
      const id = `${key}@${Math.floor(ts / 10_000) * 10_000}`;
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
  }
  return counts;
}

/** The table as it is in `kv`. */
export async function readRestoreCounts(
  kv: Deno.Kv,
): Promise<Map<string, number>> {
  const rows = await readTable<Count>(kv, TABLE);
  return new Map([...rows.values()].map((row) => [row.id, row.count]));
}

/** How `main.ts` runs the job file; its history is written the same way. */
export const settings: JobSettings = {
  parallelism: 2,
  checkpointIntervalMs: 1_000,
  watermarkRecovery: "persist",
};

/**
 * Saves `count` checkpoints of the job over `kv`, one batch per partition
 * apart, then drops the job (a crash): a store with history, and
 * a table holding what those checkpoints committed. The environment is set
 * up as `main.ts` sets up a job file's (same name, storage, fingerprint).
 *
 * @throws {Error} If the job ended before `count` checkpoints.
 */
export async function writeRestoreHistory(
  kv: Deno.Kv,
  count: number,
): Promise<void> {
  const clock = new ManualClock(EPOCH);
  const env = new StreamEnvironment({
    jobName: RESTORE_COUNTS_JOB,
    parallelism: settings.parallelism,
    clock,
    watermarkRecovery: settings.watermarkRecovery,
    checkpointStorage: new KvStorage(kv, RESTORE_COUNTS_CHECKPOINTS),
  });
  restoreCounts(createJobContext(env, kv).context);
  await takeCheckpoints(env.createRuntime(), count, () => {
    clock.advance(TICK_MS);
    return Promise.resolve();
  });
}

/** The job: a job file for `main.ts`. */
export default function restoreCounts({ env, kv }: JobContext): void {
  env.fromSource(
    new PacedSource(),
    WatermarkStrategy.forBoundedOutOfOrderness<Event>(2_000)
      .withTimestampAssigner((e) => e.ts),
    "events",
  )
    .keyBy((e) => e.key)
    .window(TumblingEventTimeWindows.of(10_000))
    .aggregate<number, number, Count>(
      {
        createAccumulator: () => 0,
        add: (_e, n) => n + 1,
        getResult: (n) => n,
        merge: (a, b) => a + b,
      },
      (key, ctx, [count], out) =>
        out({ id: `${key}@${ctx.window.start}`, count }),
    )
    .sinkTo(new KvTableSink<Count>(kv, TABLE, { key: (row) => row.id }));
}
