// jobHealth() and GET /jobs/:job/health: the health model (watermark lag, drift
// rate, late-record ratio, state size) and
// one scripted scenario per cause users fight.

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
import type { SubtaskStatus } from "../../src/actors/actor_runtime.ts";
import { LocalRuntime } from "../../src/actors/local/local_runtime.ts";
import { LocalJobHandle } from "../../src/observe/local_job_handle.ts";
import { jobRoutes } from "../../src/http/jobs.ts";
import { metricsRoutes } from "../../src/http/metrics.ts";
import { dashboardRoutes } from "../../src/http/dashboard.ts";
import { onError } from "../../src/http/errors.ts";
import {
  type Diagnosis,
  type DiagnosisCause,
  jobHealth,
} from "../../src/observe/health.ts";
import type { JobHandle } from "../../src/observe/job_handle.ts";
import { timedSink } from "../_support/timed_sink.ts";

const T0 = 1_700_000_000_000;
type Click = { ts: number; partition: number };

interface Scenario {
  /** Partitions that receive records; the others are silent. */
  active?: number[];
  /** Event time of the record read at second `s`. */
  timestampOf?: (s: number) => number;
  /** A partition that stops after the given second. */
  stops?: { partition: number; after: number };
  parallelism?: number;
  boundMs?: number;
  windowMs?: number;
  idleTimeoutMs?: number;
  mailboxCapacity?: number;
  autoWatermarkIntervalMs?: number;
}

/**
 * Four partitions read by the source, one record per active partition per
 * second of processing time, keyed by partition into tumbling windows.
 * Processing time starts at T0, so event time and the clock keep pace.
 */
function build(scenario: Scenario = {}) {
  const active = scenario.active ?? [0, 1, 2, 3];
  const timestampOf = scenario.timestampOf ?? ((s: number) => T0 + s * 1_000);
  const steps: ScriptStep<Click>[] = [];
  for (let s = 0; s <= 90; s++) {
    for (const partition of active) {
      const stop = scenario.stops;
      if (stop?.partition === partition && s > stop.after) continue;
      steps.push({
        at: T0 + s * 1_000,
        partition,
        value: { ts: timestampOf(s), partition },
      });
    }
  }
  // Every partition stays open (a silent one is not an ended one, which
  // would release its watermark) until long after the script.
  for (let partition = 0; partition < 4; partition++) {
    steps.push({ at: T0 + 900_000, partition, end: true });
  }
  const clock = new ManualClock(T0);
  const env = new StreamEnvironment({
    jobName: "clicks",
    parallelism: scenario.parallelism ?? 2,
    clock,
    autoWatermarkIntervalMs: scenario.autoWatermarkIntervalMs,
  });
  let strategy = WatermarkStrategy.forBoundedOutOfOrderness<Click>(
    scenario.boundMs ?? 2_000,
  ).withTimestampAssigner((c) => c.ts);
  if (scenario.idleTimeoutMs !== undefined) {
    strategy = strategy.withIdleness(scenario.idleTimeoutMs);
  }
  env.fromSource(
    new ScriptedSource(steps, { partitions: 4 }),
    strategy,
    "clicks",
  )
    .keyBy((c) => c.partition)
    .window(TumblingEventTimeWindows.of(scenario.windowMs ?? 10_000))
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
  const options = {
    jobs: new Map([["clicks", handle]]),
    streams: new Map(),
    clock,
  };
  const app = new Hono();
  app.route("/jobs", jobRoutes(options));
  app.route("/metrics", metricsRoutes(options));
  app.route("/", dashboardRoutes(options));
  app.onError(onError);
  /** Runs in 100 ms steps for `ms` more, sampling every 500 ms. */
  function advance(ms: number): void {
    const until = clock.now() + ms;
    for (let t = clock.now(); t <= until; t += 100) {
      clock.set(t);
      runtime.runUntilIdle();
      if ((t - T0) % 500 === 0) handle.sample();
    }
  }
  return {
    clock,
    runtime,
    handle,
    app,
    advance,
    health: () => jobHealth(handle, clock.now()),
  };
}

function only(
  diagnosis: readonly Diagnosis[],
  cause: DiagnosisCause,
): Diagnosis {
  const found = diagnosis.filter((d) => d.cause === cause);
  assert.equal(
    found.length,
    1,
    `one ${cause} in ${JSON.stringify(diagnosis, null, 1)}`,
  );
  return found[0];
}

