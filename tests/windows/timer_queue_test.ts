import assert from "node:assert/strict";
import { TimerQueue } from "../../src/windows/timer_queue.ts";

type Fired = Array<[number, number]>;

function fireUpTo(queue: TimerQueue, limit: number): Fired {
  const fired: Fired = [];
  queue.advance(limit, (id, ts) => fired.push([id, ts]));
  return fired;
}

Deno.test("TimerQueue fires in (timestamp, id) order, each pair once", () => {
  const queue = new TimerQueue();
  queue.add(9, 20);
  queue.add(3, 10);
  queue.add(7, 10);
  queue.add(1, 10);
  queue.add(3, 10);
  assert.equal(queue.size, 4);
  assert.equal(queue.nextTimestamp(), 10);
  assert.deepEqual(fireUpTo(queue, 15), [[1, 10], [3, 10], [7, 10]]);
  assert.deepEqual(fireUpTo(queue, 20), [[9, 20]]);
  assert.equal(queue.size, 0);
  assert.equal(queue.nextTimestamp(), Infinity);
});

Deno.test("TimerQueue drops deleted timers and every timer of a deleted id", () => {
  const queue = new TimerQueue();
  queue.add(1, 10);
  queue.add(1, 20);
  queue.add(2, 10);
  queue.delete(2, 10);
  queue.delete(2, 10);
  assert.equal(queue.has(2, 10), false);
  assert.equal(queue.has(1, 20), true);
  queue.deleteAll(1);
  assert.equal(queue.size, 0);
  assert.equal(queue.nextTimestamp(), Infinity);
  assert.deepEqual(fireUpTo(queue, Infinity), []);
});

Deno.test("TimerQueue fires a timer a callback adds at or below the limit in the same advance", () => {
  const queue = new TimerQueue();
  queue.add(5, 10);
  const fired: Fired = [];
  queue.advance(10, (id, ts) => {
    fired.push([id, ts]);
    if (id === 5) queue.add(2, 10);
  });
  assert.deepEqual(fired, [[5, 10], [2, 10]]);
});

Deno.test("TimerQueue.toFlat() lists the pending timers in firing order", () => {
  const queue = new TimerQueue();
  queue.add(4, 30);
  queue.add(8, 10);
  queue.add(2, 10);
  queue.add(6, 20);
  queue.delete(6, 20);
  assert.deepEqual(queue.toFlat(), [2, 10, 8, 10, 4, 30]);
  queue.clear();
  assert.deepEqual(queue.toFlat(), []);
  assert.equal(queue.size, 0);
});

Deno.test("TimerQueue keeps an id whose timers went until deleteAll(), and forgets it then", () => {
  const queue = new TimerQueue();
  queue.add(1, 10);
  queue.delete(1, 10);
  assert.equal(queue.has(1, 10), false);
  assert.equal(queue.indexedIds, 1);
  queue.add(1, 20);
  assert.equal(queue.has(1, 20), true);
  queue.clearId(1);
  assert.equal(queue.size, 0);
  assert.equal(queue.has(1, 20), false);
  assert.equal(queue.indexedIds, 1);
  assert.deepEqual(fireUpTo(queue, Infinity), []);
  queue.add(1, 30);
  assert.deepEqual(queue.toFlat(), [1, 30]);
  assert.deepEqual(fireUpTo(queue, Infinity), [[1, 30]]);
  queue.deleteAll(1);
  assert.equal(queue.indexedIds, 0);
  queue.deleteAll(1);
  queue.clearId(7);
  assert.equal(queue.indexedIds, 0);
});

