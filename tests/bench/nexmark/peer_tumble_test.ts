import assert from "node:assert/strict";
import { ManualClock } from "../../../src/mod.ts";
import {
  peerKey,
  peerTime,
  peerTumble,
} from "../../../bench/nexmark/queries/peer_tumble.ts";
import { runKernel } from "../../../bench/nexmark/query.ts";

Deno.test("peer-tumble's kernel fires one pane per record: every key once per 10 s window", () => {
  const input = peerTumble.input!.pregenerate(3_000, 2);
  assert.deepEqual(input.merged, [...Array(3_000).keys()]);
  assert.equal(peerTime(1) - peerTime(0), 10);
  assert.equal(peerKey(1), 919);
  const results = runKernel(peerTumble, input.merged, new ManualClock(0));
  assert.equal(results.length, 3_000);
  assert.ok(results.every((r) => r.count === 1));
  assert.equal(peerTumble.windows!(results), 3);
});

Deno.test("deno task bench --query peer-tumble on a few events passes the engine = kernel check", async () => {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      new URL("../../../bench/nexmark.ts", import.meta.url).pathname,
      "--query",
      "peer-tumble",
      "--events",
      "3000",
      "--parallelism",
      "2",
      "--runs",
      "1",
      "--no-checkpoints",
      "--json",
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(output.stderr);
  assert.equal(output.code, 0, stderr);
  const report = JSON.parse(new TextDecoder().decode(output.stdout));
  const [query] = report.queries;
  assert.equal(query.query, "peer-tumble");
  assert.equal(query.checked, true);
  assert.equal(query.results, 3_000);
  assert.equal(query.kernelResults, 3_000);
  assert.equal(query.windows, 3);
});
