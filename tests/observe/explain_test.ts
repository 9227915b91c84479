// GET /jobs/:job/explain: why a window has not fired, on the causes users
// most often fight (a silent partition, timestamps in seconds, back-pressure).

import assert from "node:assert/strict";
import { Hono } from "hono";
import { ManualClock } from "../../src/time/clock.ts";
import { WatermarkStrategy } from "../../src/time/watermark_strategy.ts";
import { TumblingEventTimeWindows } from "../../src/windows/tumbling.ts";
import {
  ScriptedSource,
  type ScriptStep,
} from "../../src/connectors/sources/scripted.ts";
import { StreamEnvironment } from "../../src/api/stream_environment.ts";
import { LocalRuntime } from "../../src/actors/local/local_runtime.ts";
import { LocalJobHandle } from "../../src/observe/local_job_handle.ts";
import { jobRoutes } from "../../src/http/jobs.ts";
import { onError } from "../../src/http/errors.ts";
import {
  keyGroupOf,
  subtaskForKeyGroup,
} from "../../src/runtime/key_groups.ts";
import { timedSink } from "../_support/timed_sink.ts";

const T0 = 1_700_000_000_000;
type Click = { ts: number; partition: number };

interface Scenario {
  /** Partitions that receive records; the others are silent. */
  active: number[];
  /** Event time of the record at second `s`. */
  timestampOf: (s: number) => number;
  /** A partition that stops after the given second. */
  stops?: { partition: number; after: number };
  idleTimeoutMs?: number;
  mailboxCapacity?: number;
  /** How far the service's clock reads behind the job's. */
  serviceBehindMs?: number;
}

/** 4 partitions read by 2 source subtasks, a 10 s window per partition key. */
function build(scenario: Scenario) {
  const steps: ScriptStep<Click>[] = [];
  for (let s = 0; s <= 60; s++) {
    for (const partition of scenario.active) {
      const stop = scenario.stops;
      if (stop?.partition === partition && s > stop.after) continue;
      steps.push({
        at: s * 1_000,
        partition,
        value: { ts: scenario.timestampOf(s), partition },
      });
    }
  }
  // Every partition stays open (a silent one is not an ended one, which
  // would release its watermark) until long after the script.
  for (let partition = 0; partition < 4; partition++) {
    steps.push({ at: 600_000, partition, end: true });
  }
  const clock = new ManualClock(0);
  const env = new StreamEnvironment({ jobName: "idle", parallelism: 2, clock });
  let strategy = WatermarkStrategy.forBoundedOutOfOrderness<Click>(2_000)
    .withTimestampAssigner((c) => c.ts);
  if (scenario.idleTimeoutMs !== undefined) {
    strategy = strategy.withIdleness(scenario.idleTimeoutMs);
  }
  env.fromSource(
    new ScriptedSource(steps, { partitions: 4 }),
    strategy,
    "clicks",
  )
    .keyBy((c) => c.partition)
    .window(TumblingEventTimeWindows.of(10_000))
    .aggregate({
      createAccumulator: () => 0,
      add: (_c, n) => n + 1,
      getResult: (n) => n,
      merge: (a, b) => a + b,
    })
    .sinkTo(timedSink(clock, []));
  const graph = env.getJobGraph();
  const runtime = new LocalRuntime(graph, {
    clock,
    mailboxCapacity: scenario.mailboxCapacity,
  });
  const handle = new LocalJobHandle({ runtime, graph, clock });
  const app = new Hono().route(
    "/jobs",
    jobRoutes({
      jobs: new Map([["idle", handle]]),
      streams: new Map(),
      clock: scenario.serviceBehindMs === undefined ? clock : {
        now: () => clock.now() - scenario.serviceBehindMs!,
      },
    }),
  );
  app.onError(onError);
  /** Runs in 100 ms steps up to `until`, sampling every 500 ms. */
  function advance(until: number): void {
    for (let t = clock.now(); t <= until; t += 100) {
      clock.set(t);
      runtime.runUntilIdle();
      if (t % 500 === 0) handle.sample();
    }
  }
  return { clock, runtime, handle, app, advance };
}

async function explain(app: Hono, query: string) {
  const res = await app.request(`/jobs/idle/explain?${query}`);
  return { status: res.status, body: await res.json() };
}

