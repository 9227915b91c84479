// rescaleSourceSnapshots(): read positions, generators and merged
// watermarks follow their partitions to the new readers.

import assert from "node:assert/strict";
import { rescaleSourceSnapshots } from "../../../src/runtime/rescale/source_snapshots.ts";
import type { SourceSubtaskSnapshot } from "../../../src/runtime/source_subtask.ts";
import {
  ScriptedSource,
  type ScriptStep,
} from "../../../src/connectors/sources/scripted.ts";
import { WatermarkStrategy } from "../../../src/time/watermark_strategy.ts";
import { sourceHarness } from "../../_support/source_harness.ts";
import { StatusWatermarkValve } from "../../../src/time/valve.ts";

const MAX = 128;

function valveOf(watermarks: number[]) {
  const valve = new StatusWatermarkValve(watermarks.length, {
    emitWatermark() {},
    emitWatermarkStatus() {},
  });
  watermarks.forEach((w, c) => valve.inputWatermark(w, c));
  return valve.snapshot();
}

/** The snapshot of each scripted reader of `parallelism`, partition p at position 10 + p. */
function sourceSnapshots(
  source: ScriptedSource<number>,
  parallelism: number,
  persist: boolean,
): SourceSubtaskSnapshot[] {
  return Array.from({ length: parallelism }, (_, i) => {
    const names = source.createReader(i, parallelism).partitions;
    const index = (name: string) => Number(name.split("-")[1]);
    const snapshot: SourceSubtaskSnapshot = {
      reader: {
        partitions: [...names],
        positions: names.map((n) => 10 + index(n)),
        cursor: names.length - 1,
      },
      chain: { operators: [null], valve: valveOf([100 * i]), ended: [false] },
    };
    if (!persist) return snapshot;
    return {
      ...snapshot,
      generators: names.map((n) => ({ maxTimestamp: 1_000 + index(n) })),
      emitter: { currentWatermark: 500 + i, idle: true },
    };
  });
}

function script(partitions: number): ScriptedSource<number> {
  const steps = [];
  for (let i = 0; i < 20 * partitions; i++) {
    steps.push({ at: i, partition: i % partitions, value: i });
  }
  return new ScriptedSource(steps, { partitions });
}

for (const [from, to] of [[2, 3], [2, 1], [4, 2], [1, 4]]) {
  Deno.test(`rescaleSourceSnapshots() from ${from} to ${to} subtasks moves positions and generators with their partitions, by name (persist mode)`, () => {
    const source = script(4);
    const old = sourceSnapshots(source, from, true);
    const partitions = Array.from(
      { length: to },
      (_, i) => source.createReader(i, to).partitions,
    );
    const rescaled = rescaleSourceSnapshots(old, {
      vertexId: "source-1",
      parallelism: to,
      maxParallelism: MAX,
      partitions,
    });
    rescaled.forEach((snapshot, i) => {
      const names = [...partitions[i]];
      const index = (name: string) => Number(name.split("-")[1]);
      assert.deepEqual(snapshot.reader, {
        partitions: names,
        positions: names.map((n) => 10 + index(n)),
        cursor: 0,
      });
      assert.deepEqual(
        snapshot.generators,
        names.map((n) => ({ maxTimestamp: 1_000 + index(n) })),
      );
      assert.deepEqual(snapshot.emitter, {
        currentWatermark: 500,
        idle: false,
      });
      // The emitter resumes anew, so the chain's one-input valve does too.
      assert.deepEqual(snapshot.chain, { operators: [null], ended: [false] });
      // The new reader accepts its snapshot.
      source.createReader(i, to).restoreState(snapshot.reader);
    });
  });
}

Deno.test("rescaleSourceSnapshots() moves each partition's merged watermark with it, and leaves a released partition for its new reader to report again (persist mode)", () => {
  const source = script(4);
  const old = sourceSnapshots(source, 2, true).map((snapshot, i) => {
    const names = (snapshot.reader as { partitions: string[] }).partitions;
    // Old subtask 0 had released partition 2.
    const live = names.filter((n) => n !== "scripted-2");
    return {
      ...snapshot,
      multiplexer: {
        outputs: live.map((id, k) => ({ id, watermark: 900 + k, idle: k > 0 })),
        combinedWatermark: 900 + i,
        combinedIdle: false,
        underlyingIdle: false,
      },
      released: i === 0 ? ["scripted-2"] : [],
      nextPeriodicMs: 250,
    };
  });
  const [only] = rescaleSourceSnapshots(old, {
    vertexId: "source-1",
    parallelism: 1,
    maxParallelism: MAX,
    partitions: [source.createReader(0, 1).partitions],
  });
  assert.deepEqual(only.multiplexer, {
    outputs: [
      { id: "scripted-0", watermark: 900, idle: false },
      { id: "scripted-1", watermark: 900, idle: false },
      { id: "scripted-3", watermark: 901, idle: true },
    ],
    combinedWatermark: 500,
    combinedIdle: false,
    underlyingIdle: false,
  });
  // Schedules and released partitions start afresh at another parallelism.
  assert.equal(only.released, undefined);
  assert.equal(only.nextPeriodicMs, undefined);
});

