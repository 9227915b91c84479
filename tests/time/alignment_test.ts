// The vectors of Flink's SourceCoordinatorAlignmentTest,
// WatermarkAggregatorTest and SourceOperatorAlignmentTest, as arithmetic.

import assert from "node:assert/strict";
import {
  reportableWatermark,
  shouldWaitForAlignment,
  WatermarkAggregator,
  type WatermarkAlignmentAnnouncement,
  WatermarkAlignmentCoordinator,
} from "../../src/time/alignment.ts";
import { WatermarkOutputMultiplexer } from "../../src/time/multiplexer.ts";
import { RecordingOutput } from "../_support/recording_output.ts";

/** The announcement each subtask of one source gets, by subtask. */
function sent(
  coordinator: WatermarkAlignmentCoordinator,
): Record<string, number> {
  const byTarget: Record<string, number> = {};
  for (const a of coordinator.announcements()) {
    byTarget[`${a.sourceId}/s${a.subtask}`] = a.maxAllowedWatermark;
  }
  return byTarget;
}

function oneSource(): WatermarkAlignmentCoordinator {
  const coordinator = new WatermarkAlignmentCoordinator();
  coordinator.registerSource("src", { group: "g", maxDriftMs: 1000 });
  return coordinator;
}

// WatermarkAggregator

Deno.test("WatermarkAggregator.aggregate() returns the minimum of the latest value per key", () => {
  const aggregator = new WatermarkAggregator<number>();
  const steps: Array<[number, number, number]> = [
    [0, 10, 10],
    [1, 12, 10],
    [2, 13, 10],
    [1, 9, 9],
    [1, Infinity, 10],
    [1, 8, 8],
    [1, 20, 10],
    [0, 23, 13],
    [2, 22, 20],
  ];
  for (const [key, watermark, expected] of steps) {
    assert.equal(aggregator.aggregate(key, watermark), expected);
    assert.equal(aggregator.getAggregatedWatermark(), expected);
  }
});

Deno.test("WatermarkAggregator is -Infinity when empty", () => {
  const aggregator = new WatermarkAggregator<string>();
  assert.equal(aggregator.getAggregatedWatermark(), -Infinity);
  aggregator.aggregate("a", 5);
  assert.equal(aggregator.remove("a"), true);
  assert.equal(aggregator.getAggregatedWatermark(), -Infinity);
});

Deno.test("WatermarkAggregator.aggregate() lets a single key go down", () => {
  const aggregator = new WatermarkAggregator<string>();
  assert.equal(aggregator.aggregate("a", 50), 50);
  assert.equal(aggregator.aggregate("a", 20), 20);
  assert.equal(aggregator.aggregate("a", 70), 70);
});

Deno.test("WatermarkAggregator.remove() recomputes the minimum only when the removed key held it", () => {
  const aggregator = new WatermarkAggregator<string>();
  aggregator.aggregate("a", 10);
  aggregator.aggregate("b", 10);
  aggregator.aggregate("c", 30);
  assert.equal(aggregator.remove("c"), true);
  assert.equal(aggregator.getAggregatedWatermark(), 10);
  assert.equal(aggregator.remove("a"), true);
  assert.equal(aggregator.getAggregatedWatermark(), 10);
  aggregator.aggregate("d", 40);
  assert.equal(aggregator.remove("b"), true);
  assert.equal(aggregator.getAggregatedWatermark(), 40);
  assert.equal(aggregator.remove("b"), false);
});

Deno.test("WatermarkAggregator.aggregate() keeps the minimum when one of two keys holding it goes up", () => {
  const aggregator = new WatermarkAggregator<string>();
  aggregator.aggregate("a", 10);
  aggregator.aggregate("b", 10);
  assert.equal(aggregator.aggregate("a", 15), 10);
  assert.equal(aggregator.aggregate("b", 12), 12);
});

Deno.test("WatermarkAggregator.aggregate() rejects a watermark that is not a safe integer or an infinity", () => {
  const aggregator = new WatermarkAggregator<number>();
  assert.throws(() => aggregator.aggregate(0, NaN), {
    name: "RangeError",
    message: /'watermark'/,
  });
  assert.throws(
    // @ts-expect-error: testing a bad type
    () => aggregator.aggregate(0, "5"),
    { name: "TypeError", message: /'watermark'/ },
  );
});

