import assert from "node:assert/strict";
import { ScriptedSource } from "../../src/connectors/sources/scripted.ts";
import {
  type JobEdge,
  type JobGraph,
  type JobVertex,
  validateJobGraph,
} from "../../src/runtime/job_graph.ts";
import { forwardPartitioner } from "../../src/runtime/partitioner.ts";
import { WatermarkStrategy } from "../../src/time/watermark_strategy.ts";

function sourceVertex(id: string, parallelism = 1): JobVertex {
  return {
    id,
    name: id,
    parallelism,
    source: {
      source: new ScriptedSource<unknown>([]),
      strategy: WatermarkStrategy.noWatermarks(),
    },
    createOperators: () => [],
  };
}

function vertex(id: string, parallelism = 1): JobVertex {
  return { id, name: id, parallelism, createOperators: () => [] };
}

function edge(from: string, to: string, sideOutputTag?: string): JobEdge {
  return { from, to, partitioner: forwardPartitioner, sideOutputTag };
}

function graph(
  vertices: JobVertex[],
  edges: JobEdge[],
  maxParallelism = 8,
): JobGraph {
  return {
    jobName: "job-1",
    vertices,
    edges,
    maxParallelism,
    autoWatermarkIntervalMs: 200,
  };
}

Deno.test("validateJobGraph() accepts a source feeding a chain, a fan-out, a side output and a union", () => {
  validateJobGraph(graph(
    [
      sourceVertex("src-1", 2),
      sourceVertex("src-2", 1),
      vertex("map-3", 8),
      vertex("window-4", 4),
      vertex("late-5", 1),
      vertex("sink-6", 1),
    ],
    [
      edge("src-1", "map-3"),
      edge("src-2", "map-3"),
      edge("map-3", "window-4"),
      edge("window-4", "late-5", "late"),
      edge("window-4", "sink-6"),
      edge("map-3", "sink-6"),
    ],
  ));
});

Deno.test("validateJobGraph() accepts a lone source, which needs no edges", () => {
  validateJobGraph(graph([sourceVertex("src-1")], []));
});

Deno.test("validateJobGraph() rejects a repeated operator id, naming the job and the id", () => {
  assert.throws(
    () =>
      validateJobGraph(
        graph([sourceVertex("src-1"), vertex("map-2"), vertex("map-2")], [
          edge("src-1", "map-2"),
        ]),
      ),
    {
      name: "RangeError",
      message: /job 'job-1'.*ids must be unique.*'map-2', which repeats/,
    },
  );
});

Deno.test("validateJobGraph() rejects a parallelism outside [1, maxParallelism], naming 'parallelism', the operator and the value", () => {
  for (const parallelism of [0, -1, 9, 1.5, NaN, Infinity]) {
    assert.throws(
      () =>
        validateJobGraph(
          graph([sourceVertex("src-1"), vertex("map-2", parallelism)], [
            edge("src-1", "map-2"),
          ]),
        ),
      {
        name: "RangeError",
        message: new RegExp(
          `job 'job-1'.*'parallelism' of 'map-2'.*from 1 to maxParallelism 8: current value is ${parallelism}$`,
        ),
      },
      `parallelism ${parallelism}`,
    );
  }
});

Deno.test("validateJobGraph() accepts a parallelism equal to maxParallelism", () => {
  validateJobGraph(
    graph([sourceVertex("src-1", 8), vertex("map-2", 8)], [
      edge("src-1", "map-2"),
    ]),
  );
});

Deno.test("validateJobGraph() rejects an edge naming an unknown operator, naming both ends", () => {
  const vertices = [sourceVertex("src-1"), vertex("map-2")];
  assert.throws(
    () =>
      validateJobGraph(
        graph(vertices, [edge("src-1", "map-2"), edge("map-2", "nowhere")]),
      ),
    {
      name: "RangeError",
      message:
        /job 'job-1'.*edge must go from an operator to a later one.*'map-2' -> 'nowhere'/,
    },
  );
  assert.throws(
    () =>
      validateJobGraph(
        graph(vertices, [edge("src-1", "map-2"), edge("ghost", "map-2")]),
      ),
    { name: "RangeError", message: /'ghost' -> 'map-2'/ },
  );
});

Deno.test("validateJobGraph() rejects an edge that goes upstream or loops back to its own operator", () => {
  const vertices = [sourceVertex("src-1"), vertex("map-2"), vertex("map-3")];
  assert.throws(
    () =>
      validateJobGraph(
        graph(vertices, [
          edge("src-1", "map-2"),
          edge("map-2", "map-3"),
          edge("map-3", "map-2"),
        ]),
      ),
    {
      name: "RangeError",
      message: /later one: current value is 'map-3' -> 'map-2'/,
    },
  );
  assert.throws(
    () =>
      validateJobGraph(
        graph(vertices, [
          edge("src-1", "map-2"),
          edge("map-2", "map-2"),
          edge("map-2", "map-3"),
        ]),
      ),
    {
      name: "RangeError",
      message: /later one: current value is 'map-2' -> 'map-2'/,
    },
  );
});

Deno.test("validateJobGraph() rejects a source with an input, naming the source and the number of inputs", () => {
  assert.throws(
    () =>
      validateJobGraph(graph(
        [sourceVertex("src-1"), sourceVertex("src-2")],
        [edge("src-1", "src-2")],
      )),
    {
      name: "RangeError",
      message:
        /job 'job-1'.*source 'src-2' must have no inputs: current value is 1/,
    },
  );
});

Deno.test("validateJobGraph() rejects an operator without an input, naming the operator", () => {
  assert.throws(
    () =>
      validateJobGraph(
        graph([sourceVertex("src-1"), vertex("map-2"), vertex("orphan-3")], [
          edge("src-1", "map-2"),
        ]),
      ),
    {
      name: "RangeError",
      message:
        /job 'job-1'.*operator 'orphan-3' must have an input: current value is none/,
    },
  );
});