Deno.test("GET /jobs/:job/explain names the silent partition's channel and advises withIdleness", async () => {
  const { app, advance } = build({
    active: [0, 1, 2],
    timestampOf: (s) => T0 + s * 1_000,
  });
  advance(40_000);
  const { status, body } = await explain(
    app,
    `operator=window-1&window=${T0}&size=10000&key=0`,
  );
  assert.equal(status, 200);
  const owner = subtaskForKeyGroup(keyGroupOf(0, 128), 128, 2);
  assert.equal(body.subtasks.length, 1);
  const [subtask] = body.subtasks;
  assert.equal(subtask.id, `idle/window-1/${owner}`);
  assert.deepEqual(body.window, {
    start: T0,
    end: T0 + 10_000,
    maxTimestamp: T0 + 9_999,
  });
  assert.equal(body.keyGroup, keyGroupOf(0, 128));
  assert.equal(body.fired, false);
  assert.equal(subtask.inputWatermark, "-Infinity");
  assert.equal(subtask.behindMs, "Infinity");
  // Partition 3 is read by source subtask 1, which feeds channel 1.
  assert.equal(subtask.minimum.channel, 1);
  assert.equal(subtask.minimum.upstream, "idle/source-0/1");
  assert.equal(subtask.minimum.lastMovedAt, null);
  assert.equal(subtask.channels[0].idle, false);
  assert.ok(subtask.channels[0].watermark > T0 + 30_000);
  assert.deepEqual(subtask.heldBy, ["idle/source-0/1"]);
  const advice = body.advice.join("\n");
  assert.match(advice, /channel 1 \(idle\/source-0\/1\) has never advanced/);
  assert.match(advice, /in the 40 s observed/);
  assert.match(advice, /scripted-1, scripted-3/);
  assert.match(advice, /withIdleness/);
  assert.doesNotMatch(advice, /seconds/);
});