Deno.test("TimerQueue's index stays bounded when ids lose their timers and never get deleteAll()", () => {
  const queue = new TimerQueue();
  // 100 ids keep a timer throughout; 100 000 others come and go, by
  // deletion, by firing or cleared, none ever deleteAll()'d.
  for (let id = 0; id < 100; id++) queue.add(id, 1e9 + id);
  let peak = 0;
  for (let id = 100; id < 100_100; id++) {
    queue.add(id, id);
    if (id % 3 === 0) queue.delete(id, id);
    else if (id % 3 === 1) queue.clearId(id);
    else fireUpTo(queue, id);
    peak = Math.max(peak, queue.indexedIds);
  }
  assert.equal(queue.size, 100);
  assert.ok(peak <= 2 * 100 + 2 * 1024 + 1, `peak index ${peak}`);
  assert.deepEqual(fireUpTo(queue, 1e9 + 1).length, 2);
});

Deno.test("TimerQueue fires mostly ascending timers, moved, deleted and late ones, as a sorted model does", () => {
  const queue = new TimerQueue();
  // The model: pending "id@ts" pairs; fired in (ts, id) order.
  const model = new Map<string, [number, number]>();
  const due = (limit: number) =>
    [...model.values()].filter(([, ts]) => ts <= limit)
      .sort((a, b) => a[1] - b[1] || a[0] - b[0]);
  let seed = 5;
  const random = (n: number) => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed % n;
  };
  const current = new Map<number, number>();
  let now = 1_000;
  for (let step = 0; step < 30_000; step++) {
    const id = random(300);
    const roll = random(100);
    const old = current.get(id);
    if (old !== undefined && roll < 60) {
      // Moves its timer later, as a growing session does.
      queue.delete(id, old);
      model.delete(`${id}@${old}`);
    }
    if (roll < 90) {
      // Mostly at the newest time; sometimes earlier (out of order).
      const ts = roll < 80 ? now + random(3) : now - random(500);
      queue.add(id, ts);
      model.set(`${id}@${ts}`, [id, ts]);
      current.set(id, ts);
    } else if (roll < 93) {
      queue.deleteAll(id);
      for (const [key, [i]] of model) if (i === id) model.delete(key);
      current.delete(id);
    }
    now += random(2);
    if (step % 97 === 0) {
      const limit = now - 400;
      const expected = due(limit);
      for (const [i, ts] of expected) model.delete(`${i}@${ts}`);
      assert.deepEqual(fireUpTo(queue, limit), expected);
      assert.equal(queue.size, model.size);
    }
  }
  const rest = due(Infinity);
  assert.deepEqual(queue.toFlat(), rest.flat());
  assert.deepEqual(fireUpTo(queue, Infinity), rest);
  assert.equal(queue.size, 0);
});

Deno.test("TimerQueue fires a long ascending run in order while timers come in ahead of it and behind it", () => {
  const queue = new TimerQueue();
  for (let id = 0; id < 5_000; id++) queue.add(id, 2 * id);
  const fired: Fired = [];
  for (let limit = 99; limit < 10_000; limit += 100) {
    queue.advance(limit, (id, ts) => fired.push([id, ts]));
    // One behind the run's end (odd: a timestamp of its own), one ahead.
    queue.add(10_000 + limit, limit + 2);
    queue.add(20_000 + limit, 20_000 + limit);
  }
  assert.equal(fired.length, 5_000 + 99);
  for (let i = 1; i < fired.length; i++) {
    assert.ok(fired[i - 1][1] < fired[i][1], `order at ${i}`);
  }
  queue.add(1, 5);
  assert.deepEqual(fireUpTo(queue, 10_000), [[1, 5]]);
  assert.equal(queue.size, 101);
  const rest = fireUpTo(queue, Infinity);
  assert.deepEqual(rest[0], [19_999, 10_001]);
  assert.equal(rest.length, 101);
});

Deno.test("TimerQueue fires a late timer once every timer after it was deleted", () => {
  const queue = new TimerQueue();
  queue.add(1, 10);
  queue.add(2, 20);
  queue.add(3, 15);
  queue.delete(1, 10);
  queue.delete(2, 20);
  assert.equal(queue.nextTimestamp(), 15);
  assert.deepEqual(fireUpTo(queue, Infinity), [[3, 15]]);
});
