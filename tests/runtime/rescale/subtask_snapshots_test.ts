// rescaleSubtaskSnapshots(): a vertex's chain over another parallelism,
// each operator's state split as its declared kind says.

import assert from "node:assert/strict";
import { rescaleSubtaskSnapshots } from "../../../src/runtime/rescale/subtask_snapshots.ts";
import {
  keyGroupOf,
  subtaskForKeyGroup,
} from "../../../src/runtime/key_groups.ts";
import type { SubtaskSnapshot } from "../../../src/runtime/subtask.ts";
import type {
  WindowOperatorSnapshot,
  WindowSlotSnapshot,
} from "../../../src/windows/window_operator.ts";
import { TimerService } from "../../../src/windows/timer_service.ts";
import { StatusWatermarkValve } from "../../../src/time/valve.ts";

type Windows = WindowOperatorSnapshot<string, number>;
type Slot = WindowSlotSnapshot<string, number>;

const MAX = 128;

/**
 * The window operator snapshots of `parallelism` subtasks for `numKeys`
 * keys, each key with two windows on the subtask that owns it, a cleanup
 * timer per window, a processing-time timer on every other window and one
 * stale timer of a window no longer live.
 */
function windowSnapshots(
  numKeys: number,
  parallelism: number,
  watermarks: readonly number[],
): Windows[] {
  const out: Windows[] = watermarks.map((currentWatermark, i) => ({
    slots: [],
    nextId: 0,
    timers: { currentWatermark, eventTime: [], processingTime: [] },
    numLateRecordsDropped: i + 1,
  }));
  for (let k = 0; k < numKeys; k++) {
    const key = `key-${k}`;
    const own = out[subtaskForKeyGroup(keyGroupOf(key, MAX), MAX, parallelism)];
    for (const start of [1_000, 2_000]) {
      // Old ids are sparse, as after windows were purged.
      const id = own.nextId + 3;
      own.nextId = id + 1;
      own.slots.push({ id, key, start, end: start + 1_000, contents: k });
      own.timers.eventTime.push(id, start + 999);
      if (k % 2 === 0) own.timers.processingTime.push(id, 50_000 + k);
    }
  }
  for (const own of out) own.timers.eventTime.push(own.nextId + 100, 5_000);
  return out;
}

function subtasks(operators: unknown[][], inputs = 2): SubtaskSnapshot[] {
  return operators.map((ops) => ({
    operators: ops,
    ended: new Array(inputs).fill(false),
  }));
}

/** "key@start-end=contents" of every slot, with the timers that point at it. */
function describeSlots(snapshot: Windows): Map<number, string> {
  return new Map(
    snapshot.slots.map((s: Slot) => [
      s.id,
      `${s.key}@${s.start}-${s.end}=${s.contents}`,
    ]),
  );
}

function timersOf(snapshot: Windows, kind: "eventTime" | "processingTime") {
  const slots = describeSlots(snapshot);
  const pairs = snapshot.timers[kind];
  const out: string[] = [];
  for (let i = 0; i < pairs.length; i += 2) {
    out.push(`${slots.get(pairs[i]) ?? `stale ${pairs[i]}`}:${pairs[i + 1]}`);
  }
  return out;
}

