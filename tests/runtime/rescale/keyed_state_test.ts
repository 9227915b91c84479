// A keyed process operator checkpointed at parallelism 2 and restored at 3
// and at 1: each key's state and timers move to the subtask owning its key
// group, and the restored subtasks emit what an uninterrupted run emits
// (Flink's key-group redistribution of keyed state and timers).

import assert from "node:assert/strict";
import superjson from "superjson";
import { rescaleSubtaskSnapshots } from "../../../src/runtime/rescale/subtask_snapshots.ts";
import {
  keyGroupOf,
  subtaskForKeyGroup,
} from "../../../src/runtime/key_groups.ts";
import {
  type KeyedProcessFunction,
  KeyedProcessOperator,
  type KeyedProcessSnapshot,
} from "../../../src/runtime/operators/keyed_process.ts";
import type { SubtaskSnapshot } from "../../../src/runtime/subtask.ts";
import { OperatorHarness } from "../../_support/operator_harness.ts";

const MAX = 128;
const KEYS = Array.from({ length: 40 }, (_, i) => `user-${i}`);

type Event = { key: string; amount: number };
type Snapshot = KeyedProcessSnapshot<string, number>;

/**
 * Sums each key's amounts; the first record of a key arms an event-time
 * timer 100 ms later (emits the sum) and a processing-time timer.
 */
const totals: KeyedProcessFunction<Event, string, string, number> = {
  processElement(event, ctx) {
    if (ctx.state === undefined) {
      ctx.registerEventTimeTimer(ctx.timestamp + 100);
      ctx.registerProcessingTimeTimer(10_000);
    }
    ctx.setState((ctx.state ?? 0) + event.amount);
  },
  onTimer(timestamp, ctx, out) {
    out(`${ctx.key}=${ctx.state}@${timestamp}/${ctx.timeDomain}`);
  },
};

function owner(key: string, parallelism: number): number {
  return subtaskForKeyGroup(keyGroupOf(key, MAX), MAX, parallelism);
}

function harnesses(n: number): OperatorHarness<Event, string>[] {
  return Array.from(
    { length: n },
    () =>
      new OperatorHarness(
        new KeyedProcessOperator(totals, {
          keySelector: (e: Event) => e.key,
        }),
      ).open(),
  );
}

/** Routes each record to its key's subtask, as the hash partitioner does. */
function feed(
  subtasks: OperatorHarness<Event, string>[],
  events: Event[],
  timestamp: number,
): void {
  for (const event of events) {
    subtasks[owner(event.key, subtasks.length)].element(event, timestamp);
  }
}

function firstHalf(subtasks: OperatorHarness<Event, string>[]): void {
  feed(subtasks, KEYS.map((key, i) => ({ key, amount: i })), 1_000);
  for (const s of subtasks) s.watermark(1_050);
  feed(
    subtasks,
    KEYS.filter((_, i) => i % 3 === 0).map((key) => ({ key, amount: 1 })),
    1_060,
  );
}

function secondHalf(subtasks: OperatorHarness<Event, string>[]): string[] {
  feed(
    subtasks,
    KEYS.filter((_, i) => i % 2 === 0).map((key) => ({ key, amount: 1_000 })),
    1_070,
  );
  feed(subtasks, [{ key: "late-comer", amount: 5 }], 1_080);
  for (const s of subtasks) s.watermark(1_100).setProcessingTime(10_000);
  for (const s of subtasks) s.watermark(Infinity);
  return subtasks.flatMap((s) => s.take()).filter((e) => e.startsWith("R"));
}

function checkpoint(
  subtasks: OperatorHarness<Event, string>[],
): SubtaskSnapshot[] {
  return subtasks.map((s) => ({
    operators: [s.snapshot()],
    ended: [false, false],
  }));
}

