import assert from "node:assert/strict";
import { checkResults, firstDifference } from "../../../bench/nexmark/check.ts";
import { q7 } from "../../../bench/nexmark/queries/q7.ts";
import { q4 } from "../../../bench/nexmark/queries/q4.ts";
import { runKernel } from "../../../bench/nexmark/query.ts";
import { ManualClock } from "../../../src/mod.ts";
import { generate } from "./_run_query.ts";

Deno.test("firstDifference names the first differing result, or a missing one", () => {
  assert.equal(firstDifference(["a", "b"], ["a", "b"]), null);
  assert.equal(
    firstDifference(['"a"', '"c"'], ['"a"', '"b"']),
    'at 1: engine "\\"c\\"", kernel "\\"b\\""',
  );
  assert.match(
    firstDifference(["a"], ["a", "b"])!,
    /engine has 1 results, kernel 2; first unmatched: "b"/,
  );
  assert.equal(firstDifference({ x: 1 }, { x: 1 }), null);
  assert.equal(
    firstDifference({ x: 1 }, { x: 2 }),
    'engine {"x":1}, kernel {"x":2}',
  );
});

Deno.test("checkResults accepts the kernel's results in any order and fails on a wrong one, naming the query", () => {
  const events = generate({ numEvents: 5_000, firstEventRate: 100 });
  const kernel = runKernel(q7, events, new ManualClock(0));
  assert.ok(kernel.length > 2);
  checkResults(q7, [...kernel].reverse(), kernel);
  const wrong = kernel.map((bid, i) =>
    i === 1 ? { ...bid, price: bid.price + 1 } : bid
  );
  assert.throws(() => checkResults(q7, wrong, kernel), {
    message:
      /^Benchmark check failed as q7's engine results differ from its kernel's: at \d+: engine /,
  });
  assert.throws(() => checkResults(q7, kernel.slice(1), kernel), {
    message: /q7's engine results differ from its kernel's/,
  });
  // A query's own canonical form is used: q4's compares rounded averages.
  const averages = runKernel(q4, events, new ManualClock(0));
  checkResults(q4, averages, averages);
});