Deno.test("jobHealth() reports a healthy job as ok with no diagnosis", () => {
  const { advance, health } = build();
  advance(65_000);
  const report = health();
  assert.deepEqual(report.diagnosis, []);
  assert.equal(report.status, "ok");
  assert.deepEqual(report.operators.map((o) => o.operator), [
    "source-0",
    "window-1",
  ]);
  for (const operator of report.operators) {
    assert.equal(operator.status, "ok", operator.operator);
    const lag = operator.watermarkLagMs.value!;
    assert.ok(lag > 2_000 && lag < 4_000, `lag ${lag}`);
    const drift = operator.driftRate.value!;
    assert.ok(drift > 0.9 && drift < 1.1, `drift ${drift}`);
  }
  const window = report.operators[1];
  assert.deepEqual(window.lateRecordRatio, { value: 0, status: "ok" });
  assert.ok(window.windows.value! > 0 && window.windows.value! <= 8);
  assert.equal(report.operators[0].windows.value, null);
  assert.equal(report.operators[0].lateRecordRatio.value, null);
});

Deno.test("jobHealth() names a silent partition without idleness and advises withIdleness", () => {
  const { advance, health } = build({ active: [0, 1, 2] });
  advance(20_000);
  const report = health();
  // Partition 3 is read by source subtask 1, with partition 1.
  const silent = only(report.diagnosis, "silent-partition");
  assert.equal(silent.operator, "source-0");
  assert.equal(silent.subtask, 1);
  assert.match(
    silent.evidence,
    /channel 1 of clicks\/window-1\/0 and channel 1 of clicks\/window-1\/1 \(from clicks\/source-0\/1\) stayed at -Infinity for 20 s while channel 0 advanced/,
  );
  assert.match(silent.evidence, /scripted-1, scripted-3/);
  assert.match(
    silent.fix,
    /^add \.withIdleness\(30_000\) to the WatermarkStrategy/,
  );
  assert.equal(report.status, "bad");
  assert.equal(report.operators[1].watermarkLagMs.value, Infinity);
  assert.equal(report.operators[1].watermarkLagMs.status, "bad");
});

Deno.test("jobHealth() names a silent partition of a single source subtask that keeps reading", () => {
  const { advance, health } = build({ active: [0, 1, 2], parallelism: 1 });
  advance(20_000);
  const silent = only(health().diagnosis, "silent-partition");
  assert.equal(silent.operator, "source-0");
  assert.equal(silent.subtask, 0);
  assert.match(
    silent.evidence,
    /read \d+ records in the last 10 s from partitions scripted-0, scripted-1, scripted-2, scripted-3: .* has sent no record yet/,
  );
  assert.match(silent.fix, /withIdleness\(30_000\)/);
});

Deno.test("jobHealth() finds no silent partition once withIdleness is set", () => {
  const { advance, health } = build({
    active: [0, 1, 2],
    idleTimeoutMs: 5_000,
  });
  advance(65_000);
  const report = health();
  assert.deepEqual(report.diagnosis, []);
  assert.equal(report.status, "ok");
});

