// A job's dead letters over HTTP through app.request():
// GET /jobs/:job/dead-letters, the count in the /jobs summary and the most
// recent letters in /jobs/:job; how LocalJobHandle finds the log, and the summary's cache.

import assert from "node:assert/strict";
import { Hono } from "hono";
import { ManualClock } from "../../src/time/clock.ts";
import { StreamEnvironment } from "../../src/api/stream_environment.ts";
import { LocalRuntime } from "../../src/actors/local/local_runtime.ts";
import { MemoryStorage } from "../../src/actors/local/memory_storage.ts";
import { DeadLetterLog } from "../../src/actors/dead_letter_log.ts";
import type { DeadLetter } from "../../src/runtime/dead_letter.ts";
import type { ActorFailure } from "../../src/actors/actor_failure.ts";
import type { RuntimeView } from "../../src/actors/actor_runtime.ts";
import { LocalJobHandle } from "../../src/observe/local_job_handle.ts";
import { jobRoutes } from "../../src/http/jobs.ts";
import { onError } from "../../src/http/errors.ts";
import { readDeadLetters } from "../../src/observe/dead_letters.ts";
import { timedSink } from "../_support/timed_sink.ts";

const T0 = 1_700_000_000_000;

/** The `i`th letter: set aside at `T0 + i` s by map-1's subtask `i % 2`. */
function letter(i: number, overrides: Partial<DeadLetter> = {}): DeadLetter {
  return {
    id: `map-1/${i % 2}/${i}`,
    operator: "map-1",
    subtask: i % 2,
    value: { n: i },
    timestamp: T0 + i,
    error: { name: "TypeError", message: `bad record ${i}` },
    position: `channel 0, record ${i}`,
    reason: "dead-letter",
    at: T0 + i * 1_000,
    ...overrides,
  };
}

/** A map job on the local runtime whose handle reads `log`. */
function build(
  options: { log?: DeadLetterLog; token?: string } = {},
) {
  const clock = new ManualClock(T0);
  const env = new StreamEnvironment({ jobName: "clicks", clock });
  env.fromCollection([1, 2, 3]).map((n) => n * 2).sinkTo(
    timedSink(clock, []),
  );
  const graph = env.getJobGraph();
  const runtime = new LocalRuntime(graph, { clock });
  const handle = new LocalJobHandle({
    runtime,
    graph,
    clock,
    // A handle may keep no log (a runtime of its own that has none).
    deadLetters: () => options.log,
  });
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
  return { app, handle };
}

async function logOf(letters: DeadLetter[]): Promise<DeadLetterLog> {
  const log = new DeadLetterLog(new MemoryStorage());
  await log.append(letters);
  return log;
}

async function get(app: Hono, path: string, init?: RequestInit) {
  // A Request, not (path, init): on Deno 2.5, Hono's RequestInit (from
  // @types/node) is not Deno's.
  const res = await app.request(new Request(`http://localhost${path}`, init));
  return { status: res.status, body: await res.json() };
}

Deno.test("GET /jobs/:job/dead-letters answers the most recent letters, oldest first, with the count", async () => {
  const log = await logOf([3, 1, 2, 0].map((i) => letter(i)));
  const { app } = build({ log });
  const all = await get(app, "/jobs/clicks/dead-letters");
  assert.equal(all.status, 200);
  assert.equal(all.body.job, "clicks");
  assert.equal(all.body.count, 4);
  assert.deepEqual(
    all.body.letters.map((l: DeadLetter) => l.position),
    [0, 1, 2, 3].map((i) => `channel 0, record ${i}`),
  );
  assert.deepEqual(all.body.letters[1], letter(1));
  const { body } = await get(app, "/jobs/clicks/dead-letters?limit=2");
  assert.equal(body.count, 4, "the count is the log's, not the page's");
  assert.deepEqual(body.letters.map((l: DeadLetter) => l.id), [
    "map-1/0/2",
    "map-1/1/3",
  ]);
});

