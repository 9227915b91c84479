// The session engine's due queue (src/windows/_due_queue.ts) against a
// sorted list: entries in (time, id) order, whether pushed in order (its
// run) or not (its heap), past the size its arrays start with.

import assert from "node:assert/strict";
import fc from "fast-check";
import { DueQueue } from "../../src/windows/_due_queue.ts";

type Op = { push: boolean; time: number };

Deno.test("DueQueue pops its entries in (time, id) order, pushed in order or not (property)", () => {
  const op = fc.record({
    push: fc.oneof(
      { arbitrary: fc.constant(true), weight: 3 },
      { arbitrary: fc.constant(false), weight: 2 },
    ),
    time: fc.integer({ min: 0, max: 60 }),
  });
  fc.assert(
    fc.property(
      fc.array(op, { minLength: 200, maxLength: 1500, size: "max" }),
      fc.boolean(),
      (ops: Op[], ordered) => {
        const queue = new DueQueue();
        const model: [number, number][] = [];
        let clock = 0;
        let id = 0;
        for (const { push, time } of ops) {
          if (push || model.length === 0) {
            // Mostly ascending times, as ordered input pushes them.
            const at = ordered ? (clock += time % 3) : time;
            queue.push(at, id, id);
            model.push([at, id++]);
            model.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
          } else {
            const [time, first] = model.shift()!;
            assert.equal(queue.topTime(), time);
            assert.equal(queue.pop(), first);
          }
          assert.equal(queue.size, model.length);
        }
        while (model.length > 0) assert.equal(queue.pop(), model.shift()![1]);
      },
    ),
    { numRuns: 300, seed: 19 },
  );
});