Deno.test("GET /jobs/:job/explain says how long the minimum channel has not advanced when a partition falls silent", async () => {
  const { app, advance } = build({
    active: [0, 1, 2, 3],
    timestampOf: (s) => T0 + s * 1_000,
    stops: { partition: 3, after: 5 },
  });
  advance(45_000);
  const { body } = await explain(app, `window=${T0 + 10_000}&size=10000`);
  assert.equal(body.fired, false);
  for (const subtask of body.subtasks) {
    assert.equal(subtask.minimum.channel, 1);
    assert.equal(subtask.inputWatermark, T0 + 5_000 - 2_001);
    // Partition 3's last record is read at 5 s, its watermark reaches the
    // window at the next periodic emit (5.2 s), and the move is dated at
    // the first sample that sees it (5.5 s).
    assert.equal(subtask.minimum.lastMovedAt, 5_500);
    assert.equal(subtask.minimum.stalledForMs, 45_000 - 5_500);
  }
  const advice = body.advice.join("\n");
  assert.match(
    advice,
    /channel 1 \(idle\/source-0\/1\) has not advanced for 39.5 s \(held at 1700000002999 /,
  );
  assert.match(advice, /its partition may be silent — add withIdleness/);
});

Deno.test("GET /jobs/:job/explain reports a fired window once withIdleness leaves the silent partition out", async () => {
  const { app, advance } = build({
    active: [0, 1, 2],
    timestampOf: (s) => T0 + s * 1_000,
    idleTimeoutMs: 5_000,
  });
  advance(20_000);
  const { body } = await explain(app, `window=${T0}&size=10000`);
  assert.equal(body.operator, "window-1", "the only window operator");
  assert.equal(body.subtasks.length, 2, "every subtask without a key");
  assert.equal(body.fired, true);
  for (const subtask of body.subtasks) {
    assert.equal(subtask.fired, true);
    assert.ok(subtask.behindMs < 0);
  }
  assert.match(body.advice[0], /has passed the window's maxTimestamp/);
});

Deno.test("GET /jobs/:job/explain advises multiplying by 1000 when timestamps look like seconds", async () => {
  const { app, advance } = build({
    active: [0, 1, 2, 3],
    timestampOf: (s) => T0 / 1_000 + s,
  });
  advance(10_000);
  const { body } = await explain(app, `window=${T0}&end=${T0 + 10_000}&key=2`);
  assert.equal(body.fired, false);
  const advice = body.advice.join("\n");
  assert.match(advice, /watermark is in 1970 \(1699\d{6} \(1970-01-20T/);
  assert.match(advice, /timestamps look like seconds — multiply by 1000/);
});

Deno.test("GET /jobs/:job/explain names the downstream subtask that back-pressures the source", async () => {
  const { app, advance, runtime } = build({
    active: [0, 1, 2, 3],
    timestampOf: (s) => T0 + s * 1_000,
    mailboxCapacity: 2,
  });
  runtime.suspend("idle/window-1/0");
  advance(20_000);
  const { body } = await explain(app, `window=${T0}&size=10000`);
  const advice = body.advice.join("\n");
  assert.match(
    advice,
    /idle\/source-0\/\d is back-pressured by idle\/window-1\/0 \(\d+ elements wait in its mailbox\)/,
  );
});

Deno.test("GET /jobs/:job/explain says the watermark is advancing when nothing holds it", async () => {
  const { app, advance } = build({
    active: [0, 1, 2, 3],
    timestampOf: (s) => T0 + s * 1_000,
  });
  advance(5_000);
  const { body } = await explain(app, `window=${T0 + 10_000}&size=10000&key=1`);
  assert.equal(body.fired, false);
  assert.equal(body.advice.length, 1);
  assert.match(body.advice[0], /the watermark is advancing/);
});

Deno.test("GET /jobs/:job/explain answers 400 for a missing window and 404 for an unknown operator", async () => {
  const { app } = build({ active: [0], timestampOf: (s) => T0 + s });
  const missing = await explain(app, "operator=window-1");
  assert.equal(missing.status, 400);
  assert.equal(missing.body.error.code, "BAD_REQUEST");
  assert.match(missing.body.error.message, /'window'/);
  const unknown = await explain(app, `operator=nope&window=${T0}`);
  assert.equal(unknown.status, 404);
  assert.match(unknown.body.error.message, /'operator'.*source-0, window-1/);
  const bad = await explain(app, `window=${T0}&size=-5`);
  assert.equal(bad.status, 400);
  const job = await app.request(`/jobs/nope/explain?window=${T0}`);
  assert.equal(job.status, 404);
});

Deno.test("GET /jobs/:job/explain without 'window' explains the oldest window that has not fired, of the operator's size", async () => {
  const { app, advance, handle } = build({
    active: [0, 1, 2, 3],
    timestampOf: (s) => T0 + s * 1_000,
  });
  advance(25_000);
  const lowest = Math.min(
    ...handle.status().filter((s) => s.operator === "window-1").map((s) =>
      s.inputWatermark
    ),
  );
  assert.ok(lowest >= T0 + 20_000 && lowest < T0 + 29_999);
  const { status, body } = await explain(app, "");
  assert.equal(status, 200);
  assert.deepEqual(body.window, {
    start: T0 + 20_000,
    end: T0 + 30_000,
    maxTimestamp: T0 + 29_999,
  });
  assert.equal(body.fired, false);
  // A start alone takes the operator's window size.
  const start = await explain(app, `window=${T0 + 10_000}`);
  assert.equal(start.body.window.end, T0 + 20_000);
});

Deno.test("GET /jobs/:job/explain says the watermark is held, and by what, while an idle timeout has not run out", async () => {
  const { app, advance } = build({
    active: [0, 1, 2, 3],
    timestampOf: (s) => T0 + s * 1_000,
    stops: { partition: 3, after: 5 },
    idleTimeoutMs: 10_000,
  });
  advance(9_500);
  const { body } = await explain(app, `window=${T0 + 10_000}&size=10000`);
  assert.equal(body.fired, false);
  const advice = body.advice.join("\n");
  assert.doesNotMatch(advice, /advancing/);
  assert.match(
    advice,
    /the watermark is held at 1700000002999 .* by channel 1 \(idle\/source-0\/1\), which has not moved for 4 s: a partition of idle\/source-0\/1 may be quiet: withIdleness\(10000\) holds event time until it has been quiet for 10 s/,
  );
});

Deno.test("GET /jobs/:job/explain never says a channel moved a negative time ago when the service's clock reads behind the job's", async () => {
  const { app, advance } = build({
    active: [0, 1, 2, 3],
    timestampOf: (s) => T0 + s * 1_000,
    serviceBehindMs: 2,
  });
  // The channel moves after the last sample (5 s): explain's own
  // observation dates it, 2 ms after the service's reading of the clock.
  advance(5_300);
  const { body } = await explain(app, `window=${T0 + 10_000}&size=10000`);
  const advice = body.advice.join("\n");
  assert.match(advice, /the watermark is advancing \(it last moved 0 ms ago\)/);
  assert.doesNotMatch(advice, /-\d+ ms/);
});

Deno.test("GET /jobs/:job/explain gives late records' cause and fix from the sources' suggestedDelayMs", async () => {
  const { app, advance, handle } = build({
    active: [0, 1, 2, 3],
    // Every tenth second's records are 8 s older than the rest.
    timestampOf: (s) => T0 + s * 1_000 - (s % 10 === 5 ? 8_000 : 0),
  });
  advance(40_000);
  const statuses = handle.status();
  const late = statuses.filter((s) => s.operator === "window-1")
    .reduce((n, s) => n + (s.gauges.numLateRecordsDropped ?? 0), 0);
  assert.ok(late > 0);
  const suggested = Math.max(
    ...statuses.map((s) => s.gauges.suggestedDelayMs ?? 0),
  );
  assert.ok(suggested >= 8_000);
  const { body } = await explain(app, `window=${T0 + 30_000}&size=10000`);
  const advice = body.advice.join("\n");
  assert.match(advice, /dropped \d+ records? as late/);
  assert.ok(
    advice.includes(
      `raise forBoundedOutOfOrderness to ${suggested} ms, or set allowedLateness(${suggested})`,
    ),
    advice,
  );
});