Deno.test("GET /jobs/:job/dead-letters sends infinities, NaN and bigints in records as strings", async () => {
  const log = await logOf([
    letter(0, { value: { big: 12n, inf: -Infinity }, timestamp: NaN }),
  ]);
  const { app } = build({ log });
  const res = await app.request("/jobs/clicks/dead-letters");
  assert.equal(res.status, 200);
  const [sent] = (await res.json()).letters;
  assert.deepEqual(sent.value, { big: "12", inf: "-Infinity" });
  assert.equal(sent.timestamp, "NaN");
});

Deno.test("GET /jobs/:job/dead-letters answers 404 NOT_FOUND for an unknown job and for a job that keeps no log", async () => {
  const { app } = build({ log: await logOf([]) });
  const unknown = await get(app, "/jobs/nope/dead-letters");
  assert.equal(unknown.status, 404);
  assert.equal(unknown.body.error.code, "NOT_FOUND");
  assert.match(unknown.body.error.message, /job 'nope'.*'clicks'/);
  const none = await get(build().app, "/jobs/clicks/dead-letters");
  assert.equal(none.status, 404);
  assert.match(none.body.error.message, /job 'clicks'.*dead-letter log/);
});

Deno.test("GET /jobs/:job/dead-letters answers 400 BAD_REQUEST naming 'limit' outside 1 to 1000", async () => {
  const { app } = build({ log: await logOf([letter(0)]) });
  for (const limit of ["0", "1001", "-3", "ten", "1.5"]) {
    const { status, body } = await get(
      app,
      `/jobs/clicks/dead-letters?limit=${limit}`,
    );
    assert.equal(status, 400, limit);
    assert.equal(body.error.code, "BAD_REQUEST");
    assert.match(body.error.message, /'limit'/);
  }
  assert.equal(
    (await get(app, "/jobs/clicks/dead-letters?limit=1000")).status,
    200,
  );
});

Deno.test("GET /jobs/:job/dead-letters requires the token when one is set, as letters hold records", async () => {
  const { app } = build({ log: await logOf([letter(0)]), token: "s3cret" });
  const refused = await get(app, "/jobs/clicks/dead-letters");
  assert.equal(refused.status, 401);
  assert.equal(refused.body.error.code, "UNAUTHORIZED");
  const headers = { Authorization: "Bearer s3cret" };
  const { status, body } = await get(app, "/jobs/clicks/dead-letters", {
    headers,
  });
  assert.equal(status, 200);
  assert.equal(body.count, 1);
  // The counts and briefs stay open, like the rest of /jobs.
  assert.equal((await get(app, "/jobs/clicks")).body.deadLetters, 1);
});

Deno.test("GET /jobs and /jobs/:job count the dead letters; /jobs/:job shows the 5 most recent without their records", async () => {
  const log = await logOf([0, 1, 2, 3, 4, 5, 6].map((i) => letter(i)));
  const { app } = build({ log });
  const list = await get(app, "/jobs");
  assert.equal(list.body.jobs[0].deadLetters, 7);
  const { body } = await get(app, "/jobs/clicks");
  assert.equal(body.deadLetters, 7);
  assert.deepEqual(
    body.recentDeadLetters.map((l: DeadLetter) => l.id),
    [2, 3, 4, 5, 6].map((i) => letter(i).id),
  );
  const { value: _, ...brief } = letter(6);
  assert.deepEqual(body.recentDeadLetters[4], brief);
  await log.append([letter(7, { reason: "quarantined" })]);
  const after = await get(app, "/jobs/clicks");
  assert.equal(after.body.deadLetters, 8);
  assert.equal(after.body.recentDeadLetters[4].reason, "quarantined");
});

Deno.test("GET /jobs and /jobs/:job show deadLetters null and no letters when the job keeps no log", async () => {
  const { app } = build();
  assert.equal((await get(app, "/jobs")).body.jobs[0].deadLetters, null);
  const { body } = await get(app, "/jobs/clicks");
  assert.equal(body.deadLetters, null);
  assert.deepEqual(body.recentDeadLetters, []);
});

