// assignOperatorState(): a checkpoint's state put together operator by
// operator for a job whose chains changed, on plain snapshots.

import assert from "node:assert/strict";
import {
  CheckpointMismatchError,
  fingerprintOf,
  type JobFingerprint,
} from "../../../src/runtime/fingerprint.ts";
import type {
  JobGraph,
  JobVertex,
  OperatorDescriptor,
} from "../../../src/runtime/job_graph.ts";
import { assignOperatorState } from "../../../src/runtime/rescale/operator_assignment.ts";
import type { StateKind } from "../../../src/runtime/rescale/state_kind.ts";
import { forwardPartitioner } from "../../../src/runtime/partitioner.ts";
import { ScriptedSource } from "../../../src/connectors/sources/scripted.ts";
import { WatermarkStrategy } from "../../../src/time/watermark_strategy.ts";

const WINDOW = { operator: "window", keyed: true, sizeMs: 1_000 };
const SOURCE = { operator: "source" };

function d(
  id: string,
  state: object,
  uid?: string,
  stateKind?: StateKind,
): OperatorDescriptor {
  return {
    id,
    ...(uid === undefined ? {} : { uid }),
    name: id,
    state: state as OperatorDescriptor["state"],
    ...(stateKind === undefined ? {} : { stateKind }),
  };
}

function source(id: string, parallelism: number, ops: OperatorDescriptor[]) {
  return {
    id,
    name: id,
    parallelism,
    createOperators: () => [],
    source: {
      source: new ScriptedSource([]),
      strategy: WatermarkStrategy.noWatermarks(),
    },
    operators: ops,
  } satisfies JobVertex;
}

function vertex(id: string, parallelism: number, ops: OperatorDescriptor[]) {
  return {
    id,
    name: id,
    parallelism,
    createOperators: () => [],
    operators: ops,
  } satisfies JobVertex;
}

function job(vertices: JobVertex[]): JobGraph {
  return {
    jobName: "j",
    vertices,
    edges: vertices.slice(1).map((v, i) => ({
      from: vertices[i].id,
      to: v.id,
      partitioner: forwardPartitioner,
    })),
    maxParallelism: 128,
    autoWatermarkIntervalMs: 0,
  };
}

/** A window operator's snapshot holding one window of `key`. */
function windows(key: string, contents: number) {
  return {
    slots: [{ id: 0, key, start: 0, end: 1_000, contents }],
    nextId: 1,
    timers: { currentWatermark: 400, eventTime: [0, 999], processingTime: [] },
    numLateRecordsDropped: 0,
  };
}

const READER = { partitions: ["p-0"], positions: [7], cursor: 0 };
const VALVE = {
  watermarks: [400],
  statuses: ["active"],
  aligned: [true],
  lastOutputWatermark: 400,
  lastOutputIdle: false,
};

/** Version 1: source "in" -> window "counts" (one vertex each), at parallelism 1. */
const V1 = job([
  source("source-0", 1, [d("source-0", SOURCE, "in")]),
  vertex("window-1", 1, [d("window-1", WINDOW, "counts", "windows")]),
]);
const V1_SNAPSHOTS: Record<string, unknown> = {
  "source-0": [{
    reader: READER,
    chain: { operators: [null], ended: [false] },
  }],
  "window-1": [{ operators: [windows("a", 5)], valve: VALVE, ended: [false] }],
};

function assign(
  graph: JobGraph,
  options: { fingerprint?: JobFingerprint; allow?: boolean } = {},
) {
  return assignOperatorState(graph, {
    checkpointId: 4,
    fingerprint: options.fingerprint ?? fingerprintOf(V1),
    snapshotsOf: (vertexId) => V1_SNAPSHOTS[vertexId] as unknown[],
    readerPartitions: () => [["p-0"]],
    allowNonRestoredState: options.allow,
  });
}

Deno.test("assignOperatorState() finds a uid'd window after a map was added before it (into the source's chain), with its vertex's valve", () => {
  const v2 = job([
    source("source-0", 1, [
      d("source-0", SOURCE, "in"),
      d("map-1", { operator: "map" }),
    ]),
    vertex("window-2", 1, [d("window-2", WINDOW, "counts", "windows")]),
  ]);
  const out = assign(v2);
  assert.deepEqual(out.get("source-0"), [
    { reader: READER, chain: { operators: [null, undefined], ended: [false] } },
  ]);
  assert.deepEqual(out.get("window-2"), [
    { operators: [windows("a", 5)], valve: VALVE, ended: [false] },
  ]);
});

Deno.test("assignOperatorState() finds a uid'd window after a map was added after it (into its own chain)", () => {
  const v2 = job([
    V1.vertices[0],
    vertex("window-1", 1, [
      d("window-1", WINDOW, "counts", "windows"),
      d("map-2", { operator: "map" }),
    ]),
  ]);
  assert.deepEqual(assign(v2).get("window-1"), [
    { operators: [windows("a", 5), undefined], valve: VALVE, ended: [false] },
  ]);
});

