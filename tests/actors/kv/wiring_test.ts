// The wiring of the KV runtime: which log each channel is. Graphs are built
// with the public API; every case checks that outputs and inputs pair up.

import assert from "node:assert/strict";
import {
  actorId,
  type ActorWiring,
  wireActors,
} from "../../../src/actors/kv/_wiring.ts";
import { StreamEnvironment } from "../../../src/api/stream_environment.ts";
import { CollectSink } from "../../../src/connectors/sinks/collect.ts";
import { ScriptedSource } from "../../../src/connectors/sources/scripted.ts";
import type { JobGraph } from "../../../src/runtime/job_graph.ts";
import { ManualClock } from "../../../src/time/clock.ts";
import { WatermarkStrategy } from "../../../src/time/watermark_strategy.ts";
import { OutputTag } from "../../../src/windows/output_tag.ts";

type Click = { user: number; ts: number };

function environment() {
  return new StreamEnvironment({
    jobName: "j",
    parallelism: 2,
    clock: new ManualClock(0),
  });
}

function clicks(env: StreamEnvironment, name = "src", partitions = 2) {
  return env.fromSource(
    new ScriptedSource<Click>([
      { at: 0, partition: 0, value: { user: 1, ts: 10 } },
      { at: 0, partition: partitions - 1, value: { user: 2, ts: 20 } },
    ], { partitions }),
    WatermarkStrategy.forMonotonousTimestamps<Click>().withTimestampAssigner(
      (click) => click.ts,
    ),
    name,
  );
}

/** Keeps every click, and sends odd users' to a side output too. */
function splitOdd(tag: OutputTag<Click>) {
  return (
    click: Click,
    ctx: { output<X>(tag: OutputTag<X>, value: X): void },
    out: (value: Click) => void,
  ) => {
    if (click.user % 2 === 1) ctx.output(tag, click);
    out(click);
  };
}

/**
 * Checks the wiring against the graph, independently of how wireActors
 * computes it: every subtask appears once; its outputs are, edge by edge in
 * graph order, one per consumer subtask; its inputs are, edge by edge, one
 * per producer subtask; and every output is the input that points back at
 * it (and conversely).
 */
function assertWiring(graph: JobGraph, wirings: ActorWiring[]): void {
  const parallelism = new Map(graph.vertices.map((v) => [v.id, v.parallelism]));
  // Subtasks: vertices in graph order, indices ascending.
  assert.deepEqual(
    wirings.map((w) => [w.id, w.vertex, w.index]),
    graph.vertices.flatMap((v) =>
      Array.from(
        { length: v.parallelism },
        (_, i) => [`${graph.jobName}/${v.id}/${i}`, v.id, i],
      )
    ),
  );
  const byId = new Map(wirings.map((w) => [w.id, w]));
  assert.equal(byId.size, wirings.length, "actor ids are unique");

  for (const actor of wirings) {
    const outEdges = graph.edges.filter((e) => e.from === actor.vertex);
    const inEdges = graph.edges.filter((e) => e.to === actor.vertex);
    // One edgeBase per outgoing edge, each edge's consumers one after another.
    assert.equal(actor.edgeBase.length, outEdges.length, actor.id);
    let base = 0;
    outEdges.forEach((edge, i) => {
      assert.equal(actor.edgeBase[i], base, `${actor.id} edgeBase[${i}]`);
      for (let c = 0; c < parallelism.get(edge.to)!; c++) {
        assert.equal(
          actor.outputs[base + c].consumer,
          actorId(graph, edge.to, c),
          `${actor.id} output ${base + c}`,
        );
      }
      base += parallelism.get(edge.to)!;
    });
    assert.equal(actor.outputs.length, base, `${actor.id} outputs`);
    // Inputs: each edge's producers one after another.
    let channel = 0;
    for (const edge of inEdges) {
      for (let p = 0; p < parallelism.get(edge.from)!; p++) {
        assert.equal(
          actor.inputs[channel].producer,
          actorId(graph, edge.from, p),
          `${actor.id} input ${channel}`,
        );
        channel++;
      }
    }
    assert.equal(actor.inputs.length, channel, `${actor.id} inputs`);
  }

  // The key invariant: outputs and inputs are the two ends of one channel.
  let pairs = 0;
  for (const actor of wirings) {
    actor.outputs.forEach((wire, k) => {
      const consumer = byId.get(wire.consumer);
      assert.ok(consumer, `${actor.id} output ${k}: unknown consumer`);
      assert.deepEqual(
        consumer.inputs[wire.channel],
        { producer: actor.id, out: k },
        `${actor.id} output ${k} -> ${wire.consumer} channel ${wire.channel}`,
      );
      pairs++;
    });
  }
  for (const actor of wirings) {
    actor.inputs.forEach((wire, c) => {
      const producer = byId.get(wire.producer);
      assert.ok(producer, `${actor.id} input ${c}: unknown producer`);
      assert.deepEqual(
        producer.outputs[wire.out],
        { consumer: actor.id, channel: c },
        `${actor.id} input ${c} <- ${wire.producer} out ${wire.out}`,
      );
      pairs--;
    });
  }
  assert.equal(pairs, 0, "as many outputs as inputs");
}

