// /jobs through app.request(): the job list and detail,
// watermark history, checkpoints (trigger, conflict, token); the
// server-sent event stream is in jobs_events_test.ts.

import assert from "node:assert/strict";
import { Hono } from "hono";
import { jobRoutes } from "../../src/http/jobs.ts";
import { clicksHandle, T0 } from "../_support/clicks_handle.ts";
import { clicksJobsApp } from "../_support/clicks_jobs_app.ts";

const TOKEN = "s3cret";
const build = clicksJobsApp;

async function get(app: Hono, path: string) {
  const res = await app.request(path);
  return { status: res.status, body: await res.json() };
}

Deno.test("GET /jobs lists every job with its summary", async () => {
  const { app, advance } = build();
  const before = await get(app, "/jobs");
  assert.equal(before.status, 200);
  assert.equal(before.body.jobs.length, 1);
  assert.equal(before.body.jobs[0].watermark, "-Infinity");
  advance(15_000);
  const { body } = await get(app, "/jobs");
  const [job] = body.jobs;
  assert.equal(job.name, "clicks");
  assert.equal(job.numOperators, 2);
  assert.equal(job.numSubtasks, 4);
  assert.equal(job.watermark, T0 + 14_000 - 2_001);
  assert.equal(job.recordsIn, 32);
  assert.equal(job.lateRecordsDropped, 0);
  assert.equal(job.idleSubtasks, 0);
  assert.equal(job.pausedSubtasks, 0);
  assert.equal(job.lastSampleAt, null);
  assert.equal(typeof job.maxWatermarkLagMs, "number");
});

Deno.test("GET /jobs/:job describes operators and every subtask's watermarks and counts", async () => {
  const { app, advance } = build();
  advance(15_000);
  const { status, body } = await get(app, "/jobs/clicks");
  assert.equal(status, 200);
  assert.equal(body.name, "clicks");
  assert.equal(body.maxParallelism, 128);
  assert.equal(body.autoWatermarkIntervalMs, 200);
  assert.deepEqual(
    body.operators.map((o: { id: string }) => o.id),
    ["source-0", "window-1"],
  );
  const [source, window] = body.operators;
  assert.equal(source.source, true);
  assert.deepEqual(source.outputs, ["window-1"]);
  assert.deepEqual(window.inputs, ["source-0"]);
  assert.equal(window.parallelism, 2);
  const subtask = window.subtasks[0];
  assert.deepEqual(Object.keys(subtask).sort(), [
    "gauges",
    "id",
    "idle",
    "inputWatermark",
    "lateRecordsDropped",
    "mailboxDepth",
    "outputWatermark",
    "paused",
    "recordsIn",
    "recordsOut",
    "subtask",
    "watermarkLagMs",
  ]);
  assert.equal(subtask.id, "clicks/window-1/0");
  assert.equal(subtask.inputWatermark, T0 + 14_000 - 2_001);
  assert.equal(subtask.lateRecordsDropped, 0);
  assert.equal(subtask.paused, false);
  assert.equal(typeof subtask.gauges.numWindows, "number");
  const records = window.subtasks.reduce(
    (n: number, s: { recordsIn: number }) => n + s.recordsIn,
    0,
  );
  assert.equal(records, 32, "every record the sources read");
});

Deno.test("GET /jobs/:job and its sub-resources answer 404 NOT_FOUND for an unknown job", async () => {
  const { app } = build();
  for (
    const path of [
      "/jobs/nope",
      "/jobs/nope/watermarks",
      "/jobs/nope/checkpoints",
      "/jobs/nope/events?once=1",
    ]
  ) {
    const { status, body } = await get(app, path);
    assert.equal(status, 404, path);
    assert.equal(body.error.code, "NOT_FOUND");
    assert.match(body.error.message, /job 'nope'.*'clicks'/);
  }
  const post = await app.request("/jobs/nope/checkpoints", { method: "POST" });
  assert.equal(post.status, 404);
  await post.body?.cancel();
});

Deno.test("GET /jobs/:job/watermarks returns the history, which grows with sample()", async () => {
  const { app, advance, handle } = build();
  assert.deepEqual((await get(app, "/jobs/clicks/watermarks")).body, {
    job: "clicks",
    samples: [],
  });
  advance(1_000);
  handle.sample();
  advance(2_000);
  handle.sample();
  advance(3_000);
  const last = handle.sample();
  assert.equal(last.at, 3_000);
  const { body } = await get(app, "/jobs/clicks/watermarks");
  assert.deepEqual(
    body.samples.map((s: { at: number }) => s.at),
    [1_000, 2_000, 3_000],
  );
  assert.deepEqual(body.samples[2].subtasks["clicks/window-1/1"], {
    inputWatermark: T0 + 2_000 - 2_001,
    outputWatermark: T0 + 2_000 - 2_001,
    idle: false,
  });
  const since = await get(app, "/jobs/clicks/watermarks?since=1000");
  assert.equal(since.body.samples.length, 2);
  const bad = await get(app, "/jobs/clicks/watermarks?since=soon");
  assert.equal(bad.status, 400);
  assert.match(bad.body.error.message, /'since'/);
});

