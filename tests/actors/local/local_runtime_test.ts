import assert from "node:assert/strict";
import { ManualClock } from "../../../src/time/clock.ts";
import { WatermarkStrategy } from "../../../src/time/watermark_strategy.ts";
import {
  ScriptedSource,
  type ScriptStep,
} from "../../../src/connectors/sources/scripted.ts";
import { CollectSink } from "../../../src/connectors/sinks/collect.ts";
import { TumblingEventTimeWindows } from "../../../src/windows/tumbling.ts";
import { StreamEnvironment } from "../../../src/api/stream_environment.ts";
import { LocalRuntime } from "../../../src/actors/local/local_runtime.ts";
import type { SubtaskStatus } from "../../../src/actors/actor_runtime.ts";
import { CheckpointStore } from "../../../src/actors/checkpoint_store.ts";
import type { CompletedCheckpoint } from "../../../src/actors/checkpoint.ts";
import { MemoryStorage } from "../../../src/actors/local/memory_storage.ts";
import { decodeStored, type Encoded } from "../../../src/actors/_codec.ts";
import { encodedSnapshots } from "../../../src/actors/_encoded_checkpoint.ts";
import { partRows } from "../../../src/actors/_snapshot_parts.ts";
import type { Source, SourceBatch } from "../../../src/runtime/source.ts";

function statusOf(
  runtime: LocalRuntime,
  operator: string,
  subtask = 0,
): SubtaskStatus {
  return runtime.status().find((s) =>
    s.operator === operator && s.subtask === subtask
  )!;
}

Deno.test("LocalRuntime: a stalled consumer holds its producer back, bounds every mailbox, and pauses the idleness clock", async () => {
  const clock = new ManualClock(0);
  const capacity = 4;
  const env = new StreamEnvironment({
    jobName: "bp",
    clock,
    mailboxCapacity: capacity,
  });
  const script: ScriptStep<number>[] = Array.from(
    { length: 50_000 },
    (_, i) => ({ at: 0, value: i, timestamp: i }),
  );
  const sink = new CollectSink<number>();
  env.fromSource(
    new ScriptedSource(script),
    WatermarkStrategy.forMonotonousTimestamps<number>().withIdleness(1_000),
    "numbers",
  ).sinkTo(sink).setParallelism(2);
  const runtime = env.createRuntime();
  runtime.suspend("bp/sink-1/0");
  runtime.suspend("bp/sink-1/1");
  let maxDepth = 0;
  for (let t = 0; t <= 10_000; t += 100) {
    clock.set(t);
    runtime.runUntilIdle();
    for (const status of runtime.status()) {
      maxDepth = Math.max(maxDepth, status.mailboxDepth);
    }
    const source = statusOf(runtime, "source-0");
    assert.equal(
      source.idle,
      false,
      `source went idle at ${t} while back-pressured`,
    );
  }
  // One step may add a batch and a watermark beyond the bound.
  assert.ok(maxDepth <= capacity + 2, `max mailbox depth ${maxDepth}`);
  // Reading stopped: at most the bounded mailboxes' worth of 1024-record polls.
  const read = statusOf(runtime, "source-0").recordsOut;
  assert.ok(
    read <= (capacity + 2) * 2 * 1_024,
    `the source read ${read} records`,
  );
  assert.equal(statusOf(runtime, "source-0").paused, true);
  runtime.resume("bp/sink-1/0");
  runtime.resume("bp/sink-1/1");
  await runtime.run();
  assert.equal(sink.values.length, 50_000);
  assert.deepEqual(
    [...sink.values].sort((a, b) => a - b),
    script.map((s) => (s as { value: number }).value),
  );
});

