// A sink's final transaction reaches the external system only after the
// step that finished the sink subtask is committed: a worker whose commit
// is refused by the lease check (fenced) has committed nothing outside.
import assert from "node:assert/strict";
import { ManualClock } from "../../../src/time/clock.ts";
import { MemoryStorage } from "../../../src/actors/local/memory_storage.ts";
import type { ScriptStep } from "../../../src/connectors/sources/scripted.ts";
import { ExternalTable } from "../../_support/two_phase_sink.ts";
import { type Reading, sensorJob } from "../../_support/sensor_job.ts";
import { recordingKv } from "../../_support/recording_kv.ts";

type Tx = { subtask: number; checkpointId: number; values: unknown[] };
class RecordingTable extends ExternalTable<string> {
  readonly commits: { tx: Tx; by: string }[] = [];
  by = "";
  override commit(tx: Tx): void {
    this.commits.push({ tx, by: this.by });
    super.commit(tx);
  }
}

function readings(count: number): ScriptStep<Reading>[] {
  const steps: ScriptStep<Reading>[] = [];
  for (let i = 0; i < count; i++) {
    const at = i * 20;
    steps.push({
      at,
      partition: i % 4,
      value: { sensor: i % 7, value: i, ts: Math.max(0, at - (i * 37) % 150) },
    });
  }
  return steps;
}

Deno.test("a fenced worker commits nothing to the sink's external system (the final transaction included)", async () => {
  using kv = await Deno.openKv(":memory:");
  const clock = new ManualClock(0);
  const table = new RecordingTable();
  const script = readings(120);
  const job = () =>
    sensorJob({
      storage: new MemoryStorage(),
      clock,
      mode: "persist",
      table,
      script,
      partitions: 4,
      parallelism: 2,
    });
  const b = job().createKvRuntime({ kv, workerId: "b", leaseMs: 1_000 });
  const base = ["weir", "sensors", "kvrt", "a"];
  let paused:
    | { actor: string; finalTxsBeforeCommit: Tx[]; ok?: boolean }
    | null = null;
  const rec = recordingKv(kv, {
    async beforeWrite(write) {
      if (paused !== null || write.kind !== "atomic") return;
      // The step in which sink subtask window-1/i finishes commits its meta
      // with `finished: true` (KvStorage: a tag byte, then superjson text).
      const fin = write.written.find(([k, v]) =>
        k.length === base.length + 3 && base.every((p, i) => k[i] === p) &&
        String(k[base.length]).startsWith("sensors/window-1/") &&
        k.at(-1) === "meta" && v instanceof Uint8Array &&
        new TextDecoder().decode(v.subarray(1)).includes('"finished":true')
      )?.[0];
      if (fin === undefined) return;
      const actor = String(fin[base.length]);
      const subtask = Number(actor.at(-1));
      // The step's commit is not sent yet: nothing of the step is durable.
      paused = {
        actor,
        finalTxsBeforeCommit: table.commits.filter((c) =>
          c.by === "a" && c.tx.subtask === subtask &&
          c.tx.checkpointId === Number.MAX_SAFE_INTEGER
        ).map((c) => c.tx),
      };
      // a pauses here past its leases; b takes over and runs the job out.
      clock.set(clock.now() + 1_001);
      table.by = "b";
      for (let round = 0; round < 10_000 && !b.finished; round++) {
        if (await b.tick()) continue;
        if (b.finished) break;
        clock.set(Math.max(b.nextWakeup(), clock.now() + 1));
      }
      table.by = "a";
      (paused as { write?: unknown }).write = write;
    },
  });
  const a = job().createKvRuntime({
    kv: rec.kv,
    workerId: "a",
    leaseMs: 1_000,
  });
  table.by = "a";
  const origError = console.error;
  console.error = () => {};
  try {
    for (let round = 0; round < 10_000 && paused === null; round++) {
      if (await a.tick()) continue;
      if (a.finished) break;
      clock.set(Math.max(a.nextWakeup(), clock.now() + 1));
    }
  } finally {
    console.error = origError;
  }
  assert.ok(paused !== null, "a reached the finishing step of a sink subtask");
  const p = paused as unknown as {
    actor: string;
    finalTxsBeforeCommit: Tx[];
    write: { ok?: boolean };
  };
  assert.equal(
    p.write.ok,
    false,
    "a's finishing step was fenced (refused by its lease check)",
  );
  assert.ok(b.finished);
  // The documented guarantee: a crash before the commit changes nothing, and
  // a fenced worker commits nothing: a sink that finished when its input
  // ended writes its final transaction only after the step is committed.
  assert.deepEqual(
    p.finalTxsBeforeCommit,
    [],
    `${p.actor}: worker a committed the final transaction to the external table before its step commit (which was then refused)`,
  );
});