// WatermarkAlignmentCoordinator

Deno.test("WatermarkAlignmentCoordinator announces the group minimum plus the drift to every subtask that reported", () => {
  const coordinator = oneSource();
  coordinator.reportWatermark("src", 0, 42);
  assert.deepEqual(sent(coordinator), { "src/s0": 1042 });
  coordinator.reportWatermark("src", 1, 44);
  assert.deepEqual(sent(coordinator), { "src/s0": 1042, "src/s1": 1042 });
  coordinator.reportWatermark("src", 0, 5000);
  assert.deepEqual(sent(coordinator), { "src/s0": 1044, "src/s1": 1044 });
  assert.equal(coordinator.maxAllowedWatermark("g"), 1044);
});

Deno.test("WatermarkAlignmentCoordinator leaves idle subtasks out of the minimum and announces Infinity when all are idle", () => {
  const coordinator = oneSource();
  coordinator.reportWatermark("src", 0, 42);
  assert.deepEqual(sent(coordinator), { "src/s0": 1042 });
  coordinator.reportWatermark("src", 1, 44);
  assert.deepEqual(sent(coordinator), { "src/s0": 1042, "src/s1": 1042 });
  coordinator.reportWatermark("src", 0, Infinity);
  assert.deepEqual(sent(coordinator), { "src/s0": 1044, "src/s1": 1044 });
  coordinator.reportWatermark("src", 0, 42);
  assert.deepEqual(sent(coordinator), { "src/s0": 1042, "src/s1": 1042 });
  coordinator.reportWatermark("src", 0, Infinity);
  coordinator.reportWatermark("src", 1, Infinity);
  assert.deepEqual(sent(coordinator), {
    "src/s0": Infinity,
    "src/s1": Infinity,
  });
  coordinator.reportWatermark("src", 0, 42);
  assert.deepEqual(sent(coordinator), { "src/s0": 1042, "src/s1": 1042 });
  coordinator.reportWatermark("src", 1, 46);
  assert.deepEqual(sent(coordinator), { "src/s0": 1042, "src/s1": 1042 });
});

Deno.test("WatermarkAlignmentCoordinator aligns each group on its own (two groups)", () => {
  const coordinator = new WatermarkAlignmentCoordinator();
  coordinator.registerSource("src1", { group: "group1", maxDriftMs: 1000 });
  coordinator.registerSource("src2", { group: "group2", maxDriftMs: 1000 });
  coordinator.reportWatermark("src1", 0, 42);
  assert.deepEqual(sent(coordinator), { "src1/s0": 1042 });
  coordinator.reportWatermark("src2", 1, 44);
  assert.deepEqual(sent(coordinator), { "src1/s0": 1042, "src2/s1": 1044 });
  coordinator.reportWatermark("src1", 0, 5000);
  assert.deepEqual(sent(coordinator), { "src1/s0": 6000, "src2/s1": 1044 });
  assert.equal(coordinator.maxAllowedWatermark("group1"), 6000);
  assert.equal(coordinator.maxAllowedWatermark("group2"), 1044);
});

Deno.test("WatermarkAlignmentCoordinator holds every source of a group to the slowest source", () => {
  const coordinator = new WatermarkAlignmentCoordinator();
  coordinator.registerSource("orders", { group: "g", maxDriftMs: 100 });
  coordinator.registerSource("payments", { group: "g", maxDriftMs: 100 });
  coordinator.reportWatermark("orders", 0, 500);
  coordinator.reportWatermark("orders", 1, 700);
  coordinator.reportWatermark("payments", 0, 300);
  assert.deepEqual(sent(coordinator), {
    "orders/s0": 400,
    "orders/s1": 400,
    "payments/s0": 400,
  });
  coordinator.reportWatermark("payments", 0, Infinity);
  assert.equal(coordinator.maxAllowedWatermark("g"), 600);
});

