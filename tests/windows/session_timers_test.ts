// The session engine's timers (src/windows/_session_timers.ts) in sweeps
// of many sessions, against the general engine: columns and queues past
// their first sizes, ends moved after their entries were queued, ties of
// one time queued out of id order, a fire that throws mid-sweep.

import assert from "node:assert/strict";
import { WindowOperator } from "../../src/windows/window_operator.ts";
import {
  batch,
  counters,
  type Op,
  outputOf,
  sessionOptionsOf,
  sumWindow,
} from "../_support/sum_operators.ts";

// An operator on the session engine and one on the general engine, and
// what they log; `afterFire` as sumWindow takes it, per operator.
function pair(lateness: number, afterFire?: (i: number, key: number) => void) {
  const logs: [string[], string[]] = [[], []];
  const ops = [false, true].map((general, i) =>
    new WindowOperator(
      sessionOptionsOf(
        general,
        lateness,
        sumWindow({ afterFire: (key) => afterFire?.(i, key) }),
      ),
      outputOf(logs[i]),
    )
  ) as [Op, Op];
  return { ops, logs };
}

// Applies `run` to both (noting what it throws), then checks they agree
// in everything observable.
function both(
  { ops, logs }: ReturnType<typeof pair>,
  run: (op: Op) => void,
): void {
  ops.forEach((op, i) => {
    try {
      run(op);
    } catch (error) {
      logs[i].push(`threw ${(error as Error).message}`);
    }
  });
  assert.deepEqual(logs[0], logs[1]);
  assert.deepEqual(counters(ops[0]), counters(ops[1]));
  assert.deepEqual(ops[0].snapshot(), ops[1].snapshot());
}

Deno.test("session engine: more live sessions than its columns first hold (they grow twice), and their due entries past the queue's first size, as the general engine", () => {
  const runs = pair(5);
  const records: [number, number, number][] = [];
  // 1 100 keys, each with two sessions, the second extended out of order
  // of the first's ends: rows grow past 64 and 256, entries move.
  for (let key = 0; key < 1100; key++) records.push([key, key, 1]);
  for (let key = 0; key < 1100; key++) records.push([key, 2000 + key, 1]);
  for (let key = 1099; key >= 0; key--) {
    records.push([key, 2000 + key + (key % 7), 1]);
  }
  both(runs, (op) => batch(op, records.slice(0, 1100)));
  both(runs, (op) => batch(op, records.slice(1100)));
  both(runs, (op) => op.processWatermark(2500));
  both(runs, (op) => op.processWatermark(Infinity));
  assert.equal(runs.logs[0].filter((l) => l.startsWith("fire")).length, 2200);
});

Deno.test("session engine: sessions of one end, queued out of id order, fire in id order; a fire that throws mid-sweep leaves the rest due; as the general engine", () => {
  for (const lateness of [0, 3]) {
    const thrown = [false, false];
    const runs = pair(lateness, (i, key) => {
      if (key !== 41 || thrown[i]) return;
      thrown[i] = true;
      throw new Error("fire of 41 failed");
    });
    const records = (keys: number[], ts: number) =>
      keys.map((key): [number, number, number] => [key, ts, 1]);
    const odd = Array.from({ length: 80 }, (_, j) => 2 * j + 1);
    const even = odd.map((key) => key + 1);
    // Ids 0-79 for the odd keys' sessions, queued at 19; ids 80-159 for
    // the even keys', queued at 9; then every session ends at 25.
    for (
      const run of [
        (op: Op) => batch(op, records(odd, 10)),
        (op: Op) => batch(op, records(even, 0)),
        (op: Op) => batch(op, records(even, 9)),
        (op: Op) => batch(op, records([...odd, ...even], 15)),
        (op: Op) => op.processWatermark(30),
        (op: Op) => op.processWatermark(31),
        (op: Op) => op.processWatermark(Infinity),
      ]
    ) both(runs, run);
    const log = runs.logs[0];
    const fired = log.filter((line) => line.startsWith("fire"));
    assert.equal(fired.length, 160);
    assert.equal(fired[0], "fire 1|10|25|2 @24");
    assert.equal(fired[79], "fire 159|10|25|2 @24");
    assert.equal(fired[80], "fire 2|0|25|3 @24");
    assert.ok(log.includes("threw fire of 41 failed"), `lateness ${lateness}`);
  }
});
