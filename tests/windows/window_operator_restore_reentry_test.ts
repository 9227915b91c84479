// A restore from inside a sweep is refused on every engine, also when the
// snapshot would switch engines: the sweep would go on with the state the
// restore replaced (a slot freed twice, a session fired twice and another
// never, or the thrown-away engine's sessions fired).

import assert from "node:assert/strict";
import { WindowOperator } from "../../src/windows/window_operator.ts";
import type { WindowOperatorSnapshot } from "../../src/windows/window_operator.ts";
import {
  type Op,
  outputOf,
  sessionOptionsOf,
  sumWindow,
} from "../_support/sum_operators.ts";

type Snap = WindowOperatorSnapshot<number, number>;
type Rec3 = [key: number, ts: number, v: number];

// Runs `script` on an operator whose window function restores `snap()`
// (once, when `key` fires), logging what the restore threw.
function runOf(
  general: boolean,
  lateness: number,
  key: number | null,
  script: (op: Op, setSnap: (s: Snap) => void) => void,
): string[] {
  const log: string[] = [];
  let snap: Snap | null = null;
  const op: Op = new WindowOperator(
    sessionOptionsOf(
      general,
      lateness,
      sumWindow({
        afterFire(fired) {
          if (fired !== key || snap === null) return;
          const s = snap;
          snap = null;
          try {
            op.restore(structuredClone(s));
            log.push("restored");
          } catch (error) {
            log.push(`refused: ${(error as Error).message}`);
          }
        },
      }),
    ),
    outputOf(log),
  );
  script(op, (s) => (snap = s));
  log.push(`counters ${op.numWindows} ${op.numTimers} ${op.currentWatermark}`);
  log.push(JSON.stringify(op.snapshot()));
  return log;
}

const MESSAGE =
  "refused: Cannot call WindowOperator.restore from inside a call of the same operator (e.g. from its window function or trigger): current call is WindowOperator.processWatermark";

// Both engines refuse the restore once and end as if it was never tried.
function check(
  lateness: number,
  key: number,
  script: (op: Op, setSnap: (s: Snap) => void) => void,
): void {
  const plain = runOf(false, lateness, null, script);
  for (const general of [false, true]) {
    const log = runOf(general, lateness, key, script);
    assert.deepEqual(log.filter((line) => line.startsWith("refused")), [
      MESSAGE,
    ]);
    assert.deepEqual(log.filter((line) => !line.startsWith("refused")), plain);
  }
}

const batch = (op: Op, recs: Rec3[]) =>
  op.processBatch(
    recs.map(([key, , v]) => ({ key, v })),
    recs.map((r) => r[1]),
  );
const recs = (n: number, ts: number, k0 = 0) =>
  Array.from({ length: n }, (_, k): Rec3 => [k + k0, ts + (k % 3), 1]);

for (const lateness of [0, 5]) {
  for (const n of [10, 100]) {
    Deno.test(`WindowOperator.restore from a window function mid-sweep is refused (lateness ${lateness}, ${n} sessions)`, () => {
      check(lateness, 3, (op, setSnap) => {
        batch(op, recs(n, 0));
        batch(op, recs(n, 5));
        setSnap(structuredClone(op.snapshot()));
        batch(op, recs(n, 100));
        op.processWatermark(200);
        op.processWatermark(Infinity);
      });
    });
  }
}

Deno.test("WindowOperator.restore mid-sweep of a snapshot the session engine refuses is refused", () => {
  check(5, 3, (op, setSnap) => {
    batch(op, recs(10, 0));
    const s = op.snapshot();
    const slots = s.slots.map((slot) => ({ ...slot, triggerState: 1 }));
    setSnap(structuredClone({ ...s, slots }));
    batch(op, recs(10, 100, 50));
    op.processWatermark(200);
    op.processWatermark(Infinity);
  });
});

Deno.test("WindowOperator.restore mid-sweep after a handover to the general engine is refused", () => {
  check(3, 0, (op, setSnap) => {
    batch(op, [[65, 0, 1], [0, 4, 1], [0, 8, 1], [0, 8, 1]]);
    op.processWatermark(9);
    // 65@8 is within lateness of its fired session: the engine hands over.
    batch(op, [[65, 8, 1], [0, 8, 1]]);
    setSnap(structuredClone(op.snapshot()));
    op.processWatermark(Infinity);
  });
});