Deno.test("LocalRuntime: watermark alignment keeps a fast source within the drift, and an idle source drops out of the group", () => {
  const clock = new ManualClock(0);
  const env = new StreamEnvironment({ jobName: "align", clock });
  const maxDriftMs = 5_000;
  // Source A runs 10x faster in event time than source B.
  const fast: ScriptStep<number>[] = Array.from(
    { length: 400 },
    (_, i) => ({ at: i * 10, value: i * 100 }),
  );
  const slow: ScriptStep<number>[] = Array.from(
    { length: 100 },
    (_, i) => ({ at: i * 10, value: i * 10 }),
  );
  slow.push({ at: 100_000, value: 1_000_000 }); // silent, not ended, after 1 s
  const strategy = WatermarkStrategy.forMonotonousTimestamps<number>()
    .withTimestampAssigner((n) => n)
    .withIdleness(300)
    .withWatermarkAlignment("g", maxDriftMs, 100);
  const a = env.fromSource(new ScriptedSource(fast), strategy, "fast");
  const b = env.fromSource(new ScriptedSource(slow), strategy, "slow");
  a.union(b).sinkTo(new CollectSink());
  const runtime = env.createRuntime();
  let held = false;
  for (let t = 0; t <= 1_000; t += 10) {
    clock.set(t);
    runtime.runUntilIdle();
    const fastWm = statusOf(runtime, "source-0").inputWatermark;
    const slowWm = statusOf(runtime, "source-1").inputWatermark;
    if (slowWm === -Infinity) continue;
    // One periodic interval (200 ms) of reading can overshoot: 20 records of 100 ms.
    assert.ok(
      fastWm <= slowWm + maxDriftMs + 2_000,
      `at ${t}: fast ${fastWm}, slow ${slowWm}`,
    );
    held ||= statusOf(runtime, "source-0").paused;
  }
  assert.ok(held, "the fast source was paused by alignment");
  for (let t = 1_010; t <= 4_000; t += 10) {
    clock.set(t);
    runtime.runUntilIdle();
  }
  assert.equal(statusOf(runtime, "source-1").idle, true);
  assert.ok(
    statusOf(runtime, "source-0").inputWatermark >= 39_000,
    `fast source free once the slow one is idle: ${
      statusOf(runtime, "source-0").inputWatermark
    }`,
  );
});

Deno.test("LocalRuntime reports per-subtask watermarks, counts and lag", async () => {
  const clock = new ManualClock(10_000);
  const env = new StreamEnvironment({ jobName: "m", clock });
  env.fromCollection([1, 2, 3], { timestampOf: (n) => n }).map((n) => n * 2)
    .sinkTo(new CollectSink());
  const runtime = await env.execute();
  const [status] = runtime.status();
  assert.equal(status.id, "m/source-0/0");
  assert.equal(status.recordsIn, 3);
  assert.equal(status.outputWatermark, Infinity);
  assert.equal(status.watermarkLagMs, -Infinity);
  assert.equal(runtime.finished, true);
});

Deno.test("LocalRuntime.suspend() rejects an unknown actor id", () => {
  const env = new StreamEnvironment({ jobName: "x", clock: new ManualClock() });
  env.fromCollection([1]).sinkTo(new CollectSink());
  assert.throws(() => env.createRuntime().suspend("x/nope/0"), {
    name: "RangeError",
    message: /'actorId'.*x\/nope\/0/,
  });
});

Deno.test("LocalRuntime: a generator's gauge and the window's late-record gauge appear in the subtask status", async () => {
  const clock = new ManualClock(50_000);
  const env = new StreamEnvironment({ jobName: "g", clock });
  const strategy = WatermarkStrategy.forGenerator<number>((ctx) => {
    let max = -Infinity;
    ctx.metrics.gauge("watermarkLagMs", () => ctx.clock.now() - max);
    return {
      onEvent(_n, ts) {
        max = Math.max(max, ts);
      },
      onPeriodicEmit(out) {
        out.emitWatermark(max);
      },
    };
  }).withTimestampAssigner((n) => n);
  env.fromSource(
    new ScriptedSource([{ at: 50_000, value: 42_000 }, {
      at: 50_500,
      value: 1_000,
    }]),
    strategy,
    "n",
  ).keyBy(() => 0).window(TumblingEventTimeWindows.of(1_000)).reduce((a, b) =>
    a + b
  )
    .sinkTo(new CollectSink());
  const runtime = env.createRuntime();
  runtime.runUntilIdle(); // reads 42 000 at 50 000
  clock.set(50_400);
  runtime.runUntilIdle(); // the periodic watermark at 50 200 made 42 000 the watermark
  assert.equal(
    statusOf(runtime, "source-0").gauges.watermarkLagMs,
    50_400 - 42_000,
  );
  await runtime.run();
  assert.equal(statusOf(runtime, "window-1").gauges.numLateRecordsDropped, 1);
});