Deno.test("WatermarkAlignmentCoordinator.announcements() lists sources in registration order and subtasks ascending, skipping silent ones", () => {
  const coordinator = new WatermarkAlignmentCoordinator();
  coordinator.registerSource("b", { group: "g", maxDriftMs: 0 });
  coordinator.registerSource("a", { group: "g", maxDriftMs: 0 });
  coordinator.registerSource("silent", { group: "g", maxDriftMs: 0 });
  coordinator.reportWatermark("a", 0, 9);
  coordinator.reportWatermark("b", 2, 7);
  coordinator.reportWatermark("b", 0, 8);
  coordinator.reportWatermark("b", 2, 10);
  const expected: WatermarkAlignmentAnnouncement[] = [
    { sourceId: "b", subtask: 0, maxAllowedWatermark: 8 },
    { sourceId: "b", subtask: 2, maxAllowedWatermark: 8 },
    { sourceId: "a", subtask: 0, maxAllowedWatermark: 8 },
  ];
  assert.deepEqual(coordinator.announcements(), expected);
});

Deno.test("WatermarkAlignmentCoordinator.maxAllowedWatermark() is -Infinity before any report", () => {
  const coordinator = oneSource();
  assert.equal(coordinator.maxAllowedWatermark("g"), -Infinity);
  assert.deepEqual(coordinator.announcements(), []);
});

Deno.test("WatermarkAlignmentCoordinator.maxAllowedWatermark() saturates at Infinity past the safe range (addExact)", () => {
  const coordinator = oneSource();
  coordinator.reportWatermark("src", 0, Number.MAX_SAFE_INTEGER - 1000);
  assert.equal(coordinator.maxAllowedWatermark("g"), Number.MAX_SAFE_INTEGER);
  coordinator.reportWatermark("src", 0, Number.MAX_SAFE_INTEGER - 999);
  assert.equal(coordinator.maxAllowedWatermark("g"), Infinity);
  assert.deepEqual(coordinator.announcements(), [
    { sourceId: "src", subtask: 0, maxAllowedWatermark: Infinity },
  ]);
});

Deno.test("WatermarkAlignmentCoordinator.registerSource() rejects bad options", () => {
  const coordinator = oneSource();
  assert.throws(
    () => coordinator.registerSource("src", { group: "g", maxDriftMs: 1000 }),
    { name: "RangeError", message: /'sourceId'/ },
  );
  assert.throws(
    () => coordinator.registerSource("", { group: "g", maxDriftMs: 1000 }),
    { name: "RangeError", message: /'sourceId'/ },
  );
  assert.throws(
    () => coordinator.registerSource("x", { group: "", maxDriftMs: 1000 }),
    { name: "RangeError", message: /'options.group'/ },
  );
  assert.throws(
    () => coordinator.registerSource("x", { group: "h", maxDriftMs: -1 }),
    { name: "RangeError", message: /'options.maxDriftMs'/ },
  );
  assert.throws(
    () => coordinator.registerSource("x", { group: "h", maxDriftMs: 0.5 }),
    { name: "RangeError", message: /'options.maxDriftMs'/ },
  );
  assert.throws(
    // @ts-expect-error: testing a missing argument
    () => coordinator.registerSource("x"),
    { name: "TypeError", message: /'options.group'/ },
  );
});

Deno.test("WatermarkAlignmentCoordinator.registerSource() rejects a drift that differs from the group's", () => {
  const coordinator = oneSource();
  assert.throws(
    () => coordinator.registerSource("other", { group: "g", maxDriftMs: 500 }),
    { name: "RangeError", message: /'options.maxDriftMs'/ },
  );
  coordinator.registerSource("other", { group: "g", maxDriftMs: 1000 });
});

Deno.test("WatermarkAlignmentCoordinator.reportWatermark() rejects an unknown source, a bad subtask and a bad watermark", () => {
  const coordinator = oneSource();
  assert.throws(() => coordinator.reportWatermark("nope", 0, 1), {
    name: "RangeError",
    message: /'sourceId'/,
  });
  assert.throws(() => coordinator.reportWatermark("src", -1, 1), {
    name: "RangeError",
    message: /'subtask'/,
  });
  assert.throws(() => coordinator.reportWatermark("src", 1.5, 1), {
    name: "RangeError",
    message: /'subtask'/,
  });
  assert.throws(() => coordinator.reportWatermark("src", 0, 1.5), {
    name: "RangeError",
    message: /'watermark'/,
  });
  assert.deepEqual(coordinator.announcements(), []);
});

