// The window operator with processing time, global windows, dynamic session
// gaps and each kind of window function.

import assert from "node:assert/strict";
import { ManualClock } from "../../src/time/clock.ts";
import { CountTrigger } from "../../src/windows/count_trigger.ts";
import { GlobalWindows } from "../../src/windows/global.ts";
import { OutputTag } from "../../src/windows/output_tag.ts";
import { EventTimeSessionWindows } from "../../src/windows/session.ts";
import { TumblingEventTimeWindows } from "../../src/windows/tumbling.ts";
import { TumblingProcessingTimeWindows } from "../../src/windows/tumbling_processing_time.ts";
import {
  aggregateWindow,
  processWindow,
  reduceWindow,
} from "../../src/windows/window_function.ts";
import {
  type KV,
  sumHarness,
  WindowHarness,
} from "../_support/window_harness.ts";

Deno.test("WindowOperator fires processing-time windows on the clock and cleans them up, ignoring watermarks", () => {
  const clock = new ManualClock(1_000);
  const h = sumHarness(TumblingProcessingTimeWindows.of(5_000), { clock });
  h.element("a", 1, 0).element("a", 2, 999_999);
  assert.deepEqual(h.watermark(Infinity).take(), []);
  assert.equal(h.operator.nextProcessingTimeTimer, 4_999);
  clock.set(4_998);
  h.operator.onProcessingTime();
  assert.deepEqual(h.take(), []);
  clock.set(5_000);
  h.operator.onProcessingTime();
  assert.deepEqual(h.take(), ["(a,3)@4999"]);
  assert.equal(h.operator.numWindows, 0);
  assert.equal(h.operator.nextProcessingTimeTimer, Infinity);
});

Deno.test("WindowOperator reads processing time once per batch for a processing-time assigner, per record otherwise", () => {
  class CountingClock extends ManualClock {
    reads = 0;
    override now(): number {
      this.reads++;
      return super.now();
    }
  }
  const clock = new CountingClock(1_000);
  const h = sumHarness(TumblingProcessingTimeWindows.of(5_000), { clock });
  const batch: KV[] = Array.from({ length: 50 }, (_, i) => ["k" + (i % 5), 1]);
  h.operator.processBatch(batch, batch.map(() => 0));
  assert.equal(clock.reads, 1);
  assert.equal(h.operator.numWindows, 5);
  h.element("k0", 1, 0).element("k0", 1, 0);
  assert.equal(clock.reads, 3, "single records read the clock themselves");
  clock.set(5_000);
  h.operator.onProcessingTime();
  assert.deepEqual(h.take().sort(), [
    "(k0,12)@4999",
    "(k1,10)@4999",
    "(k2,10)@4999",
    "(k3,10)@4999",
    "(k4,10)@4999",
  ]);
});

Deno.test("WindowOperator fires a global window only through its trigger, never on the final watermark", () => {
  const h = sumHarness(GlobalWindows.create<KV>(), {
    trigger: CountTrigger.of<KV>(2),
  });
  h.element("a", 1, 5).element("b", 1, 6).element("a", 4, 7);
  assert.deepEqual(h.take(), ["(a,5)@Infinity"]);
  assert.deepEqual(h.watermark(Infinity).take(), []);
  assert.equal(h.operator.numWindows, 2);
});

Deno.test("WindowOperator merges dynamic-gap sessions by each record's own gap", () => {
  const h = new WindowHarness(
    {
      assigner: EventTimeSessionWindows.withDynamicGap<KV>((kv) =>
        kv[1] * 1_000
      ),
      windowFunction: processWindow<KV, string, string>((
        key,
        ctx,
        elements,
        out,
      ) =>
        out(
          `${key}:${
            elements.map((e) => e[1]).join("+")
          }[${ctx.window.start},${ctx.window.end})`,
        )
      ),
    },
    (s) => s,
  );
  h.element("a", 1, 0).element("a", 5, 900).element("a", 1, 10_000);
  assert.deepEqual(h.watermark(20_000).take(), [
    "a:1+5[0,5900)@5899",
    "a:1[10000,11000)@10999",
  ]);
});

Deno.test("WindowOperator merges aggregate accumulators of sessions with AggregateFunction.merge", () => {
  const merges: number[] = [];
  const h = new WindowHarness(
    {
      assigner: EventTimeSessionWindows.withGap<KV>(1_000),
      windowFunction: aggregateWindow<
        KV,
        { sum: number; n: number },
        number,
        string
      >({
        createAccumulator: () => ({ sum: 0, n: 0 }),
        add: (kv, acc) => ({ sum: acc.sum + kv[1], n: acc.n + 1 }),
        getResult: (acc) => acc.sum / acc.n,
        merge: (a, b) => {
          merges.push(a.n + b.n);
          return { sum: a.sum + b.sum, n: a.n + b.n };
        },
      }),
    },
    (avg) => `avg=${avg}`,
  );
  h.element("a", 2, 0).element("a", 6, 2_000).element("a", 4, 1_000);
  assert.deepEqual(merges, [2]);
  assert.deepEqual(h.watermark(5_000).take(), ["avg=4@2999"]);
});

Deno.test("WindowOperator hands a reduced result to a process function with the window and side outputs", () => {
  const audit = new OutputTag<KV>("audit");
  const h = new WindowHarness(
    {
      assigner: TumblingEventTimeWindows.of<KV>(1_000),
      windowFunction: reduceWindow<KV, string, string>(
        (a, b) => [a[0], Math.max(a[1], b[1])],
        (key, ctx, [max], out) => {
          out(`${key} max ${max[1]} at watermark ${ctx.currentWatermark}`);
          ctx.output(audit, [key, max[1]] as KV);
        },
      ),
    },
    (s) => s,
  );
  h.element("a", 3, 10).element("a", 9, 20).element("a", 4, 30);
  assert.deepEqual(h.watermark(999).take(), [
    "a max 9 at watermark 999@999",
    "audit a:9@999",
  ]);
});

Deno.test("WindowOperator emits nothing for a window purged before its timer", () => {
  const h = sumHarness(TumblingEventTimeWindows.of(1_000), {
    trigger: {
      canMerge: false,
      onElement: () => "purge",
      onEventTime: () => "fire",
      onProcessingTime: () => "continue",
      onMerge() {},
      clear() {},
    },
  });
  h.element("a", 1, 5);
  h.operator.processWatermark(0);
  h.element("a", 1, 6);
  assert.deepEqual(h.watermark(999).take(), []);
});

Deno.test("WindowOperator rejects a merging assigner with a trigger that cannot merge", () => {
  assert.throws(
    () =>
      sumHarness(EventTimeSessionWindows.withGap<KV>(10), {
        trigger: { ...CountTrigger.of<KV>(2), canMerge: false } as never,
      }),
    { name: "TypeError", message: /'trigger'/ },
  );
});