/** Numbers 0, 1, 2... one per poll, then it stays open; `make` builds each record. */
function oneByOne<T>(count: number, make: (n: number) => T): Source<T> {
  return {
    name: "one-by-one",
    createReader: () => {
      let position = 0;
      return {
        partitions: ["one-by-one-0"],
        finished: false,
        poll(): SourceBatch<T> | null {
          if (position >= count) return null;
          const n = position++;
          return { partition: 0, values: [make(n)], timestamps: [n] };
        },
        nextAvailableAt: (now: number) => position < count ? now : Infinity,
        snapshotState: () => ({ position }),
        restoreState(state: unknown) {
          position = (state as { position: number }).position;
        },
      };
    },
  };
}

/** A job buffering every record in one never-firing window. */
function bufferingJob<T>(jobName: string, source: Source<T>) {
  const env = new StreamEnvironment({
    jobName,
    clock: new ManualClock(0),
    autoWatermarkIntervalMs: 0,
  });
  env.fromSource(
    source,
    WatermarkStrategy.noWatermarks<T>().withTimestampAssigner((_, ts) => ts),
    "numbers",
  )
    .keyBy(() => 0)
    .window(TumblingEventTimeWindows.of(1_000_000_000))
    .process(function count(_key, _context, elements, out) {
      out(elements.length);
    })
    .sinkTo(new CollectSink());
  return env.getJobGraph();
}

Deno.test("LocalRuntime saves each snapshot as taken at the barrier, whatever the operators do before the save", async () => {
  const saved: CompletedCheckpoint[] = [];
  const runtime = new LocalRuntime(
    bufferingJob("copy", oneByOne(20, (n) => ({ n }))),
    {
      clock: new ManualClock(0),
      checkpointStore: {
        save: (checkpoint) => {
          saved.push(checkpoint);
          return Promise.resolve();
        },
      },
    },
  );
  for (let i = 0; i < 12; i++) runtime.step();
  const id = runtime.triggerCheckpoint();
  runtime.runUntilIdle();
  // The window's contents keep growing before the checkpoint is saved.
  while (runtime.step());
  assert.equal(statusOf(runtime, "source-0").recordsOut, 20);
  await runtime.flushCheckpoints();

  assert.equal(saved.length, 1);
  assert.equal(saved[0].id, id);
  assert.equal(runtime.latestCheckpoint, saved[0]);
  const { subtasks } = saved[0];
  const source = subtasks["copy/source-0/0"] as {
    reader: { position: number };
  };
  const window = subtasks["copy/window-1/0"] as {
    operators: Array<{ slots?: Array<{ contents?: unknown[] }> } | null>;
  };
  const buffered = window.operators.flatMap((op) => op?.slots ?? [])
    .reduce((sum, slot) => sum + (slot.contents?.length ?? 0), 0);
  assert.ok(source.reader.position < 20);
  assert.equal(buffered, source.reader.position);
});

Deno.test("LocalRuntime names the actor whose snapshot cannot be structured-cloned", () => {
  const runtime = new LocalRuntime(
    bufferingJob("fn", oneByOne(3, (n) => ({ n, f: () => n }))),
    { clock: new ManualClock(0) },
  );
  runtime.step();
  runtime.triggerCheckpoint();
  assert.throws(() => runtime.runUntilIdle(), {
    name: "TypeError",
    message:
      /Cannot checkpoint actor 'fn\/window-1\/0' as its snapshot must be structured-cloneable/,
  });
});

/** A record of the keyed job: a key, a count and a timestamp. */
interface Count {
  key: number;
  n: number;
  ts: number;
}