Deno.test("actorId() is job, vertex and subtask index", () => {
  const env = environment();
  clicks(env).keyBy((c) => c.user).process<Click>({
    processElement(click, _ctx, out) {
      out(click);
    },
  }).sinkTo(new CollectSink());
  const graph = env.getJobGraph();
  assert.equal(actorId(graph, "source-0", 0), "j/source-0/0");
  assert.equal(actorId(graph, "process-1", 1), "j/process-1/1");
});

Deno.test("wireActors() wires a keyed pipeline of two vertices", () => {
  const env = environment();
  clicks(env)
    .map((c) => c)
    .keyBy((c) => c.user)
    .process<Click>({
      processElement(click, _ctx, out) {
        out(click);
      },
    })
    .map((c) => c.user)
    .sinkTo(new CollectSink<number>());
  const graph = env.getJobGraph();
  // The maps are chained: one edge, source -> keyed process.
  assert.equal(graph.vertices.length, 2);
  assert.equal(graph.edges.length, 1);
  const wirings = wireActors(graph);
  assertWiring(graph, wirings);
  const [src, proc] = graph.vertices.map((v) => v.id);
  const out = (p: number) =>
    [0, 1].map((c) => ({
      consumer: `j/${proc}/${c}`,
      channel: p,
    }));
  const ins = (c: number) =>
    [0, 1].map((p) => ({ producer: `j/${src}/${p}`, out: c }));
  assert.deepEqual(wirings, [
    {
      id: `j/${src}/0`,
      vertex: src,
      index: 0,
      edgeBase: [0],
      outputs: out(0),
      inputs: [],
    },
    {
      id: `j/${src}/1`,
      vertex: src,
      index: 1,
      edgeBase: [0],
      outputs: out(1),
      inputs: [],
    },
    {
      id: `j/${proc}/0`,
      vertex: proc,
      index: 0,
      edgeBase: [],
      outputs: [],
      inputs: ins(0),
    },
    {
      id: `j/${proc}/1`,
      vertex: proc,
      index: 1,
      edgeBase: [],
      outputs: [],
      inputs: ins(1),
    },
  ]);
});

Deno.test("wireActors() wires vertices of different parallelisms", () => {
  const env = environment();
  clicks(env)
    .keyBy((c) => c.user)
    .process<Click>({
      processElement(click, _ctx, out) {
        out(click);
      },
    })
    .setParallelism(3)
    .sinkTo(new CollectSink())
    .setParallelism(1);
  const graph = env.getJobGraph();
  assert.deepEqual(graph.vertices.map((v) => v.parallelism), [2, 3, 1]);
  const wirings = wireActors(graph);
  assert.equal(wirings.length, 6);
  assertWiring(graph, wirings);
  const [, proc, sink] = graph.vertices.map((v) => v.id);
  // Each of the 3 keyed subtasks reads both source subtasks...
  for (let c = 0; c < 3; c++) {
    assert.equal(wirings[2 + c].inputs.length, 2);
    assert.deepEqual(wirings[2 + c].outputs, [
      { consumer: `j/${sink}/0`, channel: c },
    ]);
  }
  // ...and the lone sink reads all 3 of them, on out 0.
  assert.deepEqual(
    wirings[5].inputs,
    [0, 1, 2].map((p) => ({ producer: `j/${proc}/${p}`, out: 0 })),
  );
});

