// Each operator declares its state kind; the API carries it into the job
// graph, and a checkpoint's operator record tells the same kind.

import assert from "node:assert/strict";
import {
  onlyEventTime,
  recordedStateKind,
} from "../../../src/runtime/rescale/state_kind.ts";
import { StreamEnvironment } from "../../../src/api/stream_environment.ts";
import { ManualClock } from "../../../src/time/clock.ts";
import { WatermarkStrategy } from "../../../src/time/watermark_strategy.ts";
import { TumblingEventTimeWindows } from "../../../src/windows/tumbling.ts";
import { CollectSink } from "../../../src/connectors/sinks/collect.ts";

Deno.test("StreamEnvironment gives every operator of the graph the state kind its class declares, the one its recorded meaning tells", () => {
  const env = new StreamEnvironment({
    jobName: "kinds",
    parallelism: 2,
    clock: new ManualClock(),
  });
  const keyed = env.fromCollection([1, 2, 3])
    .assignTimestampsAndWatermarks(WatermarkStrategy.forMonotonousTimestamps())
    .map((n) => n + 1).filter((n) => n > 0)
    .flatMap((n: number, out: (n: number) => void) => out(n))
    .process((n: number, _ctx, out) => out(n))
    .mapAsync((n) => Promise.resolve(n as number))
    .keyBy((n) => (n as number) % 2);
  keyed.process({ processElement: (n: number, _ctx, out) => out(n) })
    .keyBy((n) => n).mapAsync((n) => Promise.resolve(n as number))
    .sinkTo(new CollectSink());
  keyed.window(TumblingEventTimeWindows.of(10)).reduce((a, b) =>
    (a as number) + (b as number)
  )
    .sinkTo(new CollectSink());
  const operators = env.getJobGraph().vertices.flatMap((v) => v.operators!);
  const kinds = operators.map((op) => [op.state.operator, op.stateKind]);
  assert.deepEqual(
    new Map(kinds as [string, string][]),
    new Map([
      ["source", "source"],
      ["timestampsAndWatermarks", "generator"],
      ["map", "stateless"],
      ["filter", "stateless"],
      ["flatMap", "stateless"],
      ["process", "watermark"],
      ["async", "pinned"],
      ["keyedProcess", "keyed"],
      ["window", "windows"],
      ["sink", "transactions"],
    ]),
  );
  for (const op of operators) {
    assert.equal(recordedStateKind(op.state), op.stateKind, op.id);
  }
});

Deno.test("recordedStateKind() knows no operator name the API does not write, and onlyEventTime() drops only event-time progress", () => {
  assert.equal(recordedStateKind({ operator: "custom" }), undefined);
  assert.equal(recordedStateKind({ operator: "toString" }), undefined);
  assert.equal(recordedStateKind({}), undefined);
  assert.deepEqual(
    (["stateless", "watermark", "generator"] as const).map(onlyEventTime),
    [true, true, true],
  );
  assert.deepEqual(
    ([
      "windows",
      "keyed",
      "transactions",
      "source",
      "pinned",
      undefined,
    ] as const).map(onlyEventTime),
    [false, false, false, false, false, false],
  );
});