/** Reads `records` in batches, never beyond `gate.open` records. */
function gated(records: readonly Count[], gate: { open: number }) {
  return {
    name: "gated",
    createReader: () => {
      let position = 0;
      const limit = () => Math.min(records.length, gate.open);
      return {
        partitions: ["gated-0"],
        get finished() {
          return position >= records.length;
        },
        poll(_now: number, maxRecords: number): SourceBatch<Count> | null {
          const end = Math.min(limit(), position + maxRecords);
          if (end <= position) return null;
          const values = records.slice(position, end);
          position = end;
          return { partition: 0, values, timestamps: values.map((r) => r.ts) };
        },
        nextAvailableAt: (now: number) => position < limit() ? now : Infinity,
        snapshotState: () => ({ position }),
        restoreState(state: unknown) {
          position = (state as { position: number }).position;
        },
      };
    },
  } satisfies Source<Count>;
}

/** Counts per key in one window that fires at the end of the input. */
function keyedCounts(
  records: readonly Count[],
  gate: { open: number },
  sink: CollectSink<Count>,
) {
  const env = new StreamEnvironment({
    jobName: "counts",
    clock: new ManualClock(0),
    autoWatermarkIntervalMs: 0,
  });
  env.fromSource(
    gated(records, gate),
    WatermarkStrategy.noWatermarks<Count>().withTimestampAssigner((r) => r.ts),
    "counts",
  )
    .keyBy((r) => r.key)
    .window(TumblingEventTimeWindows.of(1_000_000_000))
    .reduce((a, b) => ({ key: a.key, n: a.n + b.n, ts: Math.max(a.ts, b.ts) }))
    .sinkTo(sink);
  return env.getJobGraph();
}

interface WindowSlot {
  key: number;
  contents?: { value?: Count };
}

/** The window operator's slots in a window subtask's snapshot. */
function slotsOf(subtask: unknown): WindowSlot[] {
  const { operators } = subtask as {
    operators: Array<{ slots?: unknown } | null>;
  };
  const window = operators.find((op) => op !== null && "slots" in op);
  return window!.slots as WindowSlot[];
}

