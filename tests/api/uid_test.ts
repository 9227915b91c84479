// DataStream.uid(): which operators take one, how it is checked, and what
// the job graph and the fingerprint record for each operator.

import assert from "node:assert/strict";
import { ManualClock } from "../../src/time/clock.ts";
import { WatermarkStrategy } from "../../src/time/watermark_strategy.ts";
import { OutputTag } from "../../src/windows/output_tag.ts";
import { SlidingEventTimeWindows } from "../../src/windows/sliding.ts";
import { TumblingEventTimeWindows } from "../../src/windows/tumbling.ts";
import { EventTimeSessionWindows } from "../../src/windows/session.ts";
import { CountTrigger } from "../../src/windows/count_trigger.ts";
import { ScriptedSource } from "../../src/connectors/sources/scripted.ts";
import { CollectSink } from "../../src/connectors/sinks/collect.ts";
import { StreamEnvironment } from "../../src/api/stream_environment.ts";
import type { DataStream } from "../../src/api/data_stream.ts";
import { fingerprintOf } from "../../src/runtime/fingerprint.ts";
import {
  type JobGraph,
  validateJobGraph,
} from "../../src/runtime/job_graph.ts";

type Click = { page: string; ts: number };

function env(): StreamEnvironment {
  return new StreamEnvironment({
    jobName: "clicks",
    parallelism: 2,
    clock: new ManualClock(0),
  });
}

function clicks(e: StreamEnvironment): DataStream<Click> {
  return e.fromSource(
    new ScriptedSource<Click>([]),
    WatermarkStrategy.forMonotonousTimestamps<Click>()
      .withTimestampAssigner((c) => c.ts),
    "clicks",
  );
}

/** Each operator of the graph as `id/uid`, in chain order. */
function ids(graph: JobGraph): string[] {
  return graph.vertices.flatMap((v) =>
    (v.operators ?? []).map((op) => `${op.id}/${op.uid ?? "-"}`)
  );
}

Deno.test("DataStream.uid() names every kind of operator that creates one: source, map, filter, flatMap, process, timestamps, async, window, keyed process, sink", () => {
  const e = env();
  const source = clicks(e).uid("src");
  const mapped = source.map((c) => c).uid("m").filter(() => true).uid("f")
    .flatMap<Click>((c, out) => out(c)).uid("fm")
    .process<Click>((c, _ctx, out) => out(c)).uid("p")
    .assignTimestampsAndWatermarks(
      WatermarkStrategy.forMonotonousTimestamps<Click>()
        .withTimestampAssigner((c) => c.ts),
    ).uid("ts")
    .mapAsync((c) => Promise.resolve(c)).uid("async");
  mapped.keyBy((c) => c.page).window(TumblingEventTimeWindows.of(1_000))
    .reduce((a) => a).uid("win").sinkTo(new CollectSink()).uid("out");
  mapped.keyBy((c) => c.page).process<string>({
    processElement: (c, _ctx, out) => out(c.page),
  }).uid("kp").keyBy((p) => p).mapAsync((p) => Promise.resolve(p))
    .uid("kasync").sinkTo(new CollectSink()).uid("out2");
  assert.deepEqual(ids(e.getJobGraph()), [
    "source-0/src",
    "map-1/m",
    "filter-2/f",
    "flatMap-3/fm",
    "process-4/p",
    "timestamps-5/ts",
    "async-6/async",
    "window-7/win",
    "sink-8/out",
    "process-9/kp",
    "async-10/kasync",
    "sink-11/out2",
  ]);
});

Deno.test("DataStream.uid() leaves positional ids, vertex ids and actor ids as they were, so checkpoints taken before uids still match", () => {
  const build = (uids: boolean) => {
    const e = env();
    const source = clicks(e);
    const counts = (uids ? source.uid("src") : source).keyBy((c) => c.page)
      .window(TumblingEventTimeWindows.of(1_000)).reduce((a) => a);
    (uids ? counts.uid("counts") : counts).sinkTo(new CollectSink());
    return e.getJobGraph();
  };
  const [without, withUids] = [build(false), build(true)];
  assert.deepEqual(
    withUids.vertices.map((v) => v.id),
    without.vertices.map((v) => v.id),
  );
  assert.deepEqual(
    fingerprintOf(withUids).operatorIds,
    fingerprintOf(without).operatorIds,
  );
  assert.deepEqual(ids(withUids), [
    "source-0/src",
    "window-1/counts",
    "sink-2/-",
  ]);
});

Deno.test("DataStream.uid() refuses a value that is not a string with a TypeError naming 'uid'", () => {
  assert.throws(() => clicks(env()).uid(7 as unknown as string), {
    name: "TypeError",
    message:
      "Cannot set uid as 'uid' must be a non-empty string: current value is 7",
  });
});

Deno.test("DataStream.uid() refuses an empty string with a RangeError naming 'uid'", () => {
  assert.throws(() => clicks(env()).uid(""), {
    name: "RangeError",
    message: /^Cannot set uid as 'uid' must be a non-empty string/,
  });
});

Deno.test("DataStream.uid() refuses a uid another operator of the job has, naming the uid and both operators", () => {
  const e = env();
  const counts = clicks(e).uid("counts").keyBy((c) => c.page)
    .window(TumblingEventTimeWindows.of(1_000)).reduce((a) => a);
  assert.throws(() => counts.uid("counts"), {
    name: "RangeError",
    message:
      "Cannot set uid as 'uid' must be unique in job 'clicks': current value is 'counts', already the uid of operator 'clicks' (source-0), so it cannot also name operator 'Window' (window-1); give each operator its own uid",
  });
});