Deno.test("rescaleSourceSnapshots() leaves generators and emitter out in replay mode", () => {
  const source = script(2);
  const [only] = rescaleSourceSnapshots(sourceSnapshots(source, 2, false), {
    vertexId: "source-1",
    parallelism: 1,
    maxParallelism: MAX,
    partitions: [source.createReader(0, 1).partitions],
  });
  assert.equal(only.generators, undefined);
  assert.equal(only.emitter, undefined);
  assert.deepEqual(only.reader, {
    partitions: ["scripted-0", "scripted-1"],
    positions: [10, 11],
    cursor: 0,
  });
});

Deno.test("rescaleSourceSnapshots() refuses new readers whose partitions are not the checkpoint's, naming what differs", () => {
  const source = script(4);
  const old = sourceSnapshots(source, 2, false);
  const options = { vertexId: "source-1", maxParallelism: MAX };
  assert.throws(
    () =>
      rescaleSourceSnapshots(old, {
        ...options,
        parallelism: 2,
        partitions: [["scripted-0"], ["scripted-1", "scripted-5"]],
      }),
    {
      name: "RangeError",
      message: /lacks \["scripted-2","scripted-3"\] and adds \["scripted-5"\]/,
    },
  );
  assert.throws(
    () =>
      rescaleSourceSnapshots(old, {
        ...options,
        parallelism: 3,
        partitions: [["scripted-0"]],
      }),
    {
      name: "RangeError",
      message: /'options.partitions' must have one entry per new subtask \(3\)/,
    },
  );
  assert.throws(
    () => rescaleSourceSnapshots(old, { ...options, parallelism: 3 }),
    { name: "TypeError", message: /'options.partitions'/ },
  );
  assert.throws(
    () =>
      rescaleSourceSnapshots([old[0], old[0]], {
        ...options,
        parallelism: 1,
        partitions: [["scripted-0", "scripted-2"]],
      }),
    { name: "RangeError", message: /'scripted-0' in old subtask 1/ },
  );
  assert.throws(
    () =>
      rescaleSourceSnapshots([{ ...old[0], reader: { offset: 3 } }], {
        ...options,
        parallelism: 1,
        partitions: [["scripted-0"]],
      }),
    {
      name: "TypeError",
      message: /'old\[0\].reader' must be a reader snapshot/,
    },
  );
});

Deno.test("A source rescaled in persist mode with an idle partition is not held back by it: the partition stays idle where its generator is", () => {
  const steps: ScriptStep<number>[] = [{ at: 0, partition: 1, value: 1_000 }];
  for (let at = 0; at <= 2_000; at += 100) {
    steps.push({ at, partition: 0, value: 1_000 + at });
  }
  for (const partition of [0, 1]) {
    steps.push({ at: 5_000, partition, end: true });
  }
  const source = new ScriptedSource(steps, { partitions: 2 });
  const strategy = WatermarkStrategy.forBoundedOutOfOrderness<number>(0)
    .withTimestampAssigner((n) => n).withIdleness(150);
  // At parallelism 2, partition 1 is idle from 400 ms.
  const old = [0, 1].map((i) =>
    sourceHarness(source.createReader(i, 2), strategy)
  );
  for (let t = 0; t <= 600; t += 100) for (const h of old) h.tick(t);
  assert.equal(old[1].source.idle, true);
  const [snapshot] = rescaleSourceSnapshots(
    old.map((h) => {
      h.clock.set(650);
      return h.checkpoint();
    }),
    {
      vertexId: "source-1",
      parallelism: 1,
      maxParallelism: MAX,
      partitions: [source.createReader(0, 1).partitions],
    },
  );
  const rescaled = sourceHarness(source.createReader(0, 1), strategy, {
    start: 650,
  });
  rescaled.source.restore(snapshot);
  rescaled.tick(700);
  assert.deepEqual(rescaled.tick(800), ["W1699", "R1"]);
});