Deno.test("wireActors() wires a union of two sources into one vertex", () => {
  const env = environment();
  const left = clicks(env, "left");
  const right = clicks(env, "right", 3).setParallelism(3);
  left.map((c) => c).union(right)
    .keyBy((c) => c.user)
    .process<Click>({
      processElement(click, _ctx, out) {
        out(click);
      },
    })
    .sinkTo(new CollectSink());
  const graph = env.getJobGraph();
  const keyed = graph.vertices.find((v) => v.name.startsWith("KeyedProcess"))!;
  assert.equal(graph.edges.filter((e) => e.to === keyed.id).length, 2);
  const wirings = wireActors(graph);
  assertWiring(graph, wirings);
  const [leftId, rightId] = graph.vertices.map((v) => v.id);
  // Channels 0-1 are the left source's subtasks, 2-4 the right one's.
  const consumer = wirings.find((w) => w.id === `j/${keyed.id}/1`)!;
  assert.deepEqual(consumer.inputs, [
    { producer: `j/${leftId}/0`, out: 1 },
    { producer: `j/${leftId}/1`, out: 1 },
    { producer: `j/${rightId}/0`, out: 1 },
    { producer: `j/${rightId}/1`, out: 1 },
    { producer: `j/${rightId}/2`, out: 1 },
  ]);
  const right2 = wirings.find((w) => w.id === `j/${rightId}/2`)!;
  assert.deepEqual(right2.outputs, [
    { consumer: `j/${keyed.id}/0`, channel: 4 },
    { consumer: `j/${keyed.id}/1`, channel: 4 },
  ]);
});

Deno.test("wireActors() wires a vertex with a main and a side output to different vertices", () => {
  const env = environment();
  const tag = new OutputTag<Click>("odd");
  const split = clicks(env)
    .keyBy((c) => c.user)
    .process<Click>({
      processElement(click, _ctx, out) {
        out(click);
      },
    })
    .process<Click>(splitOdd(tag));
  split.sinkTo(new CollectSink()).setParallelism(3);
  split.getSideOutput(tag).sinkTo(new CollectSink()).setParallelism(1);
  const graph = env.getJobGraph();
  const producer = graph.vertices[1];
  const outEdges = graph.edges.filter((e) => e.from === producer.id);
  assert.equal(outEdges.length, 2);
  assert.deepEqual(outEdges.map((e) => e.sideOutputTag), [undefined, "odd"]);
  const wirings = wireActors(graph);
  assertWiring(graph, wirings);
  const [, , mainSink, sideSink] = graph.vertices.map((v) => v.id);
  const p1 = wirings.find((w) => w.id === `j/${producer.id}/1`)!;
  // Main output: 3 channels from 0; side output: 1 channel from 3.
  assert.deepEqual(p1.edgeBase, [0, 3]);
  assert.deepEqual(p1.outputs, [
    { consumer: `j/${mainSink}/0`, channel: 1 },
    { consumer: `j/${mainSink}/1`, channel: 1 },
    { consumer: `j/${mainSink}/2`, channel: 1 },
    { consumer: `j/${sideSink}/0`, channel: 1 },
  ]);
  const side = wirings.find((w) => w.id === `j/${sideSink}/0`)!;
  assert.deepEqual(side.inputs, [
    { producer: `j/${producer.id}/0`, out: 3 },
    { producer: `j/${producer.id}/1`, out: 3 },
  ]);
});