Deno.test("DataStream.uid() may be set again on the same operator, and a uid may equal another operator's positional id", () => {
  const e = env();
  const source = clicks(e).uid("a").uid("b");
  source.map((c) => c).uid("source-0");
  assert.deepEqual(ids(e.getJobGraph()), ["source-0/b", "map-1/source-0"]);
});

Deno.test("DataStream.uid() refuses a union and a side output, whose operators take their uids where they are made", () => {
  const e = env();
  const a = clicks(e);
  const b = clicks(e);
  assert.throws(() => a.union(b).uid("both"), {
    name: "RangeError",
    message:
      "Cannot set uid as the stream must be made by one operator: current value is a union; set the uid on the stream each operator returns",
  });
  const tag = new OutputTag<Click>("late");
  const windows = a.keyBy((c) => c.page)
    .window(TumblingEventTimeWindows.of(1_000)).sideOutputLateData(tag)
    .reduce((x) => x);
  assert.throws(() => windows.getSideOutput(tag).uid("late"), {
    name: "RangeError",
    message: /current value is side output 'late' of operator 'Window'/,
  });
});

Deno.test("fingerprintOf() an API job records each operator's vertex, place in its chain, uid and what its state means", () => {
  const e = env();
  clicks(e).uid("src").map((c) => c)
    .keyBy((c) => c.page).window(SlidingEventTimeWindows.of(10_000, 5_000))
    .aggregate({
      createAccumulator: () => 0,
      add: (_c, n: number) => n + 1,
      getResult: (n) => n,
      merge: (x, y) => x + y,
    }).uid("counts").map((n) => n).sinkTo(new CollectSink());
  assert.deepEqual(fingerprintOf(e.getJobGraph()).operators, [
    {
      id: "source-0",
      uid: "src",
      name: "clicks",
      vertexId: "source-0",
      index: -1,
      state: { operator: "source", connector: "ScriptedSource" },
    },
    {
      id: "map-1",
      name: "Map",
      vertexId: "source-0",
      index: 1,
      state: { operator: "map" },
    },
    {
      id: "window-2",
      uid: "counts",
      name: "Window",
      vertexId: "window-2",
      index: 0,
      state: {
        operator: "window",
        keyed: true,
        assigner: "SlidingEventTimeWindows",
        sizeMs: 10_000,
        slideMs: 5_000,
        offsetMs: 0,
        function: "aggregate",
        trigger: "default",
      },
    },
    {
      id: "map-3",
      name: "Map",
      vertexId: "window-2",
      index: 1,
      state: { operator: "map" },
    },
    {
      id: "sink-4",
      name: "Sink: collect",
      vertexId: "window-2",
      index: 2,
      state: { operator: "sink", connector: "CollectSink" },
    },
  ]);
});

Deno.test("fingerprintOf() records a session window's gap, a dynamic gap, a custom trigger and a keyed process function", () => {
  const meaning = (build: (s: DataStream<Click>) => void) => {
    const e = env();
    build(clicks(e));
    return fingerprintOf(e.getJobGraph()).operators![1].state;
  };
  const keyed = (s: DataStream<Click>) => s.keyBy((c) => c.page);
  assert.deepEqual(
    meaning((s) =>
      keyed(s).window(EventTimeSessionWindows.withGap(30_000)).process(
        () => {},
      )
    ),
    {
      operator: "window",
      keyed: true,
      assigner: "EventTimeSessionWindows",
      gapMs: 30_000,
      function: "process",
      trigger: "default",
    },
  );
  assert.equal(
    meaning((s) =>
      keyed(s).window(EventTimeSessionWindows.withDynamicGap(() => 5))
        .reduce((a) => a)
    ).gapMs,
    "dynamic",
  );
  assert.equal(
    meaning((s) =>
      keyed(s).window(TumblingEventTimeWindows.of(1_000))
        .trigger(CountTrigger.of(3)).reduce((a) => a)
    ).trigger,
    "CountTrigger",
  );
  assert.deepEqual(
    meaning((s) => keyed(s).process({ processElement() {} })),
    { operator: "keyedProcess", keyed: true },
  );
});

Deno.test("validateJobGraph() refuses two operators with one uid, naming both (graphs built by hand)", () => {
  const graph = env().getJobGraph();
  const op = (id: string, uid: string) => ({ id, uid, name: id, state: {} });
  assert.throws(
    () =>
      validateJobGraph({
        ...graph,
        vertices: [
          {
            id: "a-1",
            name: "a",
            parallelism: 1,
            createOperators: () => [],
            source: {
              source: new ScriptedSource([]),
              strategy: WatermarkStrategy.noWatermarks(),
            },
            operators: [op("a-1", "x")],
          },
          {
            id: "b-2",
            name: "b",
            parallelism: 1,
            createOperators: () => [],
            operators: [op("b-2", "x")],
          },
        ],
        edges: [{ from: "a-1", to: "b-2", partitioner: () => ({}) as never }],
      }),
    {
      name: "RangeError",
      message:
        "Cannot run job 'clicks' as operator uids must be unique: current value is 'x', the uid of operator 'a-1' (a-1) and operator 'b-2' (b-2)",
    },
  );
});
