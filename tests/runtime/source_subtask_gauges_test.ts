// The gauges a source subtask registers for the dashboard's timeline: the
// event timestamp of the last record it stamped.

import assert from "node:assert/strict";
import { ScriptedSource } from "../../src/connectors/sources/scripted.ts";
import { WatermarkStrategy } from "../../src/time/watermark_strategy.ts";
import { sourceHarness } from "../_support/source_harness.ts";

Deno.test("SourceSubtask's lastRecordTimestampMs gauge is the timestamp of the last record of the last poll", () => {
  const gauges = new Map<string, () => number>();
  const script = [
    { at: 0, value: 5_000 },
    { at: 0, value: 4_000 },
    { at: 100, value: 7_000 },
    { at: 100, value: 6_500 },
  ];
  const h = sourceHarness(
    new ScriptedSource<number>(script).createReader(0, 1),
    WatermarkStrategy.forBoundedOutOfOrderness<number>(0)
      .withTimestampAssigner((n) => n),
    { gauge: (name, read) => gauges.set(name, read) },
  );
  const last = gauges.get("lastRecordTimestampMs")!;
  assert.equal(last(), -Infinity);
  h.tick(0);
  assert.equal(last(), 4_000, "the last record's, not the highest");
  h.tick(100);
  assert.equal(last(), 6_500);
});
