// Recovery from older, damaged and absent checkpoints, written once against RuntimeUnderTest
// and run on both runtimes in both watermarkRecovery modes: restores of an
// older checkpoint, a start over and a fallback from a damaged latest
// checkpoint on a store with history finish, numbering checkpoints above
// the store's highest; and a source partition that ended never holds its
// subtask's watermark back, before or after a restore.

import assert from "node:assert/strict";
import { ManualClock } from "../../src/time/clock.ts";
import { WatermarkStrategy } from "../../src/time/watermark_strategy.ts";
import { TumblingEventTimeWindows } from "../../src/windows/tumbling.ts";
import {
  ScriptedSource,
  type ScriptStep,
} from "../../src/connectors/sources/scripted.ts";
import { CollectSink } from "../../src/connectors/sinks/collect.ts";
import { MemoryStorage } from "../../src/actors/local/memory_storage.ts";
import { CheckpointStore } from "../../src/actors/checkpoint_store.ts";
import { StreamEnvironment } from "../../src/api/stream_environment.ts";
import { ExternalTable } from "../_support/two_phase_sink.ts";
import {
  expectedSums,
  type Mode,
  type Reading,
  READING_PARTITIONS,
  sensorJob,
  sensorReadings,
} from "../_support/sensor_job.ts";
import type { RuntimeUnderTest } from "./_runtime_under_test.ts";

const READINGS = sensorReadings(120);

function sensors(
  storage: MemoryStorage,
  clock: ManualClock,
  mode: Mode,
  table: ExternalTable<string>,
): StreamEnvironment {
  return sensorJob({
    storage,
    clock,
    mode,
    table,
    script: READINGS,
    partitions: READING_PARTITIONS,
    parallelism: 2,
  });
}

/** A store holding checkpoints 1 to 4 of a job that crashed halfway. */
async function history(runtime: RuntimeUnderTest, mode: Mode) {
  const storage = new MemoryStorage();
  const clock = new ManualClock(0);
  const table = new ExternalTable<string>();
  await runtime.crashAfterCheckpoints(
    sensors(storage, clock, mode, table),
    clock,
    4,
  );
  const store = new CheckpointStore(storage);
  assert.equal(await store.highestId(), 4);
  return { storage, clock, table, store };
}

/** Registers the suite's tests for one runtime. */
export function recoveryConformance(runtime: RuntimeUnderTest): void {
  const name = (what: string) => `[${runtime.name}] ${what}`;

  for (const mode of ["persist", "replay"] as const) {
    Deno.test(
      name(
        `a restore of an older checkpoint on a store with history runs to the end, numbering checkpoints above the newest (${mode} mode)`,
      ),
      async () => {
        const { storage, clock, table, store } = await history(runtime, mode);
        const env = sensors(storage, clock, mode, table);
        const older = await env.findCheckpoint(2);
        await runtime.run(env, clock, older!);
        // What checkpoints 3 and 4 committed is committed again (as when
        // Flink restores an older savepoint); every result is whole.
        assert.deepEqual([...new Set(table.rows())], expectedSums(READINGS));
        assert.ok((await store.highestId()) > 4);
      },
    );

    Deno.test(
      name(
        `starting over on a store with history runs to the end, numbering checkpoints above the newest (${mode} mode)`,
      ),
      async () => {
        const { storage, clock, store } = await history(runtime, mode);
        const table = new ExternalTable<string>();
        const env = sensors(storage, clock, mode, table);
        assert.equal(await env.findCheckpoint("none"), null);
        await runtime.run(env, clock);
        assert.deepEqual(table.rows(), expectedSums(READINGS));
        const ids = (await store.list()).map((c) => c.id);
        assert.ok(ids.every((id) => id > 4), `kept ${ids.join(", ")}`);
      },
    );

    Deno.test(
      name(
        `a damaged latest checkpoint is skipped for the previous one, and the job runs to the end (${mode} mode)`,
      ),
      async () => {
        const { storage, clock, table, store } = await history(runtime, mode);
        // Not a manifest weir wrote: what a bad disk or a hand edit leaves.
        await storage.put(["cp", 4, "m"], "garbage");
        const lines: string[] = [];
        const warn = console.warn;
        console.warn = (line: string) => lines.push(line);
        let fallback;
        let env;
        try {
          env = sensors(storage, clock, mode, table);
          fallback = await env.findCheckpoint();
        } finally {
          console.warn = warn;
        }
        assert.equal(fallback?.id, 3);
        assert.match(lines.join("\n"), /Skipping checkpoint 4/);
        await runtime.run(env, clock, fallback!);
        assert.deepEqual([...new Set(table.rows())], expectedSums(READINGS));
        assert.ok((await store.highestId()) > 4);
      },
    );

    Deno.test(
      name(
        `a source partition that ended does not hold back a subtask that reads several, before and after a restore (${mode} mode)`,
      ),
      async () => {
        // One subtask reads both partitions: partition 1 says one thing and
        // ends at 100 ms; partition 0 goes on until 6 s. Window [0, 1000)
        // fires once partition 0's watermark passes it, not at the end.
        const script: ScriptStep<Reading>[] = [
          { at: 0, partition: 1, value: { sensor: 1, value: 1, ts: 0 } },
          { at: 100, partition: 1, end: true },
        ];
        for (let at = 0; at <= 6_000; at += 100) {
          script.push({
            at,
            partition: 0,
            value: { sensor: 0, value: 1, ts: at },
          });
        }
        const storage = new MemoryStorage();
        const clock = new ManualClock(0);
        const firedAt = new CollectSink<[number, number]>();
        const build = () => {
          const env = new StreamEnvironment({
            jobName: "ended",
            parallelism: 1,
            clock,
            checkpointIntervalMs: 250,
            watermarkRecovery: mode,
            checkpointStorage: storage,
          });
          env.fromSource(
            new ScriptedSource(script, { partitions: 2 }),
            WatermarkStrategy.forMonotonousTimestamps<Reading>()
              .withTimestampAssigner((r) => r.ts),
            "r",
          ).keyBy((r) => r.sensor).window(TumblingEventTimeWindows.of(1_000))
            .reduce((a, b) => ({ ...a, value: a.value + b.value }))
            .map((r): [number, number] => [r.ts, clock.now()])
            .sinkTo(firedAt);
          return env;
        };
        // Crash after the end of partition 1, restore, run to the end.
        await runtime.crashAfterCheckpoints(build(), clock, 2);
        const env = build();
        const checkpoint = await env.findCheckpoint();
        await runtime.run(env, clock, checkpoint!);
        const first = firedAt.values.find(([ts]) => ts < 1_000);
        assert.ok(first !== undefined, "window [0, 1000) fired");
        assert.ok(first[1] < 3_000, `fired at ${first[1]} ms`);
        const second = firedAt.values.find(([ts]) => ts >= 2_000 && ts < 3_000);
        assert.ok(
          second !== undefined && second[1] < 4_000,
          `window [2000, 3000) fired after the restore, at ${second?.[1]} ms`,
        );
      },
    );
  }
}
