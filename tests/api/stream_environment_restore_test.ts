// StreamEnvironment.execute() on a store with history: every restore path
// (none, an older id, a corrupt latest checkpoint, all of them corrupt)
// runs to the end with the failure-free table, numbering its checkpoints
// above every id the store ever held (DESIGN "Checkpoints and recovery").

import assert from "node:assert/strict";
import { ManualClock } from "../../src/time/clock.ts";
import { WatermarkStrategy } from "../../src/time/watermark_strategy.ts";
import { TumblingEventTimeWindows } from "../../src/windows/tumbling.ts";
import { ScriptedSource } from "../../src/connectors/sources/scripted.ts";
import { KvTableSink, readTable } from "../../src/connectors/sinks/kv_table.ts";
import { KvStorage } from "../../src/actors/kv/kv_storage.ts";
import { CheckpointStore } from "../../src/actors/checkpoint_store.ts";
import { UnreadableCheckpointsError } from "../../src/actors/unreadable_checkpoints_error.ts";
import { StreamEnvironment } from "../../src/api/stream_environment.ts";
import { type Reading, sensorReadings } from "../_support/sensor_job.ts";

const SCRIPT = sensorReadings(120); // one every 20 ms: 2.4 s of processing time
const CHECKPOINTS = ["weir", "sums", "checkpoints"];
const TABLE = "sums";

type Row = { id: string; total: number };

/** The table of a failure-free run: `sensor@windowStart` → sum. */
function expectedTable(): Map<string, number> {
  const sums = new Map<string, number>();
  for (const step of SCRIPT) {
    if (!("value" in step)) continue;
    const key = `${step.value.sensor}@${Math.floor(step.value.ts / 500) * 500}`;
    sums.set(key, (sums.get(key) ?? 0) + step.value.value);
  }
  return sums;
}

async function table(kv: Deno.Kv): Promise<Map<string, number>> {
  const rows = await readTable<Row>(kv, TABLE);
  return new Map([...rows.values()].map((row) => [row.id, row.total]));
}