Deno.test("LocalJobHandle.deadLetters() reads the runtime's deadLetters at every call", () => {
  const first = new DeadLetterLog(new MemoryStorage());
  const runtime: RuntimeView & { deadLetters?: DeadLetterLog } = {
    status: () => [],
    checkpointDurationMs: () => undefined,
    triggerCheckpoint: () => null,
    sourcePartitions: () => [],
    inputChannels: () => [],
    latestCheckpoint: null,
    deadLetters: first,
  };
  const handle = new LocalJobHandle({
    runtime,
    graph: build().handle.graph,
    clock: new ManualClock(T0),
  });
  assert.equal(handle.deadLetters(), first);
  const second = new DeadLetterLog(new MemoryStorage());
  runtime.deadLetters = second;
  assert.equal(handle.deadLetters(), second);
  runtime.deadLetters = undefined;
  assert.equal(handle.deadLetters(), undefined);
});

/** A log that counts how often its letters are listed. */
class CountingLog extends DeadLetterLog {
  lists = 0;
  override list(limit?: number): Promise<DeadLetter[]> {
    this.lists++;
    return super.list(limit);
  }
}

Deno.test("readDeadLetters() lists the letters again only when the count changed", async () => {
  const log = new CountingLog(new MemoryStorage());
  await log.append([letter(0), letter(1)]);
  const handle = { name: "clicks", deadLetters: () => log };
  const first = await readDeadLetters(handle, 5);
  assert.equal(first?.count, 2);
  assert.equal(first?.recent.length, 2);
  await readDeadLetters(handle, 5);
  assert.equal(log.lists, 1, "an unchanged count reuses the letters");
  await log.append([letter(2)]);
  const after = await readDeadLetters(handle, 2);
  assert.equal(log.lists, 2);
  assert.deepEqual(after?.recent.map((l) => l.id), [
    letter(1).id,
    letter(2).id,
  ]);
  assert.deepEqual(await readDeadLetters(handle, 0), { count: 3, recent: [] });
});

Deno.test("readDeadLetters() answers null when the log cannot be read, and logs why", async () => {
  const handle = {
    name: "clicks",
    deadLetters: () => ({
      count: () => Promise.reject(new Error("database is locked")),
      list: () => Promise.resolve([]),
    }),
  };
  const logged: unknown[][] = [];
  const real = console.error;
  console.error = (...args: unknown[]) => logged.push(args);
  try {
    assert.equal(await readDeadLetters(handle, 5), null);
  } finally {
    console.error = real;
  }
  assert.match(String(logged[0][0]), /dead letters of job 'clicks'/);
});

Deno.test("GET /jobs/:job shows what a failing actor is stuck on, on its subtask", async () => {
  const clock = new ManualClock(T0);
  const env = new StreamEnvironment({ jobName: "clicks", clock });
  env.fromCollection([1, 2, 3]).map((n) => n * 2).sinkTo(timedSink(clock, []));
  const graph = env.getJobGraph();
  const real = new LocalRuntime(graph, { clock });
  const stuck: ActorFailure = {
    error: { name: "Error", message: "boom" },
    record: {
      operator: "Map",
      subtask: 0,
      position: "partition collection-0, offset 1",
      letter: "0123456789abcdef",
    },
    failures: 3,
    since: T0,
    retryAt: T0 + 40_000,
    delayMs: 40_000,
    worker: "w1",
  };
  const runtime: RuntimeView = {
    status: () => real.status().map((s, i) => i === 0 ? { ...s, stuck } : s),
    checkpointDurationMs: () => undefined,
    triggerCheckpoint: () => null,
    sourcePartitions: () => [],
    inputChannels: () => [],
    latestCheckpoint: null,
  };
  const handle = new LocalJobHandle({ runtime, graph, clock });
  const app = new Hono().route(
    "/jobs",
    jobRoutes({
      jobs: new Map([["clicks", handle]]),
      streams: new Map(),
      clock,
    }),
  );
  app.onError(onError);
  const { body } = await get(app, "/jobs/clicks");
  const subtasks = body.operators.flatMap((
    o: { subtasks: { stuck?: ActorFailure }[] },
  ) => o.subtasks);
  assert.deepEqual(subtasks.filter((s: { stuck?: unknown }) => s.stuck), [
    { ...subtasks[0], stuck },
  ]);
  assert.equal(subtasks[0].stuck.record.position, stuck.record!.position);
});
