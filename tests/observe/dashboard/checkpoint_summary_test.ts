// The checkpoints panel's summary line: counts, the last failure, and
// where the job started from (or that it is not known).

import assert from "node:assert/strict";
import { Hono } from "hono";
import { checkpointSummaryText } from "../../../src/observe/dashboard/checkpoint_summary.ts";
import { dashboardRoutes } from "../../../src/http/dashboard.ts";
import { clicksHandle } from "../../_support/clicks_handle.ts";

Deno.test("checkpointSummaryText() says the counts, the last failure and the start", () => {
  assert.equal(checkpointSummaryText(undefined), "");
  assert.equal(
    checkpointSummaryText({
      completed: 4,
      failed: 2,
      inProgress: null,
      failures: [{ id: 5, at: 0 }, { id: 7, at: 1 }],
      restoredFrom: { id: 3, createdAt: 0 },
      restoredFromKnown: true,
    }),
    "4 completed, 2 failed (last: 7); started from checkpoint 3",
  );
  assert.equal(
    checkpointSummaryText({
      completed: 0,
      failed: 0,
      inProgress: null,
      failures: [],
      restoredFrom: null,
      restoredFromKnown: false,
    }),
    "0 completed, 0 failed; where it started is not known",
  );
});

Deno.test("GET / shows the checkpoint summary of a running job", async () => {
  const { runtime, handle, clock } = clicksHandle();
  const app = new Hono().route(
    "/",
    dashboardRoutes({
      jobs: new Map([["clicks", handle]]),
      streams: new Map(),
      clock,
    }),
  );
  runtime.triggerCheckpoint();
  runtime.runUntilIdle();
  await runtime.flushCheckpoints();
  handle.sample();
  const html = await (await app.request("/")).text();
  assert.match(
    html,
    /data-testid="checkpoint-summary">1 completed, 0 failed; started afresh</,
  );
});
