// The KV runtime's dead letters are exactly once with the step that set
// them aside: they are committed in the step's own atomic write
// (the actor's outbox), then copied to the job's dead-letter log. A worker
// that crashes before any of its writes leaves the job to another, which
// finishes it with every other record once and the letter in the log
// once; a flood of letters too large for one commit goes to the log first.

import assert from "node:assert/strict";
import { ManualClock } from "../../../src/time/clock.ts";
import { WatermarkStrategy } from "../../../src/time/watermark_strategy.ts";
import { ScriptedSource } from "../../../src/connectors/sources/scripted.ts";
import { StreamEnvironment } from "../../../src/api/stream_environment.ts";
import { KvRuntime } from "../../../src/actors/kv/kv_runtime.ts";
import { KvStorage } from "../../../src/actors/kv/kv_storage.ts";
import { DeadLetterLog } from "../../../src/actors/dead_letter_log.ts";
import type { DeadLetter } from "../../../src/runtime/dead_letter.ts";
import { ExternalTable, twoPhaseSink } from "../../_support/two_phase_sink.ts";
import { recordingKv } from "../../_support/recording_kv.ts";

const LEASE_MS = 1_000;

/** Numbers 0-`count - 1`; those `poison` picks have no key. */
function worker(
  kv: Deno.Kv,
  id: string,
  clock: ManualClock,
  table: ExternalTable<number>,
  options: {
    count: number;
    poison: (n: number) => boolean;
    at?: (n: number) => number;
  },
): KvRuntime {
  const env = new StreamEnvironment({
    jobName: "letters",
    parallelism: 1,
    clock,
    checkpointIntervalMs: 100,
  });
  env.fromSource(
    new ScriptedSource(
      Array.from({ length: options.count }, (_, i) => ({
        at: options.at?.(i) ?? i * 20,
        value: i,
      })),
    ),
    WatermarkStrategy.forMonotonousTimestamps<number>()
      .withTimestampAssigner((n) => n),
    "numbers",
  ).keyBy((n) => (options.poison(n) ? null : n % 2) as number)
    .process<number, undefined>({
      processElement(n, _ctx, out) {
        out(n);
      },
    }).sinkTo(twoPhaseSink(table));
  return env.createKvRuntime({ kv, workerId: id, leaseMs: LEASE_MS });
}

async function drive(
  runtime: KvRuntime,
  clock: ManualClock,
  until: () => boolean = () => false,
): Promise<void> {
  for (let round = 0; !until() && !runtime.finished; round++) {
    assert.ok(round < 10_000, `worker ${runtime.workerId} must finish`);
    if (await runtime.tick()) continue;
    clock.set(Math.max(runtime.nextWakeup(), clock.now() + 1));
  }
}

function quiet<T>(run: () => Promise<T>): Promise<T> {
  const error = console.error;
  console.error = () => {};
  return run().finally(() => console.error = error);
}

class SimulatedCrash extends Error {
  constructor(readonly write: number) {
    super(`simulated process crash before write ${write}`);
    this.name = "SimulatedCrash";
  }
}

const JOB = { count: 12, poison: (n: number) => n === 7 };
const OTHERS = [0, 1, 2, 3, 4, 5, 6, 8, 9, 10, 11].map((n) => JSON.stringify(n))
  .sort();

