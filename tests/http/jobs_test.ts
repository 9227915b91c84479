// /jobs through app.request(): the job list and detail,
// watermark history, checkpoints (trigger, conflict, token) and the
// server-sent event stream.

import assert from "node:assert/strict";
import { Hono } from "hono";
import { jobRoutes } from "../../src/http/jobs.ts";
import { onError } from "../../src/http/errors.ts";
import { clicksHandle, T0 } from "../_support/clicks_handle.ts";

const TOKEN = "s3cret";
function build(options: { token?: string; historySize?: number } = {}) {
  const { clock, runtime, handle, advance } = clicksHandle(options);
  const app = new Hono().route(
    "/jobs",
    jobRoutes({
      jobs: new Map([["clicks", handle]]),
      streams: new Map(),
      token: options.token,
      clock,
    }),
  );
  app.onError(onError);
  return { clock, runtime, handle, app, advance };
}

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

Deno.test("GET /jobs/:job/checkpoints lists the stored checkpoints with their durations", async () => {
  const { app, runtime, clock } = build();
  assert.deepEqual((await get(app, "/jobs/clicks/checkpoints")).body, {
    job: "clicks",
    checkpoints: [],
  });
  clock.set(1_000);
  runtime.runUntilIdle();
  assert.equal(runtime.triggerCheckpoint(), 1);
  clock.set(1_250);
  runtime.runUntilIdle();
  await runtime.flushCheckpoints();
  const { body } = await get(app, "/jobs/clicks/checkpoints");
  assert.deepEqual(body.checkpoints, [
    { id: 1, createdAt: 1_250, durationMs: 250 },
  ]);
});

Deno.test("GET /jobs/:job/events?once=1 sends one status event and ends", async () => {
  const { app, advance, handle } = build();
  advance(5_000);
  handle.sample();
  const res = await app.request("/jobs/clicks/events?once=1");
  assert.equal(res.status, 200);
  assert.match(res.headers.get("Content-Type") ?? "", /^text\/event-stream/);
  const text = await res.text();
  assert.equal(text.match(/^event: status$/gm)?.length, 1);
  const data = JSON.parse(/^data: (.*)$/m.exec(text)![1]);
  assert.equal(data.name, "clicks");
  assert.equal(data.numSubtasks, 4);
  assert.equal(data.lastSampleAt, 5_000);
  assert.equal(data.sample.at, 5_000);
  assert.match(text, /^id: 0$/m);
});

/** What {@link withTimerCount} tells its function. */
interface TimerCount {
  /** How many timers set since the start are neither fired nor cleared. */
  pending(): number;
  /** Resolves once a timer is pending (at once if one is). */
  somePending(): Promise<void>;
}

/**
 * Runs `fn` with `setTimeout` and `clearTimeout` wrapped so that it can see
 * which timers are pending; the real functions are back afterwards.
 */
async function withTimerCount(
  fn: (timers: TimerCount) => Promise<void>,
): Promise<void> {
  const { setTimeout: realSet, clearTimeout: realClear } = globalThis;
  const live = new Set<unknown>();
  let onSet = () => {};
  function countedSetTimeout(
    callback: (...args: unknown[]) => void,
    ms?: number,
    ...args: unknown[]
  ): unknown {
    const id = realSet(
      (...a: unknown[]) => {
        live.delete(id);
        callback(...a);
      },
      ms,
      ...args,
    );
    live.add(id);
    onSet();
    return id;
  }
  function countedClearTimeout(id?: ReturnType<typeof setTimeout>): void {
    live.delete(id);
    realClear(id);
  }
  globalThis.setTimeout = countedSetTimeout as unknown as typeof setTimeout;
  globalThis.clearTimeout = countedClearTimeout as typeof clearTimeout;
  try {
    await fn({
      pending: () => live.size,
      somePending: () =>
        live.size > 0
          ? Promise.resolve()
          : new Promise<void>((resolve) => onSet = resolve),
    });
  } finally {
    globalThis.setTimeout = realSet;
    globalThis.clearTimeout = realClear;
  }
}

Deno.test("GET /jobs/:job/events keeps sending status events until the client disconnects, leaving no timer behind", async () => {
  const { app } = build();
  await withTimerCount(async (timers) => {
    const res = await app.request("/jobs/clicks/events?interval=50");
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    while ((text.match(/^event: status$/gm)?.length ?? 0) < 2) {
      const { value, done } = await reader.read();
      assert.equal(done, false);
      text += decoder.decode(value, { stream: true });
    }
    // The stream's loop sleeps until its next event; the client leaves.
    await timers.somePending();
    // Cancelling the body itself (no pipe in between) runs the stream's
    // abort before it resolves, which must end the sleep at once.
    await reader.cancel();
    assert.equal(timers.pending(), 0, "the loop's sleep was cleared");
  });
});

Deno.test("GET /jobs/:job/events answers 400 for an interval below 50 ms", async () => {
  const { app } = build();
  const { status, body } = await get(app, "/jobs/clicks/events?interval=10");
  assert.equal(status, 400);
  assert.match(body.error.message, /'interval'/);
});
