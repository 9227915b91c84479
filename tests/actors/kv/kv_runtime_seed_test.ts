// Seeding a job's actors from a checkpoint is fenced by the start lease: a
// worker whose seeding outlasts the lease must not overwrite the actors of
// the worker that took the lease over, initialised the job and ran it.
// (Found by a review.)
import assert from "node:assert/strict";
import { ManualClock } from "../../../src/time/clock.ts";
import { WatermarkStrategy } from "../../../src/time/watermark_strategy.ts";
import { ScriptedSource } from "../../../src/connectors/sources/scripted.ts";
import { StreamEnvironment } from "../../../src/api/stream_environment.ts";
import { ExternalTable, twoPhaseSink } from "../../_support/two_phase_sink.ts";
import { recordingKv } from "../../_support/recording_kv.ts";
import type { KvRuntime } from "../../../src/actors/kv/kv_runtime.ts";
import type { CompletedCheckpoint } from "../../../src/actors/checkpoint.ts";

function job(clock: ManualClock, table: ExternalTable<number>) {
  const env = new StreamEnvironment({
    jobName: "seed",
    parallelism: 1,
    clock,
    checkpointIntervalMs: 100,
  });
  env.fromSource(
    new ScriptedSource(
      Array.from({ length: 40 }, (_, i) => ({ at: i * 100, value: i })),
    ),
    WatermarkStrategy.forMonotonousTimestamps<number>().withTimestampAssigner((
      n,
    ) => n),
    "n",
  ).keyBy((n) => n % 2).process({
    processElement: (n: number, _c: unknown, out: (v: number) => void) =>
      out(n),
  } as never).sinkTo(twoPhaseSink(table) as never);
  return env;
}

async function drive(w: KvRuntime, clock: ManualClock, until = () => false) {
  for (let i = 0; i < 20_000 && !w.finished && !until(); i++) {
    if (await w.tick()) continue;
    if (w.finished) break;
    clock.set(Math.max(w.nextWakeup(), clock.now() + 1));
  }
}

Deno.test("A first start from a checkpoint whose seeding outlives its start lease writes nothing more: no job runs twice", async () => {
  // A checkpoint of this job (at the first completed checkpoint).
  let checkpoint: CompletedCheckpoint;
  {
    using kv0 = await Deno.openKv(":memory:");
    const clock0 = new ManualClock(0);
    const w0 = job(clock0, new ExternalTable()).createKvRuntime({
      kv: kv0,
      workerId: "w0",
    });
    await drive(w0, clock0, () => w0.latestCheckpoint !== null);
    checkpoint = w0.latestCheckpoint!;
    assert.ok(checkpoint);
  }
  using kv = await Deno.openKv(":memory:");
  const clock = new ManualClock(0);
  const log: string[] = [];
  let who = "b";
  class T extends ExternalTable<number> {
    override commit(
      tx: { subtask: number; checkpointId: number; values: unknown[] },
    ) {
      log.push(
        `${who}:${tx.subtask}/${tx.checkpointId}:[${tx.values.join(",")}]`,
      );
      // As KvAppendSink: a transaction's keys are (checkpoint, subtask); a
      // repeat overwrites them (an idempotent put).
      byKey.set(`${tx.subtask}/${tx.checkpointId}`, tx.values as number[]);
    }
  }
  const byKey = new Map<string, number[]>();
  const table = new T();
  const b = job(clock, table).createKvRuntime({
    kv,
    workerId: "b",
    leaseMs: 100,
  }, checkpoint);
  let paused = false;
  const rec = recordingKv(kv, {
    async beforeWrite(write) {
      if (paused || write.kind !== "atomic") return;
      if (!write.keys.some((k) => k.at(-1) === "state")) return;
      paused = true;
      // a's seeding is slow (a big checkpoint): its start lease expires;
      // b takes it over, seeds, records the job and runs it to the end.
      clock.set(clock.now() + 101);
      await drive(b, clock);
      who = "a";
    },
  });
  const a = job(clock, table).createKvRuntime({
    kv: rec.kv,
    workerId: "a",
    leaseMs: 100,
  }, checkpoint);
  const origError = console.error;
  console.error = () => {};
  try {
    who = "a";
    await drive(a, clock);
    await drive(b, clock);
  } finally {
    console.error = origError;
  }
  assert.ok(paused && b.finished && a.finished);
  const restoredFrom = checkpoint.id;
  console.log(log.join("\n"));
  console.log(await a.status());
  console.log(
    "checkpoint",
    restoredFrom,
    "rows",
    table.rows().length,
    table.rows().join(" "),
  );
  // Exactly-once from the checkpoint: each record after it once at most.
  const rows = [...byKey.values()].flat().map(String);
  assert.equal(new Set(rows).size, rows.length, "no record is committed twice");
});
