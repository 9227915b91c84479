// A source subtask releases the watermark output of a partition its reader
// reports ended (Flink's finished split): what happens to the combined
// watermark and idleness when an output leaves.

import assert from "node:assert/strict";
import { ScriptedSource } from "../../src/connectors/sources/scripted.ts";
import { WatermarkStrategy } from "../../src/time/watermark_strategy.ts";
import { sourceHarness } from "../_support/source_harness.ts";

const byValue = WatermarkStrategy.forBoundedOutOfOrderness<number>(0)
  .withTimestampAssigner((n) => n);

Deno.test("SourceSubtask releasing the last active partition, the others idle, flushes nothing lower and marks the source idle (FLINK-38454)", () => {
  // Partition 0 reads every 100 ms until it ends at 500; partition 1 reads
  // once and is idle from 400 (150 ms of quiet after the probe at 200).
  const script = [
    ...[0, 100, 200, 300, 400, 500].map((at) => ({
      at,
      partition: 0,
      value: 5_000 + at,
    })),
    { at: 500, partition: 0, end: true as const },
    { at: 0, partition: 1, value: 100 },
    { at: 10_000, partition: 1, end: true as const },
  ];
  const h = sourceHarness(
    new ScriptedSource<number>(script, { partitions: 2 }).createReader(0, 1),
    byValue.withIdleness(150),
  );
  assert.deepEqual(h.tick(0), ["R1", "R1"]);
  assert.deepEqual(h.tick(100), ["W99", "R1"]);
  assert.deepEqual(h.tick(200), ["R1"]);
  assert.deepEqual(h.tick(300), ["R1"]);
  assert.deepEqual(h.tick(400), ["W5299", "R1"], "partition 1 is idle");
  // Partition 0 leaves: only idle partition 1 (at 99) is left.
  assert.deepEqual(h.tick(500), ["W5399", "R1", "idle"]);
  assert.equal(h.source.currentWatermark, 5_399);
  assert.deepEqual(h.tick(10_000), ["active", "WInfinity", "end"]);
});

Deno.test("SourceSubtask releasing the fastest partition neither takes the watermark back nor moves it past the partitions left", () => {
  const h = sourceHarness(
    new ScriptedSource<number>([
      { at: 0, partition: 0, value: 9_000 },
      { at: 150, partition: 0, end: true },
      { at: 0, partition: 1, value: 1_000 },
      { at: 300, partition: 1, value: 2_000 },
      { at: 1_000, partition: 1, end: true },
    ], { partitions: 2 }).createReader(0, 1),
    byValue,
  );
  h.tick(0);
  assert.deepEqual(h.tick(100), ["W999"]);
  assert.deepEqual(h.tick(150), [], "the slow partition still holds it");
  assert.deepEqual(h.tick(300), ["R1"]);
  assert.deepEqual(h.tick(400), ["W1999"]);
});

Deno.test("SourceSubtask.partitionStates reports each partition's own watermark and status: active, idle, finished", () => {
  // Partition 0 reads every 100 ms; partition 1 reads once, then is quiet
  // until idleness marks it idle; partition 2 reads once and ends.
  const script = [
    ...[0, 100, 200, 300, 400].map((at) => ({
      at,
      partition: 0,
      value: 5_000 + at,
    })),
    { at: 0, partition: 1, value: 100 },
    { at: 0, partition: 2, value: 7_000 },
    { at: 100, partition: 2, end: true as const },
    { at: 10_000, partition: 0, end: true as const },
    { at: 10_000, partition: 1, end: true as const },
  ];
  const h = sourceHarness(
    new ScriptedSource<number>(script, { partitions: 3 }).createReader(0, 1),
    byValue.withIdleness(150),
  );
  const names = h.source.partitions;
  assert.deepEqual(
    h.source.partitionStates().map((p) => p.status),
    ["active", "active", "active"],
    "before the first poll",
  );
  assert.equal(h.source.partitionStates()[0].watermark, -Infinity);
  for (const t of [0, 100, 200, 300, 400]) h.tick(t);
  assert.deepEqual(h.source.partitionStates(), [
    { name: names[0], watermark: 5_299, status: "active" },
    { name: names[1], watermark: 99, status: "idle" },
    { name: names[2], watermark: Infinity, status: "finished" },
  ]);
  h.tick(10_000);
  assert.ok(h.source.finished);
  assert.deepEqual(
    h.source.partitionStates().map((p) => [p.status, p.watermark]),
    [["finished", Infinity], ["finished", Infinity], ["finished", Infinity]],
    "once the input ended",
  );
});
