// snapshotsToRestore(): a checkpoint's snapshots, loaded and checked once,
// restored vertex by vertex where the checkpoint lists no operators (as
// checkpoints written before uids), each state split as its operator's
// declared kind says.

import assert from "node:assert/strict";
import type {
  JobGraph,
  JobVertex,
  OperatorDescriptor,
} from "../../../src/runtime/job_graph.ts";
import { forwardPartitioner } from "../../../src/runtime/partitioner.ts";
import { ScriptedSource } from "../../../src/connectors/sources/scripted.ts";
import { WatermarkStrategy } from "../../../src/time/watermark_strategy.ts";
import {
  type CheckpointSnapshots,
  loadVertexSnapshots,
} from "../../../src/runtime/rescale/load.ts";
import { snapshotsToRestore } from "../../../src/runtime/rescale/restore_plan.ts";

const WINDOW: OperatorDescriptor = {
  id: "window-1",
  name: "Window",
  state: { operator: "window", keyed: true },
  stateKind: "windows",
};

function job(parallelism: number, withDescriptors: boolean): JobGraph {
  const source: JobVertex = {
    id: "source-0",
    name: "Source",
    parallelism: 1,
    createOperators: () => [],
    source: {
      source: new ScriptedSource([]),
      strategy: WatermarkStrategy.noWatermarks(),
    },
  };
  const window: JobVertex = {
    id: "window-1",
    name: "Window",
    parallelism,
    createOperators: () => [],
  };
  return {
    jobName: "j",
    vertices: withDescriptors
      ? [
        {
          ...source,
          operators: [{ id: "source-0", name: "Source", state: {} }],
        },
        { ...window, operators: [WINDOW] },
      ]
      : [source, window],
    edges: [{
      from: "source-0",
      to: "window-1",
      partitioner: forwardPartitioner,
    }],
    maxParallelism: 128,
    autoWatermarkIntervalMs: 0,
  };
}

function windows(key: string) {
  return {
    slots: [{ id: 0, key, start: 0, end: 1_000, contents: 1 }],
    nextId: 1,
    timers: { currentWatermark: 400, eventTime: [0, 999], processingTime: [] },
    numLateRecordsDropped: 0,
  };
}

/** A checkpoint without operator lists, its window vertex at parallelism 2. */
const CHECKPOINT: CheckpointSnapshots = {
  id: 3,
  fingerprint: {
    jobName: "j",
    operatorIds: ["source-0", "window-1"],
    maxParallelism: 128,
    stateFormatVersion: 1,
  },
  subtasks: {
    "j/source-0/0": {
      reader: { partitions: ["p-0"], positions: [4], cursor: 0 },
      chain: { operators: [null], ended: [false] },
    },
    "j/window-1/0": { operators: [windows("a")], ended: [false] },
    "j/window-1/1": { operators: [windows("b")], ended: [false] },
  },
};

Deno.test("snapshotsToRestore() splits a checkpoint without operator lists vertex by vertex, each state as its operator's declared kind says", () => {
  const out = snapshotsToRestore(job(1, true), CHECKPOINT, () => [["p-0"]]);
  assert.deepEqual(
    out.get("j/source-0/0"),
    CHECKPOINT.subtasks["j/source-0/0"],
  );
  const [only] = [out.get("j/window-1/0")] as {
    operators: { slots: { key: string }[] }[];
  }[];
  assert.deepEqual(only.operators[0].slots.map((s) => s.key), ["a", "b"]);
});

Deno.test("snapshotsToRestore() refuses to split state of an operator that declares no kind, naming it and the old subtask", () => {
  assert.throws(
    () => snapshotsToRestore(job(1, false), CHECKPOINT, () => [["p-0"]]),
    {
      name: "TypeError",
      message: /operator 0 of vertex 'window-1'.*old subtask 0 is \{"slots"/,
    },
  );
  // At the same parallelism nothing is split: the snapshots come as they are.
  const out = snapshotsToRestore(job(2, false), CHECKPOINT, () => [["p-0"]]);
  assert.equal(out.get("j/window-1/1"), CHECKPOINT.subtasks["j/window-1/1"]);
});

Deno.test("loadVertexSnapshots() checks a vertex's snapshots once: subtasks 0, 1, 2... each a subtask snapshot of one chain length", () => {
  const load = (subtasks: Record<string, unknown>) =>
    loadVertexSnapshots({ ...CHECKPOINT, subtasks }, "j", "window-1");
  assert.throws(() => load({}), {
    name: "RangeError",
    message: /must hold snapshots of vertex 'window-1'/,
  });
  assert.throws(
    () => load({ "j/window-1/1": CHECKPOINT.subtasks["j/window-1/1"] }),
    { name: "RangeError", message: /lacks 'j\/window-1\/0'/ },
  );
  assert.throws(() => load({ "j/window-1/0": { operators: [] } }), {
    name: "TypeError",
    message: /'old\[0\]' must be a subtask snapshot \{ operators, ended \}/,
  });
  assert.throws(
    () =>
      load({
        "j/window-1/0": { operators: [null], ended: [] },
        "j/window-1/1": { operators: [null, null], ended: [] },
      }),
    {
      name: "TypeError",
      message:
        /every old snapshot must hold 1 operator states: current value in old subtask 1 holds 2/,
    },
  );
  assert.throws(() => load({ "j/window-1/0": { chain: null } }), {
    name: "TypeError",
    message: /'old\[0\]\.chain' must be a subtask snapshot/,
  });
});
