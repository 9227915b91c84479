import assert from "node:assert/strict";
import { runClicksPerPage } from "../../examples/clicks_per_page.ts";

Deno.test("examples/clicks_per_page.ts: every page's full window counts 100 clicks and fires before the traffic ends", async () => {
  const fired: Array<[number, string, number, number]> = [];
  const results = await runClicksPerPage({
    onResult(at, r) {
      fired.push([at, r.page, r.windowStart, r.clicks]);
    },
  });
  assert.equal(results.length, 16);
  const firstFull = fired.filter(([, , start]) =>
    start === Date.UTC(2026, 0, 1)
  );
  assert.deepEqual(firstFull.map(([, , , clicks]) => clicks), [
    100,
    100,
    100,
    100,
  ]);
  assert.ok(
    firstFull.every(([at]) => at < 12_000),
    "fired on time, before partition 3 fell silent",
  );
  const total = results.reduce((sum, r) => sum + r.clicks, 0);
  assert.equal(total, 300 * 3 + 120);
});