for (const to of [3, 1]) {
  Deno.test(`rescaleSubtaskSnapshots() moves keyed process state and timers from 2 to ${to} subtasks by key group, and the restored run matches an uninterrupted one`, () => {
    const uninterrupted = harnesses(2);
    firstHalf(uninterrupted);
    for (const s of uninterrupted) s.take();
    const expected = secondHalf(uninterrupted).sort();
    assert.equal(expected.length, 2 * (KEYS.length + 1));

    const old = harnesses(2);
    firstHalf(old);
    const before = checkpoint(old);
    const rescaled = rescaleSubtaskSnapshots(before, {
      vertexId: "process-2",
      parallelism: to,
      maxParallelism: MAX,
      kinds: ["keyed"],
    });
    assert.equal(rescaled.length, to);
    const states = rescaled.map((s) => s.operators[0] as Snapshot);
    const olds = before.map((s) => s.operators[0] as Snapshot);
    // Every entry exactly once, on the subtask owning its key group.
    for (
      const field of ["keyedState", "eventTimers", "processingTimers"] as const
    ) {
      const all = (list: Snapshot[]) =>
        list.flatMap((s) => s[field].map((e) => JSON.stringify(e))).sort();
      assert.deepEqual(all(states), all(olds), field);
      assert.equal(all(states).length, KEYS.length);
      states.forEach((state, i) => {
        for (const [key] of state[field]) {
          assert.equal(owner(key, to), i, `${field} ${key}`);
        }
      });
    }
    states.forEach((state) => {
      assert.equal(state.currentWatermark, 1_050);
      const ts = state.eventTimers.map(([, t]) => t);
      assert.deepEqual(ts, [...ts].sort((a, b) => a - b), "in firing order");
    });
    if (to === 3) assert.ok(states.every((s) => s.keyedState.length > 0));

    const restored = harnesses(to);
    restored.forEach((h, i) =>
      h.operator.restoreState(superjson.parse(superjson.stringify(states[i])))
    );
    assert.deepEqual(secondHalf(restored).sort(), expected);
  });
}

Deno.test("rescaleSubtaskSnapshots() gives rescaled keyed process state the lowest old watermark and sorts each subtask's timers by timestamp", () => {
  const state = (watermark: number, keys: string[], ts: number): Snapshot => ({
    keyedState: keys.map((k) => [k, 1]),
    eventTimers: keys.map((k, i) => [k, ts - i]),
    processingTimers: [],
    currentWatermark: watermark,
  });
  const keys = KEYS.slice(0, 12);
  const old = [
    state(700, keys.filter((k) => owner(k, 2) === 0), 5_000),
    state(-Infinity, keys.filter((k) => owner(k, 2) === 1), 4_000),
  ];
  const [only] = rescaleSubtaskSnapshots(
    old.map((s) => ({ operators: [s], ended: [false] })),
    {
      vertexId: "process-1",
      parallelism: 1,
      maxParallelism: MAX,
      kinds: ["keyed"],
    },
  );
  const merged = only.operators[0] as Snapshot;
  // Replay mode left one old watermark at -Infinity: nothing is ahead of it.
  assert.equal(merged.currentWatermark, -Infinity);
  assert.equal(merged.keyedState.length, keys.length);
  const ts = merged.eventTimers.map(([, t]) => t);
  assert.deepEqual(ts, [...ts].sort((a, b) => a - b));
  assert.ok(ts[0] < 4_000 && ts[ts.length - 1] === 5_000);
});

Deno.test("rescaleSubtaskSnapshots() refuses to mix keyed process state with another kind, naming the declared kind and the odd state", () => {
  const keyed: Snapshot = {
    keyedState: [],
    eventTimers: [],
    processingTimers: [],
    currentWatermark: 0,
  };
  assert.throws(
    () =>
      rescaleSubtaskSnapshots([
        { operators: [keyed], ended: [false] },
        { operators: [{ currentWatermark: 0 }], ended: [false] },
      ], {
        vertexId: "process-1",
        parallelism: 3,
        maxParallelism: MAX,
        kinds: ["keyed"],
      }),
    {
      name: "TypeError",
      message:
        /operator 0 of vertex 'process-1'.*keyed process operator's.*old subtask 1 is \{"currentWatermark":0\}/,
    },
  );
});
