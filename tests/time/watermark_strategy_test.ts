import assert from "node:assert/strict";
import { ManualClock } from "../../src/time/clock.ts";
import type { WatermarkGeneratorContext } from "../../src/time/generator_context.ts";
import type { WatermarkGenerator } from "../../src/time/watermark_generator.ts";
import {
  isAlignmentEnabled,
  WatermarkStrategy,
} from "../../src/time/watermark_strategy.ts";
import { WatermarksWithIdleness } from "../../src/time/watermarks_with_idleness.ts";
import { RecordingOutput } from "../_support/recording_output.ts";

function context(clock = new ManualClock(1)): WatermarkGeneratorContext {
  return { clock, subtaskIndex: 3, metrics: { gauge() {} } };
}

function watermarkAfter<T>(
  generator: WatermarkGenerator<T>,
  events: Array<[T, number]>,
): Array<number | string> {
  const output = new RecordingOutput();
  for (const [event, ts] of events) generator.onEvent(event, ts, output);
  generator.onPeriodicEmit(output);
  return output.calls;
}

Deno.test("WatermarkStrategy.forBoundedOutOfOrderness() creates a bounded generator per call", () => {
  const strategy = WatermarkStrategy.forBoundedOutOfOrderness<null>(10);
  const a = strategy.createWatermarkGenerator(context());
  const b = strategy.createWatermarkGenerator(context());
  assert.notEqual(a, b);
  assert.deepEqual(watermarkAfter(a, [[null, 1337]]), [1326]);
  assert.deepEqual(watermarkAfter(b, []), [-Infinity]);
});

Deno.test("WatermarkStrategy.forMonotonousTimestamps() emits one below the highest timestamp", () => {
  const generator = WatermarkStrategy.forMonotonousTimestamps<null>()
    .createWatermarkGenerator(context());
  assert.deepEqual(watermarkAfter(generator, [[null, 12345], [null, 12340]]), [
    12344,
  ]);
});

Deno.test("WatermarkStrategy.noWatermarks() emits nothing", () => {
  const generator = WatermarkStrategy.noWatermarks<null>()
    .createWatermarkGenerator(context());
  assert.deepEqual(watermarkAfter(generator, [[null, 5]]), []);
});

Deno.test("WatermarkStrategy.forGenerator() passes the context to the factory as-is", () => {
  const seen: WatermarkGeneratorContext[] = [];
  const strategy = WatermarkStrategy.forGenerator<null>((ctx) => {
    seen.push(ctx);
    ctx.metrics.gauge("watermarkLagMs", () => 0);
    return {
      onEvent() {},
      onPeriodicEmit: (out) => out.emitWatermark(ctx.subtaskIndex),
    };
  });
  const ctx = context();
  assert.deepEqual(watermarkAfter(strategy.createWatermarkGenerator(ctx), []), [
    3,
  ]);
  assert.equal(seen[0], ctx);
});

Deno.test("WatermarkStrategy uses the record's own timestamp by default", () => {
  const assign = WatermarkStrategy.noWatermarks<string>()
    .createTimestampAssigner();
  assert.equal(assign("x", 77), 77);
});

Deno.test("WatermarkStrategy.withTimestampAssigner() replaces the assigner and keeps the generator", () => {
  const strategy = WatermarkStrategy.forBoundedOutOfOrderness<{ at: number }>(
    10,
  )
    .withTimestampAssigner((event) => event.at);
  assert.equal(strategy.createTimestampAssigner()({ at: 5 }, -Infinity), 5);
  assert.deepEqual(
    watermarkAfter(strategy.createWatermarkGenerator(context()), [[
      { at: 1337 },
      1337,
    ]]),
    [1326],
  );
});

Deno.test("WatermarkStrategy.withIdleness() wraps the generator on the context clock and keeps assigner and alignment", () => {
  const clock = new ManualClock(1);
  const strategy = WatermarkStrategy.forMonotonousTimestamps<{ at: number }>()
    .withTimestampAssigner((event) => event.at)
    .withWatermarkAlignment("g", 100)
    .withIdleness(10);
  const generator = strategy.createWatermarkGenerator(context(clock));
  assert.ok(generator instanceof WatermarksWithIdleness);
  const output = new RecordingOutput();
  generator.onPeriodicEmit(output);
  clock.advance(11);
  generator.onPeriodicEmit(output);
  assert.deepEqual(output.calls, [-Infinity, "markIdle"]);
  assert.equal(strategy.createTimestampAssigner()({ at: 9 }, 0), 9);
  assert.equal(strategy.alignmentParameters.group, "g");
  assert.equal(strategy.idleTimeoutMs, 10);
});

Deno.test("WatermarkStrategy.withIdleness() rejects a zero or negative timeout", () => {
  const strategy = WatermarkStrategy.noWatermarks();
  assert.throws(() => strategy.withIdleness(0), {
    name: "RangeError",
    message: /'idleTimeoutMs'.*0/,
  });
  assert.throws(() => strategy.withIdleness(-5), {
    name: "RangeError",
    message: /'idleTimeoutMs'.*-5/,
  });
});

Deno.test("WatermarkStrategy.withWatermarkAlignment() defaults the update interval to 1000 ms", () => {
  const strategy = WatermarkStrategy.forMonotonousTimestamps()
    .withWatermarkAlignment("group", 20);
  assert.deepEqual({ ...strategy.alignmentParameters }, {
    group: "group",
    maxDriftMs: 20,
    updateIntervalMs: 1_000,
  });
  assert.equal(isAlignmentEnabled(strategy.alignmentParameters), true);
});

Deno.test("WatermarkStrategy has alignment off by default", () => {
  const params =
    WatermarkStrategy.forMonotonousTimestamps().alignmentParameters;
  assert.deepEqual({ ...params }, {
    group: "",
    maxDriftMs: Infinity,
    updateIntervalMs: 0,
  });
  assert.equal(isAlignmentEnabled(params), false);
});

Deno.test("WatermarkStrategy builders reject bad arguments naming the parameter and value", () => {
  const strategy = WatermarkStrategy.noWatermarks<number>();
  assert.throws(() => WatermarkStrategy.forBoundedOutOfOrderness(-5), {
    name: "RangeError",
    message: /'maxOutOfOrdernessMs'.*-5/,
  });
  assert.throws(() => strategy.withWatermarkAlignment("", 10), {
    name: "RangeError",
    message: /'group'.*""/,
  });
  assert.throws(() => strategy.withWatermarkAlignment(7 as never, 10), {
    name: "TypeError",
    message: /'group'.*7/,
  });
  assert.throws(() => strategy.withWatermarkAlignment("g", NaN), {
    name: "RangeError",
    message: /'maxDriftMs'.*NaN/,
  });
  assert.throws(() => strategy.withWatermarkAlignment("g", 1, 0), {
    name: "RangeError",
    message: /'updateIntervalMs'.*0/,
  });
  assert.throws(() => strategy.withTimestampAssigner(null as never), {
    name: "TypeError",
    message: /'assigner'.*null/,
  });
  assert.throws(() => WatermarkStrategy.forGenerator(undefined as never), {
    name: "TypeError",
    message: /'factory'.*undefined/,
  });
});