/** Sums per sensor per 500 ms into a KV table; a checkpoint every 250 ms. */
function job(
  kv: Deno.Kv,
  clock: ManualClock,
  retainedCheckpoints = 3,
): StreamEnvironment {
  const env = new StreamEnvironment({
    jobName: "sums",
    parallelism: 2,
    clock,
    checkpointIntervalMs: 250,
    watermarkRecovery: "persist",
    checkpointStorage: new KvStorage(kv, CHECKPOINTS),
    retainedCheckpoints,
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

/**
 * Runs the job until it has saved checkpoints 1 to `count`, then drops it
 * (a crash): the store holds that history, the table part of the output.
 */
async function history(
  kv: Deno.Kv,
  clock: ManualClock,
  count = 4,
  retainedCheckpoints = 3,
): Promise<void> {
  const runtime = job(kv, clock, retainedCheckpoints).createRuntime();
  while ((runtime.latestCheckpoint?.id ?? 0) < count) {
    if (!runtime.step()) {
      clock.set(Math.max(runtime.nextWakeup(), clock.now() + 1));
    }
    await runtime.flushCheckpoints();
  }
  assert.ok(
    (await table(kv)).size < expectedTable().size,
    "the crash leaves part of the output to do",
  );
}

/** The raw Deno KV keys left of checkpoint `id` (its index entry too). */
async function keysOf(kv: Deno.Kv, id: number): Promise<Deno.KvKey[]> {
  const keys: Deno.KvKey[] = [];
  for (const prefix of [["cp", id], ["index", id]]) {
    const entries = kv.list({ prefix: [...CHECKPOINTS, "v", ...prefix] });
    for await (const entry of entries) keys.push(entry.key);
  }
  return keys;
}

function store(kv: Deno.Kv): CheckpointStore {
  return new CheckpointStore(new KvStorage(kv, CHECKPOINTS), {
    log: () => {},
  });
}

/** One test on a fresh in-memory KV and clock. */
function kvTest(
  name: string,
  fn: (kv: Deno.Kv, clock: ManualClock) => Promise<void>,
): void {
  Deno.test(name, async () => {
    const kv = await Deno.openKv(":memory:");
    try {
      await fn(kv, new ManualClock(0));
    } finally {
      kv.close();
    }
  });
}

for (const retain of [3, 1]) {
  kvTest(
    `StreamEnvironment.execute({ restore: "none" }) on a store with history runs to the end, numbering checkpoints above the store's (retaining ${retain})`,
    async (kv, clock) => {
      await history(kv, clock, 4, retain);
      const runtime = await job(kv, clock, retain).execute({ restore: "none" });
      assert.deepEqual(await table(kv), expectedTable());
      assert.ok(
        runtime.latestCheckpoint!.id > 4,
        `${runtime.latestCheckpoint}`,
      );
      assert.equal(await store(kv).highestId(), runtime.latestCheckpoint!.id);
    },
  );
}

kvTest(
  "StreamEnvironment.execute({ restore: id }) of an older checkpoint runs to the end, numbering checkpoints above the store's",
  async (kv, clock) => {
    await history(kv, clock, 4);
    assert.deepEqual((await store(kv).list()).map((c) => c.id), [2, 3, 4]);
    const runtime = await job(kv, clock).execute({ restore: 2 });
    assert.deepEqual(await table(kv), expectedTable());
    const ids = (await store(kv).list()).map((c) => c.id);
    assert.ok(ids.at(-1)! > 4, ids.join(" "));
    assert.equal(runtime.latestCheckpoint!.id, ids.at(-1));
    for (const id of [2, 3, 4]) assert.deepEqual(await keysOf(kv, id), []);
  },
);

kvTest(
  "StreamEnvironment.createRuntime() without findCheckpoint() numbers its checkpoints above the store's when run",
  async (kv, clock) => {
    await history(kv, clock, 4);
    const runtime = job(kv, clock).createRuntime();
    await runtime.run();
    assert.deepEqual(await table(kv), expectedTable());
    assert.ok(runtime.latestCheckpoint!.id > 4);
  },
);

for (
  const [damage, spoil] of [
    [
      "a manifest overwritten with garbage",
      (kv: Deno.Kv, id: number) =>
        kv.set([...CHECKPOINTS, "v", "cp", id, "m"], "garbage"),
    ],
    [
      "a snapshot deleted",
      (kv: Deno.Kv, id: number) =>
        new KvStorage(kv, CHECKPOINTS).delete([
          "cp",
          id,
          "s",
          "sums/source-0/0",
        ]),
    ],
  ] as const
) {
  kvTest(
    `StreamEnvironment.execute() skips a latest checkpoint with ${damage} for the previous one, and runs to the end, twice`,
    async (kv, clock) => {
      await history(kv, clock, 4);
      await spoil(kv, 4);
      const first = await job(kv, clock).execute();
      assert.deepEqual(await table(kv), expectedTable());
      assert.ok(first.latestCheckpoint!.id > 4);
      // Its saves deleted the corrupt checkpoint; a later start restores
      // the newest again.
      assert.deepEqual(await keysOf(kv, 4), []);
      const again = await job(kv, clock).execute();
      assert.deepEqual(await table(kv), expectedTable());
      assert.ok(again.latestCheckpoint!.id >= first.latestCheckpoint!.id);
    },
  );
}

kvTest(
  'StreamEnvironment.execute() refuses a store whose every manifest is garbage, naming them; execute({ restore: "none" }) then runs to the end',
  async (kv, clock) => {
    await history(kv, clock, 4);
    const before = await table(kv);
    for (const id of [2, 3, 4]) {
      await kv.set([...CHECKPOINTS, "v", "cp", id, "m"], "garbage");
    }
    await assert.rejects(job(kv, clock).execute(), (error: unknown) => {
      assert.ok(error instanceof UnreadableCheckpointsError);
      assert.deepEqual(error.checkpoints.map((c) => c.id), [4, 3, 2]);
      assert.match(
        error.message,
        /job 'sums' .*checkpoint 4 \(its manifest cannot be read .*--restore none/,
      );
      return true;
    });
    assert.deepEqual(await table(kv), before, "nothing ran");
    const runtime = await job(kv, clock).execute({ restore: "none" });
    assert.deepEqual(await table(kv), expectedTable());
    const ids = (await store(kv).list()).map((c) => c.id);
    assert.ok(ids.every((id) => id > 4), ids.join(" "));
    assert.equal(runtime.latestCheckpoint!.id, ids.at(-1));
    for (const id of [2, 3, 4]) assert.deepEqual(await keysOf(kv, id), []);
  },
);
