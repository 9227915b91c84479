// What a fired session's window function is handed on the session engine
// (src/windows/_session_fire.ts), against the general engine: a context of
// plain data, and an out and side output bound to their own session.

import assert from "node:assert/strict";
import { OutputTag } from "../../src/windows/output_tag.ts";
import {
  aggregateWindow,
  type ProcessWindowContext,
} from "../../src/windows/window_function.ts";
import { WindowOperator } from "../../src/windows/window_operator.ts";
import {
  batch,
  outputOf,
  type Rec,
  sessionOptionsOf,
} from "../_support/sum_operators.ts";

Deno.test("session engine: a kept out or side output stamps its own session's timestamp and counts toward its own session, as the general engine's; the context holds plain data", () => {
  const tag = new OutputTag<string>("kept");
  const runs = [false, true].map((general) => {
    const log: string[] = [];
    const shapes: string[] = [];
    let kept: ((value: string) => void) | undefined;
    let keptSide: ProcessWindowContext["output"] | undefined;
    const op = new WindowOperator<Rec, number, number, string>({
      ...sessionOptionsOf(general, 0),
      windowFunction: aggregateWindow<Rec, number, number, number, string>({
        createAccumulator: () => 0,
        add: (r, acc) => acc + r.v,
        getResult: (acc) => acc,
        merge: (a, b) => a + b,
      }, (key, ctx, [sum], out) => {
        shapes.push(
          Object.entries(Object.getOwnPropertyDescriptors(ctx)).map((
            [name, d],
          ) => `${name}:${"value" in d}`).join(),
        );
        if (kept === undefined || keptSide === undefined) {
          kept = out;
          keptSide = ctx.output;
          out(`${key} first`);
          return;
        }
        // Two results through this session's out, two through the first
        // session's: only the former count toward this session's emitted.
        out(`${key} own`);
        kept(`${key} kept`);
        keptSide(tag, `${key} kept side`);
        ctx.output(tag, `${key} own side`);
        out(`${key} own again`);
        if (sum === 2) throw new Error("refused");
      }),
    }, {
      ...outputOf(log),
      rejectFire: (key, window, error, emitted) =>
        log.push(
          `rejectFire ${key} ${window} ${emitted}: ${(error as Error).message}`,
        ),
    });
    batch(op, [[1, 0, 1], [2, 20, 2], [3, 40, 3]]);
    op.processWatermark(100);
    return { log, shapes };
  });
  assert.deepEqual(runs[0], runs[1]);
  assert.deepEqual(runs[0].log.slice(0, 6), [
    "fire 1 first @9",
    "fire 2 own @29",
    "fire 2 kept @9",
    "side 2 kept side @9",
    "side 2 own side @29",
    "fire 2 own again @29",
  ]);
  assert.match(runs[0].log[6], /^rejectFire 2 .* 2: refused$/);
  assert.deepEqual(
    runs[0].shapes[0],
    "window:true,currentWatermark:true,currentProcessingTime:true,output:true",
  );
});