Deno.test("wireActors() wires two edges between the same two vertices apart", () => {
  const env = environment();
  const tag = new OutputTag<Click>("odd");
  const split = clicks(env)
    .keyBy((c) => c.user)
    .process<Click>({
      processElement(click, _ctx, out) {
        out(click);
      },
    })
    .setParallelism(3)
    .process<Click>(splitOdd(tag));
  // Main and side output of one vertex into one sink, plus a third consumer.
  split.union(split.getSideOutput(tag)).sinkTo(new CollectSink())
    .setParallelism(1);
  split.sinkTo(new CollectSink());
  const graph = env.getJobGraph();
  const producer = graph.vertices[1];
  const [unionSink, other] = graph.vertices.slice(2).map((v) => v.id);
  assert.deepEqual(
    graph.edges.filter((e) => e.from === producer.id).map((e) => e.to),
    [unionSink, unionSink, other],
  );
  const wirings = wireActors(graph);
  assertWiring(graph, wirings);
  const p2 = wirings.find((w) => w.id === `j/${producer.id}/2`)!;
  assert.deepEqual(p2.edgeBase, [0, 1, 2]);
  // Two different channels of the same sink: 2 (main) and 3 + 2 (side).
  assert.deepEqual(p2.outputs.slice(0, 2), [
    { consumer: `j/${unionSink}/0`, channel: 2 },
    { consumer: `j/${unionSink}/0`, channel: 5 },
  ]);
  const sink = wirings.find((w) => w.id === `j/${unionSink}/0`)!;
  assert.deepEqual(sink.inputs.map((w) => w.out), [0, 0, 0, 1, 1, 1]);
});

Deno.test("wireActors() wires a stream unioned with itself as two channels", () => {
  const env = environment();
  const keyed = clicks(env).keyBy((c) => c.user).process<Click>({
    processElement(click, _ctx, out) {
      out(click);
    },
  });
  keyed.union(keyed).sinkTo(new CollectSink());
  const graph = env.getJobGraph();
  assert.equal(graph.edges.length, 3);
  const wirings = wireActors(graph);
  assertWiring(graph, wirings);
  const k0 = wirings.find((w) => w.vertex === graph.vertices[1].id)!;
  assert.deepEqual(k0.edgeBase, [0, 2]);
  assert.equal(k0.outputs.length, 4);
  assert.equal(new Set(k0.outputs.map((w) => JSON.stringify(w))).size, 4);
});

Deno.test("wireActors() wires a fan-out and fan-in diamond", () => {
  const env = environment();
  const keyed = clicks(env).keyBy((c) => c.user).process<Click>({
    processElement(click, _ctx, out) {
      out(click);
    },
  });
  const a = keyed.map((c) => ({ ...c, ts: c.ts + 1 })).setParallelism(3);
  const b = keyed.filter((c) => c.user > 0).setParallelism(1);
  a.union(b).keyBy((c) => c.user).process<Click>({
    processElement(click, _ctx, out) {
      out(click);
    },
  }).sinkTo(new CollectSink());
  const graph = env.getJobGraph();
  assert.deepEqual(graph.vertices.map((v) => v.parallelism), [2, 2, 3, 1, 2]);
  const wirings = wireActors(graph);
  assertWiring(graph, wirings);
  const total = graph.edges.reduce(
    (n, e) =>
      n +
      graph.vertices.find((v) => v.id === e.from)!.parallelism *
        graph.vertices.find((v) => v.id === e.to)!.parallelism,
    0,
  );
  assert.equal(wirings.reduce((n, w) => n + w.outputs.length, 0), total);
});

Deno.test("assertWiring() catches a wrongly wired channel", () => {
  // The checker itself must be able to fail: swap two outputs' channels.
  const env = environment();
  clicks(env).keyBy((c) => c.user).process<Click>({
    processElement(click, _ctx, out) {
      out(click);
    },
  }).setParallelism(3).sinkTo(new CollectSink());
  const graph = env.getJobGraph();
  const wirings = wireActors(graph);
  assertWiring(graph, wirings);
  const broken = structuredClone(wirings);
  const outputs = broken[0].outputs as { consumer: string; channel: number }[];
  outputs[0] = { ...outputs[0], channel: 1 };
  assert.throws(() => assertWiring(graph, broken), assert.AssertionError);
});
