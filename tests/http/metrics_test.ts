// /metrics through app.request(): the Prometheus text
// exposition format, infinities as -Inf/+Inf, escaped label values, and
// `promtool check metrics` on a running job's output (skipped, with the
// reason in its name, where promtool is not installed:
// `apt-get install -y prometheus`; .ci/run installs it).

import assert from "node:assert/strict";
import {
  type Click,
  clicksGraph,
  clicksHandle,
} from "../_support/clicks_handle.ts";
import { Hono } from "hono";
import { ManualClock } from "../../src/time/clock.ts";
import type { ScriptStep } from "../../src/connectors/sources/scripted.ts";
import { LocalRuntime } from "../../src/actors/local/local_runtime.ts";
import { LocalJobHandle } from "../../src/observe/local_job_handle.ts";
import { DeadLetterLog } from "../../src/actors/dead_letter_log.ts";
import { MemoryStorage } from "../../src/actors/local/memory_storage.ts";
import { metricsRoutes } from "../../src/http/metrics.ts";
import { onError } from "../../src/http/errors.ts";

const T0 = 1_700_000_000_000;

/**
 * One job of two partitions (the second silent) under the URL name `name`,
 * with the dead-letter log `deadLetters` if given.
 */
function build(name = "clicks", deadLetters?: DeadLetterLog) {
  const steps: ScriptStep<Click>[] = [];
  for (let s = 0; s <= 20; s++) {
    steps.push({ at: s * 1_000, value: { ts: T0 + s * 1_000, partition: 0 } });
  }
  // Partition 1 stays open without records until then.
  steps.push({ at: 60_000, partition: 1, end: true });
  const clock = new ManualClock(0);
  const graph = clicksGraph(steps, 2, clock);
  const runtime = new LocalRuntime(graph, { clock });
  const handle = new LocalJobHandle({
    runtime,
    graph,
    clock,
    name,
    // A handle may keep no log (a runtime of its own that has none).
    deadLetters: () => deadLetters,
  });
  const app = new Hono().route(
    "/metrics",
    metricsRoutes({
      jobs: new Map([[name, handle]]),
      streams: new Map(),
      clock,
    }),
  );
  app.onError(onError);
  function advance(until: number): void {
    for (let t = clock.now(); t <= until; t += 100) {
      clock.set(t);
      runtime.runUntilIdle();
    }
  }
  return { clock, runtime, handle, app, advance };
}

