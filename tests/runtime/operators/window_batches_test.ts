// A watermark that fires many windows hands their results on in batches of
// about a thousand, split only between windows, all before the watermark;
// a window whose function throws still loses exactly its own results.

import assert from "node:assert/strict";
import { WindowStreamOperator } from "../../../src/runtime/operators/window.ts";
import type {
  OperatorContext,
  OperatorOutput,
} from "../../../src/runtime/stream_operator.ts";
import { ManualClock } from "../../../src/time/clock.ts";
import { PausableClock } from "../../../src/time/pausable_clock.ts";
import { SlidingEventTimeWindows } from "../../../src/windows/sliding.ts";
import { TumblingEventTimeWindows } from "../../../src/windows/tumbling.ts";
import type { WindowAssigner } from "../../../src/windows/window_assigner.ts";
import {
  aggregateWindow,
  type ProcessWindowFunction,
} from "../../../src/windows/window_function.ts";

const count = {
  createAccumulator: () => 0,
  add: (_k: number, n: number) => n + 1,
  getResult: (n: number) => n,
  merge: (a: number, b: number) => a + b,
};

interface Run {
  /** Each emitBatch's values, in order; "W<n>" for a watermark. */
  readonly events: (string[] | string)[];
  /** The records set aside, as `key@timestamp`. */
  readonly rejected: string[];
  readonly operator: WindowStreamOperator<number, number, number, string>;
}

// A counting window operator per key (the record is its key), opened with
// an output that keeps its batches apart and a reject that records.
function open(
  assigner: WindowAssigner<number>,
  process: ProcessWindowFunction<number, string, number>,
): Run {
  const events: (string[] | string)[] = [];
  const rejected: string[] = [];
  const operator = new WindowStreamOperator<number, number, number, string>({
    assigner,
    keySelector: (k) => k,
    windowFunction: aggregateWindow(count, process),
  });
  const clock = new ManualClock(0);
  const context: OperatorContext = {
    clock,
    activityClock: new PausableClock(clock),
    subtaskIndex: 0,
    parallelism: 1,
    metrics: { gauge() {} },
    requestMail() {},
    reject(value, timestamp) {
      const { key } = value as { key: number };
      rejected.push(`${key}@${timestamp}`);
    },
  };
  const output: OperatorOutput<string> = {
    emitBatch: (values) => void events.push([...values]),
    emitWatermark: (watermark) => void events.push(`W${watermark}`),
    emitWatermarkStatus() {},
    emitSideOutput() {},
  };
  operator.open(context, output);
  return { events, rejected, operator };
}

const keys = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

Deno.test("WindowStreamOperator hands a watermark's 3000 tumbling results on in batches of 1024, in firing order, before the watermark", () => {
  const run = open(
    TumblingEventTimeWindows.of(10),
    (key, _ctx, [n], out) => out(`${key}:${n}`),
  );
  const records = keys(3000);
  run.operator.processBatch(records, records.map(() => 5));
  run.operator.processWatermark(9);
  const sizes = run.events.map((e) => typeof e === "string" ? e : e.length);
  assert.deepEqual(sizes, [1024, 1024, 952, "W9"]);
  assert.deepEqual(
    run.events.slice(0, 3).flat(),
    records.map((k) => `${k}:1`),
  );
});

Deno.test("WindowStreamOperator never splits one window's results over two batches", () => {
  // Three results per window: a batch goes once 1024 are held, at 1026
  // (after 342 windows), again after 684, and the last 48 at the watermark.
  const run = open(
    TumblingEventTimeWindows.of(10),
    (key, _ctx, _n, out) => {
      for (let i = 0; i < 3; i++) out(`${key}.${i}`);
    },
  );
  const records = keys(700);
  run.operator.processBatch(records, records.map(() => 5));
  run.operator.processWatermark(9);
  const sizes = run.events.map((e) => typeof e === "string" ? e : e.length);
  assert.deepEqual(sizes, [1026, 1026, 48, "W9"]);
  for (const batch of run.events.slice(0, 3)) {
    assert.ok((batch as string[]).at(-1)!.endsWith(".2"));
  }
});

Deno.test("WindowStreamOperator drops only the results of a window whose function throws, also right after a batch went", () => {
  // Window 342 (the first after the batch of 1026) emits two, then throws.
  const run = open(
    TumblingEventTimeWindows.of(10),
    (key, _ctx, _n, out) => {
      for (let i = 0; i < 3; i++) {
        if (key === 342 && i === 2) throw new Error("Cannot emit for 342");
        out(`${key}.${i}`);
      }
    },
  );
  const records = keys(700);
  run.operator.processBatch(records, records.map(() => 5));
  run.operator.processWatermark(9);
  assert.deepEqual(run.rejected, ["342@9"]);
  const results = run.events.filter((e) => typeof e !== "string").flat();
  const want = records.filter((k) => k !== 342).flatMap((k) => [
    `${k}.0`,
    `${k}.1`,
    `${k}.2`,
  ]);
  assert.deepEqual(results, want);
  assert.equal(run.events.at(-1), "W9");
});

Deno.test("WindowStreamOperator batches the results of sliding windows fired by one watermark, each window's panes in creation order", () => {
  const run = open(
    SlidingEventTimeWindows.of(20, 10),
    (key, ctx, [n], out) => out(`${ctx.window.start}/${key}:${n}`),
  );
  const records = keys(1500);
  run.operator.processBatch(records, records.map(() => 15));
  run.operator.processWatermark(29);
  const sizes = run.events.map((e) => typeof e === "string" ? e : e.length);
  assert.deepEqual(sizes, [1024, 1024, 952, "W29"]);
  assert.deepEqual(run.events.slice(0, 3).flat(), [
    ...records.map((k) => `0/${k}:1`),
    ...records.map((k) => `10/${k}:1`),
  ]);
});