for (const [from, to] of [[2, 3], [3, 2], [2, 1], [1, 4], [4, 7]]) {
  Deno.test(`rescaleSubtaskSnapshots() from ${from} to ${to} subtasks keeps every window exactly once, on the subtask owning its key group, with its timers`, () => {
    const watermarks = Array.from({ length: from }, (_, i) => 1_500 - i * 100);
    const old = windowSnapshots(200, from, watermarks);
    const rescaled = rescaleSubtaskSnapshots(subtasks(old.map((w) => [w])), {
      vertexId: "window-2",
      parallelism: to,
      maxParallelism: MAX,
      kinds: ["windows"],
    });
    assert.equal(rescaled.length, to);
    const news = rescaled.map((s) => s.operators[0] as Windows);
    // Every (key, window) once, nothing invented.
    const before = old.flatMap((w) => [...describeSlots(w).values()]).sort();
    const after = news.flatMap((w) => [...describeSlots(w).values()]).sort();
    assert.deepEqual(after, before);
    news.forEach((w, i) => {
      for (const slot of w.slots) {
        assert.equal(
          subtaskForKeyGroup(keyGroupOf(slot.key, MAX), MAX, to),
          i,
          `${slot.key} on subtask ${i}`,
        );
      }
      // Dense ids from 0, and the next id above them.
      assert.deepEqual(w.slots.map((s) => s.id), w.slots.map((_, j) => j));
      assert.equal(w.nextId, w.slots.length);
      assert.equal(w.timers.currentWatermark, Math.min(...watermarks));
      assert.equal(
        w.numLateRecordsDropped,
        i === 0 ? (from * (from + 1)) / 2 : 0,
      );
      // Timers still point at their windows; stale ones are gone.
      for (const kind of ["eventTime", "processingTime"] as const) {
        for (const timer of timersOf(w, kind)) {
          assert.ok(!timer.startsWith("stale"), timer);
        }
      }
      // The timer service accepts the result.
      new TimerService().restore(w.timers);
    });
    for (const kind of ["eventTime", "processingTime"] as const) {
      const timersBefore = old.flatMap((w) => timersOf(w, kind))
        .filter((t) => !t.startsWith("stale")).sort();
      const timersAfter = news.flatMap((w) => timersOf(w, kind)).sort();
      assert.deepEqual(timersAfter, timersBefore, kind);
    }
  });
}

Deno.test("rescaleSubtaskSnapshots() keeps stateless operators null, takes the lowest watermark of process operators and restarts timestamp generators at the lowest emitted watermark", () => {
  const old = subtasks([
    [null, { currentWatermark: 700 }, {
      generator: { maxTimestamp: 900 },
      emitter: { currentWatermark: 600, idle: false },
    }],
    [null, { currentWatermark: 500 }, {
      generator: { maxTimestamp: 800 },
      emitter: { currentWatermark: 400, idle: true },
    }],
  ]);
  const rescaled = rescaleSubtaskSnapshots(old, {
    vertexId: "map-2",
    parallelism: 3,
    maxParallelism: MAX,
    kinds: ["stateless", "watermark", "generator"],
  });
  for (const snapshot of rescaled) {
    assert.deepEqual(snapshot.operators, [
      null,
      { currentWatermark: 500 },
      { generator: null, emitter: { currentWatermark: 400, idle: false } },
    ]);
  }
});

Deno.test("rescaleSubtaskSnapshots() hands every pending transaction of a two-phase sink to subtask 0, as a list or under 'transactions'", () => {
  const tx = (subtask: number, checkpointId: number) => ({
    subtask,
    checkpointId,
    values: [`${subtask}/${checkpointId}`],
  });
  const lists = rescaleSubtaskSnapshots(
    subtasks([[[tx(0, 4), tx(0, 5)]], [[tx(1, 5)]], [null]]),
    {
      vertexId: "sink-3",
      parallelism: 2,
      maxParallelism: MAX,
      kinds: ["transactions"],
    },
  );
  assert.deepEqual(lists.map((s) => s.operators[0]), [
    [tx(0, 4), tx(0, 5), tx(1, 5)],
    null,
  ]);
  const table = (checkpointId: number, key: string) => ({
    table: "totals",
    transactions: [{ checkpointId, rows: [[key, 1]] }],
  });
  const objects = rescaleSubtaskSnapshots(
    subtasks([[table(5, "a")], [table(5, "b")]]),
    {
      vertexId: "sink-3",
      parallelism: 3,
      maxParallelism: MAX,
      kinds: ["transactions"],
    },
  );
  assert.deepEqual(objects.map((s) => s.operators[0]), [
    {
      table: "totals",
      transactions: [
        { checkpointId: 5, rows: [["a", 1]] },
        { checkpointId: 5, rows: [["b", 1]] },
      ],
    },
    null,
    null,
  ]);
});