Deno.test("WatermarkAlignmentCoordinator.maxAllowedWatermark() rejects an unknown group", () => {
  const coordinator = oneSource();
  assert.throws(() => coordinator.maxAllowedWatermark("nope"), {
    name: "RangeError",
    message: /'group'/,
  });
});

// Source side

Deno.test("shouldWaitForAlignment() waits only when the watermark is strictly past the maximum", () => {
  assert.equal(shouldWaitForAlignment(1000, 999), true);
  assert.equal(shouldWaitForAlignment(1000, 1000), false);
  assert.equal(shouldWaitForAlignment(1000, 1001), false);
  assert.equal(shouldWaitForAlignment(Infinity, Infinity), false);
  assert.equal(shouldWaitForAlignment(-Infinity, -Infinity), false);
});

Deno.test("shouldWaitForAlignment() never waits before the first announcement", () => {
  assert.equal(
    shouldWaitForAlignment(Number.MAX_SAFE_INTEGER, Infinity),
    false,
  );
});

Deno.test("shouldWaitForAlignment() follows the announcements of the source-subtask test (source vectors)", () => {
  // The subtask emitted 1000, then is told 999, then 1001, then emits 2000.
  assert.equal(reportableWatermark(1000, false), 1000);
  assert.equal(shouldWaitForAlignment(1000, 999), true);
  assert.equal(shouldWaitForAlignment(1000, 1001), false);
  assert.equal(shouldWaitForAlignment(2000, 1001), true);
  assert.equal(reportableWatermark(2000, false), 2000);
});

Deno.test("shouldWaitForAlignment() rejects a value that is not a watermark", () => {
  assert.throws(() => shouldWaitForAlignment(NaN, 1), {
    name: "RangeError",
    message: /'latestWatermark'/,
  });
  assert.throws(
    // @ts-expect-error: testing a bad type
    () => shouldWaitForAlignment(1, null),
    { name: "TypeError", message: /'maxDesiredWatermark'/ },
  );
});

Deno.test("reportableWatermark() reports nothing before the first watermark, even when idle", () => {
  assert.equal(reportableWatermark(-Infinity, false), null);
  assert.equal(reportableWatermark(-Infinity, true), null);
});

Deno.test("reportableWatermark() reports Infinity while idle and the watermark again once active", () => {
  assert.equal(reportableWatermark(1, false), 1);
  assert.equal(reportableWatermark(1, true), Infinity);
  assert.equal(reportableWatermark(1, false), 1);
});

Deno.test("reportableWatermark() reports Infinity at the end of input", () => {
  assert.equal(reportableWatermark(1, true), Infinity);
  assert.equal(reportableWatermark(Infinity, false), Infinity);
});

Deno.test("reportableWatermark() keeps reporting the combined watermark when a new split starts lower", () => {
  const out = new RecordingOutput();
  const splits = new WatermarkOutputMultiplexer(out);
  splits.registerNewOutput("split1");
  splits.getImmediateOutput("split1").emitWatermark(2000);
  assert.equal(
    reportableWatermark(out.lastWatermark ?? -Infinity, false),
    2000,
  );
  splits.registerNewOutput("split2");
  splits.getImmediateOutput("split2").emitWatermark(1000);
  assert.equal(
    reportableWatermark(out.lastWatermark ?? -Infinity, false),
    2000,
  );
});

Deno.test("reportableWatermark() rejects a bad watermark or idle flag", () => {
  assert.throws(() => reportableWatermark(NaN, false), {
    name: "RangeError",
    message: /'latestWatermark'/,
  });
  assert.throws(
    // @ts-expect-error: testing a bad type
    () => reportableWatermark(1, "yes"),
    { name: "TypeError", message: /'idle'/ },
  );
});