Deno.test("jobHealth() says timestamps look like seconds and advises multiplying by 1000", () => {
  const { advance, health } = build({ timestampOf: (s) => T0 / 1_000 + s });
  advance(10_000);
  const report = health();
  const seconds = only(report.diagnosis, "timestamps-in-seconds");
  assert.equal(seconds.operator, "source-0");
  assert.match(seconds.evidence, /are in 1970 \(1699\d{6} \(1970-01-20T/);
  assert.match(
    seconds.fix,
    /multiply the timestamp by 1000 in withTimestampAssigner/,
  );
  assert.equal(report.status, "bad", "a watermark in 1970 lags by decades");
});

Deno.test("jobHealth() names the downstream operator that back-pressures the source", () => {
  const { advance, health, runtime } = build({ mailboxCapacity: 2 });
  runtime.suspend("clicks/window-1/0");
  advance(20_000);
  const pressure = only(health().diagnosis, "back-pressure");
  assert.equal(pressure.operator, "window-1");
  assert.equal(pressure.subtask, 0);
  assert.match(
    pressure.evidence,
    /clicks\/source-0\/\d.* paused by back-pressure: clicks\/window-1\/0 cannot keep up \(\d+ elements wait/,
  );
  assert.match(
    pressure.fix,
    /^speed up or scale out window-1 \(Window -> Sink: timed\)/,
  );
});

Deno.test("jobHealth() says the generator never emits when periodic watermarks are disabled", () => {
  const { advance, health } = build({ autoWatermarkIntervalMs: 0 });
  advance(5_000);
  const silent = only(health().diagnosis, "generator-never-emits");
  assert.equal(silent.operator, "source-0");
  assert.match(silent.evidence, /autoWatermarkIntervalMs is 0/);
  assert.equal(
    silent.fix,
    "set autoWatermarkIntervalMs (e.g. 200) or use a punctuated generator",
  );
});

Deno.test("jobHealth() says windows never fire when the out-of-orderness bound exceeds the window size", () => {
  // A 1 s window under a 60 s bound: for the first minute the watermark
  // advances but stays behind every window's end.
  const { advance, health, handle } = build({
    boundMs: 60_000,
    windowMs: 1_000,
  });
  assert.equal(handle.graph.vertices[1].windowSizeMs, 1_000);
  advance(50_000);
  const report = health();
  const never = only(report.diagnosis, "window-never-fires");
  assert.equal(never.operator, "window-1");
  assert.match(
    never.evidence,
    /advanced by 49 s of event time, more than the window size 1 s, yet no window closed: numWindows grew from \d+ to \d+/,
  );
  assert.match(
    never.fix,
    /lower maxOutOfOrdernessMs .* or use windows larger than the bound/,
  );
  assert.equal(
    report.diagnosis.filter((d) => d.cause === "state-growth").length,
    0,
  );
});

Deno.test("jobHealth() reports state growing while the watermark stands still", () => {
  // Partition 3 falls silent after 5 s: event time stops at its last
  // watermark and the other keys keep opening windows.
  const { advance, health } = build({ stops: { partition: 3, after: 5 } });
  advance(75_000);
  const report = health();
  const growth = only(report.diagnosis, "state-growth");
  assert.equal(growth.operator, "window-1");
  assert.match(
    growth.evidence,
    /numWindows of window-1 grew from \d+ to \d+ in 60 s while its input watermark stayed at 1700000002999 /,
  );
  assert.match(growth.fix, /make event time advance/);
  // Its cause is named too.
  const silent = only(report.diagnosis, "silent-partition");
  assert.match(silent.evidence, /stayed at 1700000002999 .* for 69\.5 s/);
  assert.equal(report.operators[1].driftRate.value, 0);
  assert.equal(report.operators[1].driftRate.status, "bad");
});

Deno.test("jobHealth() turns each metric warn or bad at its thresholds", () => {
  const { advance, handle, clock } = build();
  advance(35_000);
  const now = clock.now();
  const window = (thresholds: Parameters<typeof jobHealth>[2]) =>
    jobHealth(handle, now, thresholds).operators[1];
  assert.equal(window({}).status, "ok");
  assert.equal(window({ lagWarnMs: 1_000 }).watermarkLagMs.status, "warn");
  assert.equal(
    window({ lagWarnMs: 1_000, lagBadMs: 2_000 }).watermarkLagMs.status,
    "bad",
  );
  assert.equal(window({ driftWarn: 2 }).driftRate.status, "warn");
  assert.equal(window({ driftWarn: 2, driftBad: 1.5 }).driftRate.status, "bad");
  assert.equal(window({ windowsWarn: 1 }).windows.status, "warn");
  const bad = jobHealth(handle, now, { windowsWarn: 1, windowsBad: 2 });
  assert.equal(bad.operators[1].windows.status, "bad");
  assert.equal(bad.operators[1].status, "bad");
  assert.equal(bad.operators[0].status, "ok");
  assert.equal(bad.status, "bad", "the job is its worst operator");
  // Too little history: no drift yet.
  assert.equal(
    jobHealth(handle, now, { lookbackMs: 600_000 }).operators[0]
      .driftRate.value,
    null,
  );
  assert.throws(() => jobHealth(handle, now, { lagWarnMs: -1 }), {
    name: "RangeError",
    message: /'lagWarnMs'/,
  });
});

Deno.test("jobHealth() computes the late-record ratio from the window gauges", () => {
  const status = (
    subtask: number,
    late: number,
    recordsIn: number,
  ): SubtaskStatus => ({
    id: `j/window/${subtask}`,
    operator: "window",
    subtask,
    inputWatermark: T0,
    outputWatermark: T0,
    idle: false,
    recordsIn,
    recordsOut: 0,
    mailboxDepth: 0,
    watermarkLagMs: 0,
    paused: false,
    gauges: { numLateRecordsDropped: late, numWindows: 3, numKeys: 2 },
  });
  const handle: JobHandle = {
    name: "j",
    graph: {
      jobName: "j",
      vertices: [{
        id: "window",
        name: "Window",
        parallelism: 2,
        createOperators: () => [],
      }],
      edges: [],
      maxParallelism: 128,
      autoWatermarkIntervalMs: 200,
    },
    status: () => [status(0, 1, 60), status(1, 0, 40)],
    history: () => [],
    checkpoints: () => Promise.resolve([]),
    triggerCheckpoint: () => null,
    inputChannels: () => [],
  };
  const [window] = jobHealth(handle, T0 + 1_000).operators;
  assert.deepEqual(window.lateRecordRatio, { value: 0.01, status: "warn" });
  assert.deepEqual(window.windows, { value: 6, status: "ok" });
  assert.equal(window.keys, 4);
  assert.equal(window.watermarkLagMs.value, 1_000);
  assert.equal(window.driftRate.value, null, "no history");
  const strict = jobHealth(handle, T0, { lateRatioBad: 0.01 });
  assert.equal(strict.operators[0].lateRecordRatio.status, "bad");
});

Deno.test("GET /jobs/:job/health answers the report with infinities as strings, and 404 for an unknown job", async () => {
  const { app, advance } = build({ active: [0, 1, 2] });
  advance(20_000);
  const res = await app.request("/jobs/clicks/health");
  assert.equal(res.status, 200);
  assert.match(res.headers.get("Content-Type") ?? "", /application\/json/);
  const body = await res.json();
  assert.equal(body.job, "clicks");
  assert.equal(body.status, "bad");
  assert.equal(body.operators[1].watermarkLagMs.value, "Infinity");
  assert.equal(body.operators[1].watermark, "-Infinity");
  assert.equal(body.thresholds.lagWarnMs, 30_000);
  assert.deepEqual(
    body.diagnosis.map((d: Diagnosis) => d.cause),
    ["silent-partition"],
  );
  const tuned = await (await app.request(
    "/jobs/clicks/health?lagWarnMs=1000&driftWarn=0.8",
  )).json();
  assert.equal(tuned.thresholds.lagWarnMs, 1_000);
  assert.equal(tuned.thresholds.driftWarn, 0.8);
  const bad = await app.request("/jobs/clicks/health?stallMs=soon");
  assert.equal(bad.status, 400);
  assert.match((await bad.json()).error.message, /'stallMs'/);
  const missing = await app.request("/jobs/nope/health");
  assert.equal(missing.status, 404);
  assert.equal((await missing.json()).error.code, "NOT_FOUND");
});

Deno.test("GET /metrics exports each operator's health and raw values", async () => {
  const { app, advance } = build({ active: [0, 1, 2] });
  advance(20_000);
  const text = await (await app.request("/metrics")).text();
  assert.match(text, /# TYPE weir_operator_health gauge/);
  assert.match(
    text,
    /weir_operator_health\{job_name="clicks",operator="window-1",metric="watermark_lag"\} 2\n/,
  );
  assert.match(
    text,
    /weir_operator_health\{job_name="clicks",operator="source-0",metric="late_record_ratio"\} 0\n/,
  );
  assert.match(
    text,
    /weir_operator_watermark_lag_seconds\{job_name="clicks",operator="window-1"\} \+Inf\n/,
  );
  assert.match(
    text,
    /weir_operator_windows\{job_name="clicks",operator="window-1"\} \d+\n/,
  );
  assert.match(text, /weir_job_health\{job_name="clicks"\} 2\n/);
  assert.match(
    text,
    /weir_job_diagnoses\{job_name="clicks",operator="source-0",cause="silent-partition"\} 1\n/,
  );
});

Deno.test("GET / shows the health panel with the job status and each operator's causes", async () => {
  const { app, advance } = build({ active: [0, 1, 2] });
  advance(20_000);
  const html = await (await app.request("/")).text();
  assert.match(html, /data-testid="health-status" data-status="bad"/);
  assert.match(
    html,
    /data-testid="operator-health" data-operator="window-1" data-status="bad"/,
  );
  assert.match(html, /data-testid="diagnosis" data-cause="silent-partition"/);
  assert.match(html, /add \.withIdleness\(30_000\)/);
  const script = await (await app.request("/dashboard.js")).text();
  assert.match(script, /\/health/, "the script polls the endpoint");
});
