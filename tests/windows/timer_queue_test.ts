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
