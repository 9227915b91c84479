// The window operator's slot groups (partitionOf), which incremental
// checkpoints encode once while unchanged: a group's array stays the very
// same object until one of its windows changes.

import assert from "node:assert/strict";
import { ManualClock } from "../../src/time/clock.ts";
import { EventTimeTrigger } from "../../src/windows/event_time_trigger.ts";
import { PurgingTrigger } from "../../src/windows/purging_trigger.ts";
import { EventTimeSessionWindows } from "../../src/windows/session.ts";
import { TumblingEventTimeWindows } from "../../src/windows/tumbling.ts";
import type { Trigger } from "../../src/windows/trigger.ts";
import type { WindowAssigner } from "../../src/windows/window_assigner.ts";
import { reduceWindow } from "../../src/windows/window_function.ts";
import {
  WindowOperator,
  type WindowSlotSnapshot,
} from "../../src/windows/window_operator.ts";

/** A record: `[key, value]`, numeric keys. */
type Rec = [number, number];
type Acc = { value?: Rec };
type Groups = WindowSlotSnapshot<number, Acc>[][];

/** A summing window operator grouping key `k` in group `k % 4`. */
function summing(
  assigner: WindowAssigner<Rec>,
  options: { trigger?: Trigger<Rec>; allowedLatenessMs?: number } = {},
) {
  const emitted: string[] = [];
  const operator = new WindowOperator<Rec, number, Acc, Rec>({
    assigner,
    keySelector: (r) => r[0],
    windowFunction: reduceWindow<Rec, number>((a, b) => [a[0], a[1] + b[1]]),
    clock: new ManualClock(0),
    partitionOf: (k) => k % 4,
    ...options,
  }, {
    collect: ([k, sum], ts) => emitted.push(`(${k},${sum})@${ts}`),
    sideOutput: () => {},
    emitWatermark: () => {},
  });
  return { operator, emitted };
}

/** The group (k % 4) of each array, checking all its keys agree. */
function groupIds(groups: Groups): number[] {
  return groups.map((group) => {
    const ids = new Set(group.map((slot) => slot.key % 4));
    assert.equal(ids.size, 1, `one group per array: ${[...ids]}`);
    return [...ids][0];
  });
}

/** Which groups (by id) got a new array from `before` to `after`. */
function changed(before: Groups, after: Groups): number[] {
  const old = new Map(groupIds(before).map((id, i) => [id, before[i]]));
  return groupIds(after).filter((id, i) => old.get(id) !== after[i]);
}

Deno.test("WindowOperator.slotGroups() hands out the same array for an untouched group and a new one for a group that got a record or a new window", () => {
  const { operator } = summing(TumblingEventTimeWindows.of(1_000));
  for (let k = 0; k < 8; k++) operator.processElement([k, k], 100);
  const first = operator.slotGroups();
  assert.deepEqual(groupIds(first), [0, 1, 2, 3]);
  assert.deepEqual(first.map((g) => g.map((s) => s.key)), [
    [0, 4],
    [1, 5],
    [2, 6],
    [3, 7],
  ]);
  const again = operator.slotGroups();
  assert.notEqual(again, first, "the outer array is new");
  again.forEach((group, i) => assert.equal(group, first[i]));
  assert.deepEqual(changed(first, again), []);

  // A record in an existing window of key 5 (group 1).
  operator.processElement([5, 10], 200);
  const afterRecord = operator.slotGroups();
  assert.deepEqual(changed(first, afterRecord), [1]);
  assert.deepEqual(afterRecord[1].find((s) => s.key === 5)?.contents, {
    value: [5, 15],
  });
  // A new window of key 2 (group 2).
  operator.processElement([2, 1], 1_500);
  const afterWindow = operator.slotGroups();
  assert.deepEqual(changed(afterRecord, afterWindow), [2]);
  assert.equal(afterWindow[2].length, 3);

  // A record dropped as late changes nothing.
  operator.processWatermark(500);
  const afterWatermark = operator.slotGroups();
  assert.deepEqual(changed(afterWindow, afterWatermark), []);
});

Deno.test("WindowOperator.slotGroups() renews the groups of windows fired and cleaned up, and drops a group left empty", () => {
  const { operator, emitted } = summing(TumblingEventTimeWindows.of(1_000));
  operator.processElement([0, 1], 100); // group 0: [0, 1000) only
  operator.processElement([1, 1], 100); // group 1: [0, 1000) and [1000, 2000)
  operator.processElement([1, 2], 1_100);
  operator.processElement([2, 1], 2_100); // group 2: [2000, 3000) only
  const before = operator.slotGroups();
  assert.deepEqual(groupIds(before), [0, 1, 2]);
  operator.processWatermark(999);
  assert.deepEqual(emitted, ["(0,1)@999", "(1,1)@999"]);
  const after = operator.slotGroups();
  assert.deepEqual(groupIds(after), [1, 2], "group 0 is empty: left out");
  assert.deepEqual(changed(before, after), [1]);
  assert.equal(after[1], before[2]);
  assert.deepEqual(after[0].map((s) => [s.key, s.start]), [[1, 1_000]]);
});