// name{label="value",...} value, with Prometheus's escapes in label values.
const SAMPLE =
  /^([a-zA-Z_:][a-zA-Z0-9_:]*)\{((?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*",?)*)\} (-?\d+(?:\.\d+)?(?:e[+-]?\d+)?|[+-]Inf|NaN)$/;

/** Parses the exposition text, checking every line's shape. */
function parse(text: string) {
  const samples: Array<
    { name: string; labels: Record<string, string>; value: string }
  > = [];
  const types = new Map<string, string>();
  const helps = new Set<string>();
  for (const line of text.trimEnd().split("\n")) {
    const type = /^# TYPE (\S+) (gauge|counter)$/.exec(line);
    if (type !== null) {
      types.set(type[1], type[2]);
      continue;
    }
    const help = /^# HELP (\S+) .+$/.exec(line);
    if (help !== null) {
      helps.add(help[1]);
      continue;
    }
    const match = SAMPLE.exec(line);
    assert.ok(match !== null, `not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (
      const [, k, v] of match[2].matchAll(/([a-zA-Z_]\w*)="((?:[^"\\]|\\.)*)"/g)
    ) {
      labels[k] = v.replace(/\\(.)/g, (_, c) => c === "n" ? "\n" : c);
    }
    assert.ok(types.has(match[1]), `${match[1]} has a TYPE line before it`);
    assert.ok(helps.has(match[1]), `${match[1]} has a HELP line before it`);
    samples.push({ name: match[1], labels, value: match[3] });
  }
  return { samples, types };
}

async function scrape(app: Hono) {
  const res = await app.request("/metrics");
  assert.equal(res.status, 200);
  assert.match(
    res.headers.get("Content-Type") ?? "",
    /^text\/plain; version=0\.0\.4/,
  );
  return parse(await res.text());
}

Deno.test("GET /metrics writes every subtask family in the text exposition format", async () => {
  const { app, advance } = build();
  advance(5_000);
  const { samples, types } = await scrape(app);
  const names = new Set(samples.map((s) => s.name));
  for (
    const name of [
      "weir_subtask_input_watermark_seconds",
      "weir_subtask_output_watermark_seconds",
      "weir_subtask_watermark_lag_seconds",
      "weir_subtask_idle",
      "weir_subtask_paused",
      "weir_subtask_records_in_total",
      "weir_subtask_records_out_total",
      "weir_subtask_late_records_dropped_total",
      "weir_subtask_pending_records",
      "weir_subtask_back_pressured_seconds_total",
      "weir_subtask_windows",
      "weir_subtask_lateness_p95_seconds",
      "weir_checkpoints_retained",
      "weir_checkpoints_completed_total",
      "weir_checkpoints_failed_total",
    ]
  ) assert.ok(names.has(name), name);
  assert.equal(types.get("weir_subtask_records_in_total"), "counter");
  assert.equal(types.get("weir_subtask_idle"), "gauge");
  const records = samples.find((s) =>
    s.name === "weir_subtask_records_in_total" &&
    s.labels.operator === "source-0" && s.labels.subtask === "0"
  );
  assert.deepEqual(records, {
    name: "weir_subtask_records_in_total",
    labels: { job_name: "clicks", operator: "source-0", subtask: "0" },
    value: "6",
  });
  const windows = samples.find((s) =>
    s.name === "weir_subtask_windows" && s.labels.subtask === "0"
  );
  assert.equal(windows?.labels.operator, "window-1");
  // No generic family: every gauge has a name of its own.
  assert.equal(names.has("weir_gauge"), false);
  assert.equal(
    types.get("weir_subtask_back_pressured_seconds_total"),
    "counter",
  );
  assert.equal(types.get("weir_checkpoints_completed_total"), "counter");
  // The `job` label would become `exported_job` on a scrape.
  assert.ok(
    samples.every((s) => !("job" in s.labels) && "job_name" in s.labels),
  );
  // Only window subtasks count late records.
  assert.equal(
    samples.filter((s) => s.name === "weir_subtask_late_records_dropped_total")
      .length,
    2,
  );
});

Deno.test("GET /metrics writes -Infinity watermarks as -Inf", async () => {
  const { app, advance } = build();
  advance(5_000);
  const { samples } = await scrape(app);
  const input = (operator: string, subtask: string) =>
    samples.find((s) =>
      s.name === "weir_subtask_input_watermark_seconds" &&
      s.labels.operator === operator && s.labels.subtask === subtask
    )?.value;
  // Source subtask 1 reads the silent partition: no watermark anywhere
  // downstream of it.
  assert.equal(input("source-0", "1"), "-Inf");
  assert.equal(input("window-1", "0"), "-Inf");
  assert.equal(input("source-0", "0"), String((T0 + 4_000 - 2_001) / 1000));
  const lag = samples.find((s) =>
    s.name === "weir_subtask_watermark_lag_seconds" &&
    s.labels.operator === "window-1"
  );
  assert.equal(lag?.value, "+Inf");
});

Deno.test("GET /metrics escapes backslashes, quotes and line feeds in label values", async () => {
  const { app } = build('we"ird\\job\nname');
  const res = await app.request("/metrics");
  const text = await res.text();
  assert.ok(
    text.includes('job_name="we\\"ird\\\\job\\nname"'),
    text.slice(0, 400),
  );
  const { samples } = parse(text);
  assert.equal(samples[0].labels.job_name, 'we"ird\\job\nname');
});

Deno.test("GET /metrics reports the last checkpoint's duration", async () => {
  const { app, clock, runtime } = build();
  clock.set(1_000);
  runtime.runUntilIdle();
  runtime.triggerCheckpoint();
  clock.set(1_300);
  runtime.runUntilIdle();
  await runtime.flushCheckpoints();
  const { samples } = await scrape(app);
  assert.deepEqual(
    samples.find((s) => s.name === "weir_checkpoint_duration_seconds"),
    {
      name: "weir_checkpoint_duration_seconds",
      labels: { job_name: "clicks" },
      value: "0.3",
    },
  );
  const value = (name: string) => samples.find((s) => s.name === name)?.value;
  assert.equal(value("weir_checkpoints_retained"), "1");
  assert.equal(value("weir_checkpoints_completed_total"), "1");
  assert.equal(value("weir_checkpoints_failed_total"), "0");
});

Deno.test("GET /metrics counts the job's dead letters in weir_dead_letters_total", async () => {
  const log = new DeadLetterLog(new MemoryStorage());
  const { app } = build("clicks", log);
  const total = async () => {
    const { samples, types } = await scrape(app);
    assert.equal(types.get("weir_dead_letters_total"), "counter");
    return samples.filter((s) => s.name === "weir_dead_letters_total");
  };
  assert.deepEqual(await total(), [{
    name: "weir_dead_letters_total",
    labels: { job_name: "clicks" },
    value: "0",
  }]);
  await log.append([0, 1].map((i) => ({
    id: `map-1/0/${i}`,
    operator: "map-1",
    subtask: 0,
    value: i,
    timestamp: T0,
    error: { name: "Error", message: "poison" },
    position: `channel 0, record ${i}`,
    reason: "dead-letter" as const,
    at: T0 + i,
  })));
  assert.equal((await total())[0].value, "2");
});

Deno.test("GET /metrics leaves weir_dead_letters_total out for a job that keeps no dead-letter log", async () => {
  const { app } = build();
  const { samples, types } = await scrape(app);
  assert.equal(types.has("weir_dead_letters_total"), false);
  assert.equal(
    samples.some((s) => s.name === "weir_dead_letters_total"),
    false,
  );
});

/** Where promtool is, or `null` when it is not installed. */
function findPromtool(): string | null {
  const dirs = ["/usr/bin", ...(Deno.env.get("PATH") ?? "").split(":")];
  for (const dir of dirs.filter((d) => d !== "")) {
    try {
      if (Deno.statSync(`${dir}/promtool`).isFile) return `${dir}/promtool`;
    } catch {
      // Not there: try the next one.
    }
  }
  return null;
}

const PROMTOOL = findPromtool();

Deno.test({
  name: PROMTOOL === null
    ? "promtool check metrics passes on a running job's /metrics (ignored: promtool is not installed, apt-get install -y prometheus)"
    : "promtool check metrics passes on a running job's /metrics, with no warning",
  ignore: PROMTOOL === null,
  async fn() {
    const log = new DeadLetterLog(new MemoryStorage());
    const { app, runtime, advance } = build("clicks", log);
    advance(5_000);
    runtime.triggerCheckpoint();
    advance(6_000);
    await runtime.flushCheckpoints();
    await app.request("/metrics");
    advance(8_000);
    const text = await (await app.request("/metrics")).text();
    // Every kind of family is there: subtask, registered gauge,
    // checkpoint, dead letters and health.
    for (
      const name of [
        "weir_subtask_watermark_lag_seconds",
        "weir_subtask_lateness_p95_seconds",
        "weir_checkpoint_duration_seconds",
        "weir_checkpoints_completed_total",
        "weir_dead_letters_total",
        "weir_operator_health",
      ]
    ) assert.ok(text.includes(`# TYPE ${name} `), name);
    const child = new Deno.Command(PROMTOOL!, {
      args: ["check", "metrics"],
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(text));
    await writer.close();
    const output = await child.output();
    const said = new TextDecoder().decode(output.stdout) +
      new TextDecoder().decode(output.stderr);
    assert.equal(said, "");
    assert.equal(output.code, 0);
  },
});

Deno.test("GET /metrics names the checkpoint a job started from (weir_checkpoint_restored_id), and nothing for a fresh start", async () => {
  const first = clicksHandle();
  first.advance(2_000);
  first.runtime.triggerCheckpoint();
  first.advance(2_500);
  await first.runtime.flushCheckpoints();
  const saved = first.runtime.latestCheckpoint!;
  const appOf = (handle: LocalJobHandle, clock: ManualClock) =>
    new Hono().route(
      "/metrics",
      metricsRoutes({
        jobs: new Map([["clicks", handle]]),
        streams: new Map(),
        clock,
      }),
    );
  const fresh = await scrape(appOf(first.handle, first.clock));
  assert.equal(
    fresh.samples.filter((s) => s.name === "weir_checkpoint_restored_id")
      .length,
    0,
  );
  const restored = clicksHandle({ restoreFrom: saved });
  const { samples } = await scrape(appOf(restored.handle, restored.clock));
  assert.deepEqual(
    samples.filter((s) => s.name === "weir_checkpoint_restored_id"),
    [{
      name: "weir_checkpoint_restored_id",
      labels: { job_name: "clicks" },
      value: String(saved.id),
    }],
  );
});
