// A job for the restore-path tests: sensor readings from a script, summed
// per sensor per 500 ms into a KV table (upserts, so any restore that runs
// to the end leaves the failure-free table), a checkpoint every 250 ms of
// processing time in KV.

import type { ManualClock } from "../../src/time/clock.ts";
import { WatermarkStrategy } from "../../src/time/watermark_strategy.ts";
import { TumblingEventTimeWindows } from "../../src/windows/tumbling.ts";
import { ScriptedSource } from "../../src/connectors/sources/scripted.ts";
import { KvTableSink, readTable } from "../../src/connectors/sinks/kv_table.ts";
import { KvStorage } from "../../src/actors/kv/kv_storage.ts";
import { CheckpointStore } from "../../src/actors/checkpoint_store.ts";
import { StreamEnvironment } from "../../src/api/stream_environment.ts";
import { type Reading, sensorReadings } from "./sensor_job.ts";

/** The job's name. */
export const SUMS_JOB = "sums";
/** Where its checkpoints are, as the command line keeps them. */
export const SUMS_CHECKPOINTS = ["weir", SUMS_JOB, "checkpoints"];
const TABLE = "sums";
// One reading every 20 ms: 2.4 s of processing time, ~9 checkpoints.
const SCRIPT = sensorReadings(120);

type Row = { id: string; total: number };

/** The table of a failure-free run: `sensor@windowStart` → sum. */
export function expectedSums(): Map<string, number> {
  const sums = new Map<string, number>();
  for (const step of SCRIPT) {
    if (!("value" in step)) continue;
    const window = Math.floor(step.value.ts / 500) * 500;
    const key = `${step.value.sensor}@${window}`;
    sums.set(key, (sums.get(key) ?? 0) + step.value.value);
  }
  return sums;
}

/** The job's table as it is in `kv`. */
export async function readSums(kv: Deno.Kv): Promise<Map<string, number>> {
  const rows = await readTable<Row>(kv, TABLE);
  return new Map([...rows.values()].map((row) => [row.id, row.total]));
}

/** The job's checkpoint store in `kv`, without log lines. */
export function sumsStore(kv: Deno.Kv): CheckpointStore {
  return new CheckpointStore(new KvStorage(kv, SUMS_CHECKPOINTS), {
    log: () => {},
  });
}

/** The raw Deno KV keys left of checkpoint `id` (its index entry too). */
export async function sumsCheckpointKeys(
  kv: Deno.Kv,
  id: number,
): Promise<Deno.KvKey[]> {
  const keys: Deno.KvKey[] = [];
  for (const prefix of [["cp", id], ["index", id]]) {
    const entries = kv.list({ prefix: [...SUMS_CHECKPOINTS, "v", ...prefix] });
    for await (const entry of entries) keys.push(entry.key);
  }
  return keys;
}

/** Builds the job over `kv`, on `clock`. */
export function sumsJob(
  kv: Deno.Kv,
  clock: ManualClock,
  options: { retainedCheckpoints?: number } = {},
): StreamEnvironment {
  const env = new StreamEnvironment({
    jobName: SUMS_JOB,
    parallelism: 2,
    clock,
    checkpointIntervalMs: 250,
    watermarkRecovery: "persist",
    checkpointStorage: new KvStorage(kv, SUMS_CHECKPOINTS),
    retainedCheckpoints: options.retainedCheckpoints,
  });
  env.fromSource(
    new ScriptedSource(SCRIPT, { partitions: 4 }),
    WatermarkStrategy.forBoundedOutOfOrderness<Reading>(300)
      .withTimestampAssigner((r) => r.ts),
    "readings",
  )
    .keyBy((r) => r.sensor)
    .window(TumblingEventTimeWindows.of(500))
    .aggregate<number, number, Row>(
      {
        createAccumulator: () => 0,
        add: (r, total) => total + r.value,
        getResult: (total) => total,
        merge: (a, b) => a + b,
      },
      (sensor, ctx, [total], out) =>
        out({ id: `${sensor}@${ctx.window.start}`, total }),
    )
    .sinkTo(new KvTableSink<Row>(kv, TABLE, { key: (row) => row.id }));
  return env;
}