Deno.test("LocalRuntime checkpoints a window's unchanged key groups as the same parts, and restores from them", async () => {
  const KEYS = 300;
  const HOT = 7;
  const records: Count[] = [];
  for (let k = 0; k < KEYS; k++) records.push({ key: k, n: 1, ts: k });
  const firstPhase = records.length;
  for (let i = 0; i < 5; i++) records.push({ key: HOT, n: 1, ts: 1_000 + i });
  const secondPhase = records.length;
  for (let k = 0; k < KEYS; k++) {
    records.push({ key: k, n: 10, ts: 2_000 + k });
  }

  // Uninterrupted.
  const expectedSink = new CollectSink<Count>();
  await new LocalRuntime(
    keyedCounts(records, { open: Infinity }, expectedSink),
    { clock: new ManualClock(0) },
  ).run();
  const byKey = (a: Count, b: Count) => a.key - b.key;
  const expected = [...expectedSink.values].sort(byKey);
  assert.equal(expected.length, KEYS);
  assert.deepEqual(expected[HOT].n, 16);

  const storage = new MemoryStorage();
  const store = new CheckpointStore(storage, { log: () => {} });
  const gate = { open: firstPhase };
  const runtime = new LocalRuntime(
    keyedCounts(records, gate, new CollectSink()),
    { clock: new ManualClock(0), checkpointStore: store },
  );
  runtime.runUntilIdle();
  assert.equal(runtime.triggerCheckpoint(), 1);
  runtime.runUntilIdle();
  await runtime.flushCheckpoints();
  const first = runtime.latestCheckpoint!;
  gate.open = secondPhase; // records for one key only
  runtime.runUntilIdle();
  assert.equal(runtime.triggerCheckpoint(), 2);
  runtime.runUntilIdle();
  await runtime.flushCheckpoints();
  const second = runtime.latestCheckpoint!;
  assert.equal(second.id, 2);

  const windowId = Object.keys(second.subtasks).find((id) =>
    id.includes("window")
  )!;
  const before: readonly Encoded[] = encodedSnapshots(first)![windowId].parts;
  const after: readonly Encoded[] = encodedSnapshots(second)![windowId].parts;
  // One part per non-empty key group of 128: 300 keys fill most of them.
  assert.ok(before.length > 100 && before.length <= 128, `${before.length}`);
  assert.equal(after.length, before.length);
  const shared = after.filter((part) => before.includes(part));
  assert.equal(shared.length, before.length - 1);
  const renewed = after.find((part) => !before.includes(part))!;
  assert.ok(
    (partRows(renewed.decode()) as WindowSlot[]).some((slot) =>
      slot.key === HOT
    ),
    "the renewed part holds the key that got records",
  );
  // The window's own payload refers to its parts instead of holding them.
  const main = decodeStored(encodedSnapshots(second)![windowId].bytes);
  assert.deepEqual(slotsOf(main), { "weir:parts": after.map((_, i) => i) });
  // Other subtasks have no parts.
  for (const [id, encoded] of Object.entries(encodedSnapshots(second)!)) {
    if (id !== windowId) assert.deepEqual(encoded.parts, [], id);
  }

  // Decoded, both are whole: every key's slot, the hot one with its records.
  const countOf = (slots: WindowSlot[], key: number) =>
    slots.find((slot) => slot.key === key)?.contents?.value?.n;
  for (const [checkpoint, hot] of [[first, 1], [second, 6]] as const) {
    const slots = slotsOf(checkpoint.subtasks[windowId]);
    assert.equal(slots.length, KEYS);
    assert.deepEqual(
      [...new Set(slots.map((slot) => slot.key))].sort((a, b) => a - b),
      Array.from({ length: KEYS }, (_, k) => k),
    );
    assert.equal(countOf(slots, HOT), hot);
    assert.equal(countOf(slots, HOT + 1), 1);
  }
  const source = second.subtasks[
    Object.keys(second.subtasks).find((id) => id.includes("source"))!
  ] as { reader: { position: number } };
  assert.equal(source.reader.position, secondPhase);

  // Stored: the second checkpoint wrote one part and referred to the rest.
  const partKeys = (await storage.list(["cpp"], { keysOnly: true }))
    .map(([key]) => key);
  assert.equal(partKeys.filter((key) => key[1] === 1).length, before.length);
  assert.equal(partKeys.filter((key) => key[1] === 2).length, 1);

  // The runtime goes on a bit, then crashes; a new one restores checkpoint 2.
  gate.open = secondPhase + 100;
  runtime.runUntilIdle();
  const restoredFrom = await store.latest(second.fingerprint);
  assert.equal(restoredFrom?.id, 2);
  assert.deepStrictEqual(restoredFrom.subtasks, second.subtasks);
  // What the checkpoint covers is not read again: changed here, it would
  // change the output.
  const replayed = records.map((r, i) => i < secondPhase ? { ...r, n: 99 } : r);
  const sink = new CollectSink<Count>();
  await new LocalRuntime(keyedCounts(replayed, { open: Infinity }, sink), {
    clock: new ManualClock(0),
    restoreFrom: restoredFrom,
  }).run();
  assert.deepEqual([...sink.values].sort(byKey), expected);
});