Deno.test("A step's dead letter is committed with the step: a crash before any write of a run loses and duplicates none, once a new worker takes over", async () => {
  // A run without failures, to number its writes.
  const reference = await (async () => {
    using kv = await Deno.openKv(":memory:");
    const clock = new ManualClock(0);
    const table = new ExternalTable<number>();
    const recorded = recordingKv(kv);
    const runtime = worker(recorded.kv, "w0", clock, table, JOB);
    await quiet(() => drive(runtime, clock));
    assert.deepEqual(table.rows(), OTHERS);
    assert.equal((await runtime.deadLetters.list()).length, 1);
    return recorded.writes;
  })();
  // The step that set the record aside wrote its letter in its outbox.
  const outbox = reference.filter((w) =>
    w.keys.some((key) => key.includes("dl"))
  );
  assert.ok(outbox.length >= 2, "written with the step, deleted once copied");
  assert.ok(
    outbox[0].keys.some((key) => key.at(-1) === "meta"),
    "in the step's own commit",
  );

  async function crashBefore(n: number): Promise<void> {
    using kv = await Deno.openKv(":memory:");
    const clock = new ManualClock(0);
    const table = new ExternalTable<number>();
    let crashed = false;
    const crashing = recordingKv(kv, {
      beforeWrite(write) {
        if (write.n >= n) {
          crashed = true;
          throw new SimulatedCrash(n);
        }
      },
    });
    const dead = worker(crashing.kv, "w0", clock, table, JOB);
    try {
      await quiet(() => drive(dead, clock, () => crashed));
    } catch (error) {
      if (!(error instanceof SimulatedCrash)) throw error;
    }
    assert.ok(crashed, `the run reached write ${n}`);
    clock.set(clock.now() + LEASE_MS + 1);
    const heir = worker(kv, "w1", clock, table, JOB);
    await quiet(() => drive(heir, clock));
    assert.equal(heir.finished, true, `crash before write ${n}`);
    assert.deepEqual(table.rows(), OTHERS, `crash before write ${n}`);
    const letters = await heir.deadLetters.list();
    assert.deepEqual(
      letters.map((l) => [l.value, l.reason]),
      [[7, "dead-letter"]],
      `crash before write ${n}`,
    );
    const left = await Array.fromAsync(
      kv.list({ prefix: ["weir", "letters", "kvrt"] }),
    );
    assert.deepEqual(
      left.filter((e) => e.key.includes("dl")).map((e) => e.key),
      [],
      `outbox emptied after a crash before write ${n}`,
    );
  }

  const all = reference.map((w) => w.n);
  for (let i = 0; i < all.length; i += 8) {
    const runs = await Promise.allSettled(all.slice(i, i + 8).map(crashBefore));
    for (const run of runs) if (run.status === "rejected") throw run.reason;
  }
});

Deno.test("A step that sets aside more letters than one commit should hold writes them to the log first, each once", async () => {
  using kv = await Deno.openKv(":memory:");
  const clock = new ManualClock(0);
  const table = new ExternalTable<number>();
  // 400 records read in one step, every third without a key: 134 letters.
  const flood = {
    count: 400,
    poison: (n: number) => n % 3 === 0,
    at: () => 0,
  };
  const recorded = recordingKv(kv);
  const runtime = worker(recorded.kv, "w0", clock, table, flood);
  await quiet(() => drive(runtime, clock));
  assert.equal(runtime.finished, true);
  const letters = await runtime.deadLetters.list();
  assert.equal(letters.length, 134);
  assert.equal(new Set(letters.map((l) => l.id)).size, 134);
  assert.equal(runtime.deadLetterCount, 134);
  assert.equal(table.rows().length, 400 - 134);
  // Written to the log ahead of the step, in batches; none in an outbox.
  const dl = (key: Deno.KvKey) => key.includes("dl");
  assert.equal(recorded.writes.filter((w) => w.keys.some(dl)).length, 0);
  const direct = recorded.writes.filter((w) =>
    w.keys.some((key) => key.includes("dead-letters"))
  );
  assert.deepEqual(direct.map((w) => w.keys.length), [50, 50, 34]);
  // No commit went over Deno KV's limits.
  for (const write of recorded.writes) {
    assert.ok(write.mutations <= 1_000, `write ${write.n}`);
    assert.ok(write.writtenKeyBytes <= 81_920, `write ${write.n}`);
  }
});

Deno.test("KvRuntime.reset() copies the letters left in the actors' outboxes to the dead-letter log before it deletes them", async () => {
  using kv = await Deno.openKv(":memory:");
  const letter = (id: string): DeadLetter => ({
    id,
    operator: "Map",
    subtask: 0,
    value: id,
    timestamp: 1,
    error: { name: "Error", message: "bad" },
    position: "partition p, offset 3",
    reason: "dead-letter",
    at: 0,
  });
  // A worker stopped between a step's commit and the copy of its letters.
  for (
    const [actor, ids] of [["letters/map-1/0", ["a", "b"]], ["x/y/1", ["c"]]]
  ) {
    await new KvStorage(kv, ["weir", "letters", "kvrt", "a", actor as string])
      .atomic([
        ...(ids as string[]).map((id) => ({
          type: "put" as const,
          key: ["dl", id],
          value: letter(id),
        })),
        { type: "put", key: ["meta"], value: { step: 1 } },
      ]);
  }
  const deleted = await KvRuntime.reset(kv, "letters");
  assert.ok(deleted >= 5);
  const log = new DeadLetterLog(
    new KvStorage(kv, ["weir", "letters", "dead-letters"]),
  );
  assert.deepEqual((await log.list()).map((l) => l.id), ["a", "b", "c"]);
  assert.deepEqual(
    await Array.fromAsync(kv.list({ prefix: ["weir", "letters", "kvrt"] })),
    [],
  );
});