Deno.test("rescaleSubtaskSnapshots() refuses sink states of different outputs, naming the operator", () => {
  const old = subtasks([
    [null, { table: "a", transactions: [] }],
    [null, { table: "b", transactions: [] }],
  ]);
  assert.throws(
    () =>
      rescaleSubtaskSnapshots(old, {
        vertexId: "sink-3",
        parallelism: 1,
        maxParallelism: MAX,
        kinds: ["stateless", "transactions"],
      }),
    { name: "RangeError", message: /operator 1 of vertex 'sink-3'.*"b"/ },
  );
});

Deno.test("rescaleSubtaskSnapshots() refuses operator state it cannot split, naming the operator and the old subtask", () => {
  const old = subtasks([[{ count: 3 }], [{ count: 4 }]]);
  assert.throws(
    () =>
      rescaleSubtaskSnapshots(old, {
        vertexId: "custom-2",
        parallelism: 3,
        maxParallelism: MAX,
      }),
    {
      name: "TypeError",
      message:
        /operator 0 of vertex 'custom-2'.*old subtask 0 is \{"count":3\}/,
    },
  );
});

Deno.test("rescaleSubtaskSnapshots() checks its options, naming the parameter", () => {
  const old = subtasks([[null]]);
  const options = { vertexId: "map-2", parallelism: 2, maxParallelism: MAX };
  assert.throws(
    () => rescaleSubtaskSnapshots(old, { ...options, parallelism: 0 }),
    { name: "RangeError", message: /'options.parallelism'/ },
  );
  assert.throws(
    () => rescaleSubtaskSnapshots(old, { ...options, parallelism: MAX + 1 }),
    { name: "RangeError", message: /'options.parallelism' must be at most/ },
  );
  assert.throws(
    () => rescaleSubtaskSnapshots([], options),
    { name: "RangeError", message: /'old'/ },
  );
  assert.throws(
    () =>
      rescaleSubtaskSnapshots([{ operators: [] }] as never, {
        ...options,
      }),
    { name: "TypeError", message: /'old\[0\]' must be a subtask snapshot/ },
  );
});

function valveOf(watermarks: number[]) {
  const valve = new StatusWatermarkValve(watermarks.length, {
    emitWatermark() {},
    emitWatermarkStatus() {},
  });
  watermarks.forEach((w, c) => valve.inputWatermark(w, c));
  return valve.snapshot();
}

Deno.test("rescaleSubtaskSnapshots() keeps equal valves when the inputs stay, and drops them when the number of inputs changes", () => {
  const old: SubtaskSnapshot[] = [0, 1].map(() => ({
    operators: [null],
    valve: valveOf([300, 200]),
    ended: [false, false],
  }));
  const kept = rescaleSubtaskSnapshots(old, {
    vertexId: "map-2",
    parallelism: 3,
    maxParallelism: MAX,
  });
  for (const snapshot of kept) {
    assert.deepEqual(snapshot.valve, valveOf([300, 200]));
    assert.deepEqual(snapshot.ended, [false, false]);
  }
  const moreInputs = rescaleSubtaskSnapshots(old, {
    vertexId: "map-2",
    parallelism: 3,
    maxParallelism: MAX,
    numInputChannels: 3,
  });
  for (const snapshot of moreInputs) {
    assert.equal(snapshot.valve, undefined);
    assert.deepEqual(snapshot.ended, [false, false, false]);
  }
  // Valves that differ (a forward input) describe no new subtask.
  const differing = rescaleSubtaskSnapshots(
    [{ ...old[0], valve: valveOf([100, 200]) }, old[1]],
    { vertexId: "map-2", parallelism: 1, maxParallelism: MAX },
  );
  assert.equal(differing[0].valve, undefined);
});

Deno.test("rescaleSubtaskSnapshots() at the same parallelism but with more inputs keeps each subtask's operator state", () => {
  const old = subtasks([[{ currentWatermark: 5 }], [{ currentWatermark: 9 }]]);
  const rescaled = rescaleSubtaskSnapshots(old, {
    vertexId: "process-2",
    parallelism: 2,
    maxParallelism: MAX,
    numInputChannels: 4,
  });
  assert.deepEqual(rescaled.map((s) => s.operators), [
    [{ currentWatermark: 5 }],
    [{ currentWatermark: 9 }],
  ]);
  assert.deepEqual(rescaled[1].ended, [false, false, false, false]);
});