Deno.test("POST /jobs/:job/checkpoints answers 401 without the token, 202 with an id, then 409 while it runs", async () => {
  const { app, runtime } = build({ token: TOKEN });
  const headers = { Authorization: `Bearer ${TOKEN}` };
  const denied = await app.request("/jobs/clicks/checkpoints", {
    method: "POST",
  });
  assert.equal(denied.status, 401);
  assert.equal((await denied.json()).error.code, "UNAUTHORIZED");
  const wrong = await app.request("/jobs/clicks/checkpoints", {
    method: "POST",
    headers: { Authorization: "Bearer nope" },
  });
  assert.equal(wrong.status, 401);
  await wrong.body?.cancel();

  const started = await app.request("/jobs/clicks/checkpoints", {
    method: "POST",
    headers,
  });
  assert.equal(started.status, 202);
  assert.deepEqual(await started.json(), { id: 1 });
  const busy = await app.request("/jobs/clicks/checkpoints", {
    method: "POST",
    headers,
  });
  assert.equal(busy.status, 409);
  assert.equal((await busy.json()).error.code, "CONFLICT");

  runtime.runUntilIdle();
  await runtime.flushCheckpoints();
  const again = await app.request("/jobs/clicks/checkpoints", {
    method: "POST",
    headers,
  });
  assert.equal(again.status, 202);
  assert.deepEqual(await again.json(), { id: 2 });
  // Reading needs no token.
  const { status } = await get(app, "/jobs/clicks/checkpoints");
  assert.equal(status, 200);
});

Deno.test("POST /jobs/:job/checkpoints needs no token when none is configured", async () => {
  const { app } = build();
  const res = await app.request("/jobs/clicks/checkpoints", { method: "POST" });
  assert.equal(res.status, 202);
  assert.deepEqual(await res.json(), { id: 1 });
});

Deno.test("GET /jobs/:job/checkpoints lists the stored checkpoints with their durations and sizes", async () => {
  const { app, runtime, clock } = build();
  assert.deepEqual((await get(app, "/jobs/clicks/checkpoints")).body, {
    job: "clicks",
    checkpoints: [],
    counts: { completed: 0, failed: 0, inProgress: null, retained: 0 },
    failures: [],
    restoredFrom: null,
    restoredFromKnown: true,
    latest: null,
    sizeBytes: null,
  });
  clock.set(1_000);
  runtime.runUntilIdle();
  assert.equal(runtime.triggerCheckpoint(), 1);
  clock.set(1_250);
  runtime.runUntilIdle();
  await runtime.flushCheckpoints();
  const { body } = await get(app, "/jobs/clicks/checkpoints");
  assert.ok(body.sizeBytes > 0, `sizeBytes ${body.sizeBytes}`);
  assert.deepEqual(body.checkpoints, [
    { id: 1, createdAt: 1_250, durationMs: 250, sizeBytes: body.sizeBytes },
  ]);
  assert.deepEqual(body.counts, {
    completed: 1,
    failed: 0,
    inProgress: null,
    retained: 1,
  });
  assert.deepEqual(body.latest, {
    id: 1,
    createdAt: 1_250,
    durationMs: 250,
    sizeBytes: body.sizeBytes,
  });
});

Deno.test("GET /jobs/:job/checkpoints and /jobs/:job count checkpoints and name the one the job restored", async () => {
  const first = build();
  first.advance(2_000);
  first.runtime.triggerCheckpoint();
  first.advance(2_500);
  await first.runtime.flushCheckpoints();
  const saved = first.runtime.latestCheckpoint!;
  const restored = clicksHandle({ restoreFrom: saved });
  const app = new Hono().route(
    "/jobs",
    jobRoutes({
      jobs: new Map([["clicks", restored.handle]]),
      streams: new Map(),
      clock: restored.clock,
    }),
  );
  const before = await get(app, "/jobs/clicks/checkpoints");
  assert.deepEqual(before.body.restoredFrom, {
    id: saved.id,
    createdAt: saved.createdAt,
  });
  assert.equal(before.body.counts.completed, 0, "the restore is not counted");
  restored.clock.set(3_000);
  restored.runtime.runUntilIdle();
  const next = restored.runtime.triggerCheckpoint()!;
  restored.handle.sample();
  assert.equal(
    (await get(app, "/jobs/clicks/checkpoints")).body.counts.inProgress,
    next,
  );
  restored.clock.set(3_300);
  restored.runtime.runUntilIdle();
  await restored.runtime.flushCheckpoints();
  const { body } = await get(app, "/jobs/clicks");
  assert.deepEqual(body.checkpoints.counts, {
    completed: 1,
    failed: 0,
    inProgress: null,
    retained: 1,
  });
  assert.equal(body.checkpoints.latest.id, next);
  assert.equal(body.checkpoints.restoredFrom.id, saved.id);
  assert.ok(body.checkpoints.sizeBytes > 0);
});

Deno.test("GET /jobs/:job gives each source subtask's partitions with their status, so the page redraws them live", async () => {
  const { app, advance } = build();
  advance(3_000);
  const { body } = await get(app, "/jobs/clicks");
  const source = body.operators.find((o: { source: boolean }) => o.source);
  const partitions = source.subtasks.map((s: { partitions: unknown }) =>
    s.partitions
  );
  assert.equal(partitions.length, 2);
  for (const list of partitions) {
    assert.ok(Array.isArray(list) && list.length === 1, JSON.stringify(list));
    assert.equal(list[0].status, "active");
    assert.equal(typeof list[0].name, "string");
  }
  const window = body.operators.find((o: { source: boolean }) => !o.source);
  assert.equal(window.subtasks[0].partitions, undefined);
});
