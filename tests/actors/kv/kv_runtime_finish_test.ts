// A sink's final transaction must survive its owner dying between the step
// commit that finished the sink and the sink's finish(): the job is over
// only once every actor's meta says its sinks are done, so a survivor
// takes the sink over and finishes it. (Found by a review.)
import assert from "node:assert/strict";
import { ManualClock } from "../../../src/time/clock.ts";
import { WatermarkStrategy } from "../../../src/time/watermark_strategy.ts";
import { ScriptedSource } from "../../../src/connectors/sources/scripted.ts";
import { StreamEnvironment } from "../../../src/api/stream_environment.ts";
import type { Sink, SinkWriter } from "../../../src/runtime/sink.ts";
import type { KvRuntime } from "../../../src/actors/kv/kv_runtime.ts";

const committed = new Map<string, number[]>();
let hung = false;
// Resolves when the sink's finish() hangs: the moment the worker "dies".
let markHung = () => {};
const hangs = new Promise<"hang">((resolve) =>
  markHung = () => resolve("hang")
);

function sink(hang: boolean): Sink<number> {
  return {
    name: "tp",
    createWriter(subtask): SinkWriter<number> {
      let staged: number[] = [];
      let pending: { id: number; values: number[] }[] = [];
      const commitUpTo = (id: number) => {
        for (const tx of pending) {
          if (tx.id <= id) committed.set(`${subtask}/${tx.id}`, tx.values);
        }
        pending = pending.filter((tx) => tx.id > id);
      };
      return {
        write(values) {
          staged.push(...values);
        },
        snapshotState(id) {
          pending.push({ id, values: staged });
          staged = [];
          return pending.map((t) => ({ ...t, values: [...t.values] }));
        },
        commit(id) {
          commitUpTo(id);
        },
        restoreState(state) {
          pending = state as typeof pending;
          staged = [];
        },
        finish() {
          if (hang) {
            hung = true; // the process dies here
            markHung();
            return new Promise<void>(() => {});
          }
          pending.push({ id: Number.MAX_SAFE_INTEGER, values: staged });
          staged = [];
          commitUpTo(Infinity);
        },
      };
    },
  };
}

function job(clock: ManualClock, hang: boolean) {
  const env = new StreamEnvironment({ jobName: "fin", parallelism: 1, clock });
  env.fromSource(
    new ScriptedSource(
      Array.from({ length: 10 }, (_, i) => ({ at: i * 10, value: i })),
    ),
    WatermarkStrategy.forMonotonousTimestamps<number>()
      .withTimestampAssigner((n) => n),
    "numbers",
  ).keyBy((n) => n % 2).process<number, undefined>({
    processElement: (n, _c, out) => out(n * 10),
  }).sinkTo(sink(hang));
  return env;
}

Deno.test("A survivor does not call the job finished before a dead worker's finished sink wrote its final transaction", async () => {
  using kv = await Deno.openKv(":memory:");
  const clock = new ManualClock(0);
  const a: KvRuntime = job(clock, true).createKvRuntime({
    kv,
    workerId: "a",
    leaseMs: 1_000,
  });
  // a runs everything until its sink's finish() (after the finishing step's
  // commit) never returns: a died there.
  for (let i = 0; i < 1000 && !hung; i++) {
    const t = a.tick();
    // A tick that reached the hanging finish() never resolves.
    const r = await Promise.race([t, hangs]);
    if (r === "hang") break;
    if (r) continue;
    clock.set(Math.max(a.nextWakeup(), clock.now() + 1));
  }
  assert.ok(hung, "a reached the sink's finish");
  const b = job(clock, false).createKvRuntime({
    kv,
    workerId: "b",
    leaseMs: 1_000,
  });
  for (let i = 0; i < 10_000 && !b.finished; i++) {
    if (await b.tick()) continue;
    if (b.finished) break;
    clock.set(Math.max(b.nextWakeup(), clock.now() + 1));
  }
  assert.ok(b.finished, "b reports the job finished");
  const rows = [...committed.values()].flat().sort((x, y) => x - y);
  assert.deepEqual(
    rows,
    Array.from({ length: 10 }, (_, i) => i * 10),
    "every record reached the sink once b reported the job finished",
  );
});