Deno.test("LocalRuntime.run() saves each checkpoint as soon as it completes, while the input of that instant is still being processed", async () => {
  // 5,000 records at each of 100, 200 and 300 ms, when checkpoints are due
  // too, over two partitions: a source subtask reads 1,024 a poll, so each
  // instant takes several rounds after the barrier goes out.
  const perInstant = 5_000;
  const script: ScriptStep<number>[] = [];
  for (const at of [100, 200, 300]) {
    for (let i = 0; i < perInstant; i++) {
      script.push({ at, partition: i % 2, value: script.length });
    }
  }
  const clock = new ManualClock(0);
  const env = new StreamEnvironment({
    jobName: "durable",
    parallelism: 2,
    clock,
  });
  const sink = new CollectSink<number>();
  env.fromSource(
    new ScriptedSource(script, { partitions: 2 }),
    WatermarkStrategy.noWatermarks<number>(),
    "numbers",
  ).keyBy((n) => n % 10).process<number, undefined>({
    processElement: (n, _ctx, out) => out(n),
  }).sinkTo(sink);
  // When each checkpoint became durable: the time, and how many records
  // had reached the sink by then.
  const saves: { id: number; at: number; sunk: number }[] = [];
  const runtime = new LocalRuntime(env.getJobGraph(), {
    clock,
    checkpointIntervalMs: 100,
    checkpointStore: {
      save(checkpoint) {
        saves.push({
          id: checkpoint.id,
          at: clock.now(),
          sunk: sink.values.length,
        });
        return Promise.resolve();
      },
    },
  });
  await runtime.run();
  assert.equal(sink.values.length, 3 * perInstant);
  assert.deepEqual(saves.map((s) => `${s.id}@${s.at}`), [
    "1@100",
    "2@200",
    "3@300",
  ]);
  for (const [k, save] of saves.entries()) {
    // Checkpoint k+1 starts at the instant its records become due, ahead
    // of them: it is durable before they have all gone through, not only
    // once the job is idle again.
    assert.ok(
      save.sunk < (k + 1) * perInstant,
      `checkpoint ${save.id} saved after ${save.sunk} records`,
    );
  }
});

Deno.test("LocalRuntime numbers checkpoints above the store's highest id, and does not save one triggered before it read that id (ids only grow within a store)", async () => {
  const clock = new ManualClock(0);
  const env = new StreamEnvironment({ jobName: "ids", clock });
  // A record far in the future: the job does not finish.
  env.fromSource(
    new ScriptedSource([{ at: 0, value: 1 }, { at: 100_000, value: 2 }]),
    WatermarkStrategy.forMonotonousTimestamps<number>(),
    "numbers",
  ).sinkTo(new CollectSink());
  const saved: number[] = [];
  let reads = 0;
  const runtime = new LocalRuntime(env.getJobGraph(), {
    clock,
    checkpointStore: {
      highestId() {
        reads++;
        return Promise.resolve(33);
      },
      save(checkpoint) {
        saved.push(checkpoint.id);
        return Promise.resolve();
      },
    },
  });
  // Stepped before any await: the store's highest id is not known yet.
  assert.equal(runtime.triggerCheckpoint(), 1);
  runtime.runUntilIdle();
  await runtime.flushCheckpoints();
  assert.deepEqual(saved, []);
  assert.equal(runtime.latestCheckpoint?.id, undefined);
  assert.equal(runtime.triggerCheckpoint(), 34);
  runtime.runUntilIdle();
  await runtime.flushCheckpoints();
  assert.deepEqual(saved, [34]);
  assert.equal(runtime.latestCheckpoint?.id, 34);
  assert.equal(reads, 1);
});

Deno.test("LocalRuntime.run() rejects a checkpoint store whose highestId() is not a non-negative safe integer, naming it", async () => {
  const env = new StreamEnvironment({
    jobName: "ids",
    clock: new ManualClock(0),
  });
  env.fromCollection([1]).sinkTo(new CollectSink());
  const runtime = new LocalRuntime(env.getJobGraph(), {
    clock: new ManualClock(0),
    checkpointStore: {
      highestId: () => Promise.resolve(Number.NaN),
      save: () => Promise.resolve(),
    },
  });
  await assert.rejects(runtime.run(), {
    name: "RangeError",
    message:
      /'checkpointStore.highestId\(\)' must return a non-negative safe integer: current value is NaN/,
  });
});

Deno.test("LocalRuntime refuses a watermarkRecovery it does not know, naming it, rather than replay silently", () => {
  const env = new StreamEnvironment({
    jobName: "modes",
    clock: new ManualClock(0),
  });
  env.fromCollection([1]).sinkTo(new CollectSink());
  assert.throws(
    () =>
      new LocalRuntime(env.getJobGraph(), {
        clock: new ManualClock(0),
        watermarkRecovery: "keep" as "persist",
      }),
    {
      name: "RangeError",
      message:
        /Cannot create LocalRuntime as 'watermarkRecovery' must be "persist" or "replay": current value is "keep"/,
    },
  );
});