Deno.test("WindowOperator.slotGroups() renews the group of a window purged by its trigger and kept for its lateness", () => {
  const { operator, emitted } = summing(TumblingEventTimeWindows.of(1_000), {
    trigger: PurgingTrigger.of(EventTimeTrigger.create<Rec>()),
    allowedLatenessMs: 500,
  });
  operator.processElement([0, 1], 100);
  operator.processElement([1, 1], 1_100);
  const before = operator.slotGroups();
  operator.processWatermark(999);
  assert.deepEqual(emitted, ["(0,1)@999"]);
  const after = operator.slotGroups();
  assert.deepEqual(changed(before, after), [0]);
  assert.deepEqual(after[0], [{
    id: before[0][0].id,
    key: 0,
    start: 0,
    end: 1_000,
  }]);
  assert.equal(after[1], before[1]);
});

Deno.test("WindowOperator.slotGroups() renews the group of merged sessions only", () => {
  const { operator } = summing(EventTimeSessionWindows.withGap(100));
  operator.processElement([0, 1], 0);
  operator.processElement([0, 1], 150);
  operator.processElement([1, 1], 0);
  const before = operator.slotGroups();
  assert.deepEqual(before.map((g) => g.length), [2, 1]);
  operator.processElement([4, 1], 1_000); // group 0, its own session
  const other = operator.slotGroups();
  assert.deepEqual(changed(before, other), [0]);
  operator.processElement([0, 1], 80); // merges [0, 100) and [150, 250)
  const merged = operator.slotGroups();
  assert.deepEqual(changed(other, merged), [0]);
  assert.deepEqual(
    merged[0].map((s) => [s.key, s.start, s.end, s.contents?.value]),
    [[4, 1_000, 1_100, [4, 1]], [0, 0, 250, [0, 3]]],
  );
  assert.equal(merged[1], before[1]);
});

Deno.test("WindowOperator.snapshot() is the groups flattened plus snapshotWithoutSlots(), and a restore gives the same groups back", () => {
  const { operator } = summing(TumblingEventTimeWindows.of(1_000));
  for (let k = 0; k < 10; k++) {
    operator.processElement([k, k], 100);
    operator.processElement([k, 1], 1_100 + k);
  }
  operator.processWatermark(50);
  const groups = operator.slotGroups();
  const snapshot = operator.snapshot();
  assert.deepStrictEqual(snapshot, {
    ...operator.snapshotWithoutSlots(),
    slots: groups.flat(),
  });
  assert.equal(snapshot.slots.length, 20);
  assert.deepEqual(snapshot.timers.currentWatermark, 50);
  // slotGroups() is the same after snapshot(): nothing changed.
  operator.slotGroups().forEach((group, i) => assert.equal(group, groups[i]));

  const copy = structuredClone(snapshot);
  const { operator: restored, emitted } = summing(
    TumblingEventTimeWindows.of(1_000),
  );
  restored.restore(copy);
  const back = restored.slotGroups();
  assert.deepStrictEqual(back.flat(), groups.flat());
  assert.deepEqual(groupIds(back), groupIds(groups));
  assert.deepStrictEqual(restored.snapshot(), snapshot);
  // Restored groups are stable too, and change like the original's.
  restored.slotGroups().forEach((group, i) => assert.equal(group, back[i]));
  restored.processElement([3, 1], 200);
  assert.deepEqual(changed(back, restored.slotGroups()), [3]);
  restored.processElement([11, 1], 5_000);
  // Restoring over live state replaces its groups.
  restored.restore(structuredClone(snapshot));
  assert.deepStrictEqual(restored.slotGroups(), groups);
  restored.processWatermark(Infinity);
  assert.ok(emitted.includes("(3,3)@999"));
  assert.ok(emitted.includes("(9,1)@1999"));
  assert.equal(emitted.length, 20);
});

Deno.test("WindowOperator without partitionOf puts every window in one group", () => {
  const operator = new WindowOperator<Rec, number, Acc, Rec>({
    assigner: TumblingEventTimeWindows.of(1_000),
    keySelector: (r) => r[0],
    windowFunction: reduceWindow<Rec, number>((a, b) => [a[0], a[1] + b[1]]),
    clock: new ManualClock(0),
  }, { collect() {}, sideOutput() {}, emitWatermark() {} });
  assert.deepEqual(operator.slotGroups(), []);
  for (let k = 0; k < 5; k++) operator.processElement([k, 1], 100);
  const [group, ...rest] = operator.slotGroups();
  assert.deepEqual(rest, []);
  assert.equal(group.length, 5);
  assert.equal(operator.slotGroups()[0], group);
  operator.processElement([3, 1], 100);
  assert.notEqual(operator.slotGroups()[0], group);
});