Deno.test("assignOperatorState() redistributes a uid'd window by key group when it moves and its parallelism changes", () => {
  const v2 = job([
    V1.vertices[0],
    vertex("map-1", 1, [d("map-1", { operator: "map" })]),
    vertex("window-2", 3, [d("window-2", WINDOW, "counts", "windows")]),
  ]);
  const out = assign(v2).get("window-2") as {
    operators: { slots: { key: string; contents: number }[] }[];
    valve?: unknown;
  }[];
  assert.equal(out.length, 3);
  const slots = out.flatMap((s) => s.operators[0].slots);
  assert.deepEqual(slots.map((s) => [s.key, s.contents]), [["a", 5]]);
  // The window was and is first in its vertex, which had one input channel
  // and still has one: its valve comes along to every new subtask.
  assert.ok(out.every((s) => s.valve !== undefined));
});

Deno.test("assignOperatorState() leaves an operator the checkpoint lacks undefined, and a source it lacks at its start (reader undefined)", () => {
  const v2 = job([
    source("source-0", 1, [d("source-0", SOURCE, "other")]),
    vertex("window-1", 1, [d("window-1", WINDOW, "counts", "windows")]),
    vertex("process-2", 1, [d("process-2", { operator: "keyedProcess" })]),
  ]);
  const out = assign(v2, { allow: true });
  assert.deepEqual(out.get("source-0"), [
    { reader: undefined, chain: { operators: [undefined], ended: [false] } },
  ]);
  assert.deepEqual(out.get("process-2"), [
    { operators: [undefined], ended: [false] },
  ]);
});

Deno.test("assignOperatorState() refuses to drop state of an operator the job no longer has, naming it and how to go on", () => {
  const v2 = job([
    V1.vertices[0],
    vertex("window-1", 1, [d("window-1", WINDOW, "totals", "windows")]),
  ]);
  assert.throws(() => assign(v2), (error: unknown) => {
    assert.ok(error instanceof CheckpointMismatchError);
    assert.deepEqual(error.differences, [
      "operator 'counts' (window-1) has state in the checkpoint but is not in this job",
    ]);
    assert.match(
      error.message,
      /; to keep that state, give the operator its uid\(\) back; to drop it, restore with allowNonRestoredState: true \(--allow-non-restored-state\); or, to start over without its state, run with --restore none or execute\(\{ restore: "none" \}\)$/,
    );
    return true;
  });
  // Allowed: the new window starts empty, and so does its vertex's event
  // time (the valve came with the old window's uid).
  const out = assign(v2, { allow: true });
  assert.deepEqual(out.get("window-1"), [
    { operators: [undefined], ended: [false] },
  ]);
});

Deno.test("assignOperatorState() refuses to drop a source's positions, and drops stateless operators and event-time progress freely", () => {
  const withExtras = job([
    source("source-0", 1, [
      d("source-0", SOURCE, "in"),
      d("map-1", { operator: "map" }),
      d("process-2", { operator: "process" }),
    ]),
    vertex("window-3", 1, [d("window-3", WINDOW, "counts", "windows")]),
  ]);
  const snapshots: Record<string, unknown> = {
    "source-0": [{
      reader: READER,
      chain: {
        operators: [null, null, { currentWatermark: 400 }],
        ended: [false],
      },
    }],
    "window-3": V1_SNAPSHOTS["window-1"],
  };
  const restore = (graph: JobGraph) =>
    assignOperatorState(graph, {
      checkpointId: 4,
      fingerprint: fingerprintOf(withExtras),
      snapshotsOf: (vertexId) => snapshots[vertexId] as unknown[],
      readerPartitions: () => [["p-0"]],
    });
  // The map and the process function are gone: nothing lost.
  const out = restore(V1);
  assert.deepEqual(out.get("window-1"), [
    { operators: [windows("a", 5)], valve: VALVE, ended: [false] },
  ]);
  // The source has another uid: its positions would be lost.
  assert.throws(
    () =>
      restore(job([
        source("source-0", 1, [d("source-0", SOURCE, "elsewhere")]),
        vertex("window-1", 1, [d("window-1", WINDOW, "counts", "windows")]),
      ])),
    { name: "CheckpointMismatchError", message: /operator 'in' \(source-0\)/ },
  );
});

Deno.test("assignOperatorState() refuses a uid that was a source in the checkpoint and is not one in the job", () => {
  const v2 = job([
    source("source-0", 1, [d("source-0", SOURCE, "new")]),
    vertex("map-1", 1, [d("map-1", { operator: "source" }, "in")]),
    vertex("window-2", 1, [d("window-2", WINDOW, "counts", "windows")]),
  ]);
  assert.throws(() => assign(v2), {
    name: "CheckpointMismatchError",
    message:
      /operator 'in' \(map-1\) is not a source in this job, but one in the checkpoint/,
  });
});
