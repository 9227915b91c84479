// Nexmark on weir: every query as a weir job against the same query as a
// hand-written loop (its kernel), on the same pregenerated events, in one
// run; then the job again with the generator in the loop, and with a
// checkpoint every second to a local Deno KV file.
//
//   deno task bench [--events N] [--query qN]... [--parallelism P]
//                   [--rate EVENTS_PER_S] [--runs R] [--no-checkpoints] [--json]
//
// A progress bar goes to stderr; a table per query, then a summary and the
// issue's targets, go to stdout (or one JSON document with --json).
// Throughput is events/s of wall time over the whole input, from building the
// runtime to the last result. "Generator excluded" reads pregenerated events;
// "included" generates them inside the source, as Flink's numbers do. Peak
// memory is the most JavaScript heap in use seen while the engine ran
// (garbage not yet collected and the pregenerated events included). The default event-time rate is Flink
// V2's 100 000 events/s: 1 M events span 10 s of event time, so windows fire
// during the run (at Flink V1's 10 M/s they would all fire at the end).

import { parseArgs } from "node:util";
import {
  KvStorage,
  type Sink,
  type Source,
  StreamEnvironment,
  SystemClock,
  WatermarkStrategy,
} from "../src/mod.ts";
import type { LocalRuntime } from "../src/actors/mod.ts";
import { type NexmarkConfig, nexmarkConfig } from "./nexmark/config.ts";
import type { Event } from "./nexmark/model.ts";
import { NexmarkSource } from "./nexmark/source.ts";
import {
  pregenerate,
  type PregeneratedEvents,
  PregeneratedSource,
} from "./nexmark/pregenerated.ts";
import { type NexmarkQuery, OUT_OF_ORDERNESS_MS } from "./nexmark/query.ts";
import { QUERIES, WINDOWED } from "./nexmark/queries/mod.ts";

/** What the command line asked for. */
export interface Settings {
  readonly events: number;
  readonly queries: readonly NexmarkQuery<unknown>[];
  readonly parallelism: number;
  readonly rate: number;
  readonly runs: number;
  readonly checkpoints: boolean;
  readonly json: boolean;
}

const CHECKPOINT_INTERVAL_MS = 1_000;
// The checkpointed runs last at least this long, so that several
// checkpoints are taken whatever the query's speed.
const CHECKPOINTED_RUN_MS = 5_000;
const CHECKPOINTED_RUNS = 2;

/** Reads the command line; errors name the flag and its value. */
export function settings(args: string[]): Settings {
  const { values } = parseArgs({
    args,
    options: {
      events: { type: "string", default: "1000000" },
      query: { type: "string", multiple: true },
      parallelism: { type: "string", default: "1" },
      rate: { type: "string", default: "100000" },
      runs: { type: "string", default: "3" },
      "no-checkpoints": { type: "boolean", default: false },
      json: { type: "boolean", default: false },
    },
    strict: true,
  });
  const positive = (name: string, text: string, max: number): number => {
    const n = Number(text);
    if (!/^[1-9][0-9]*$/.test(text) || n > max) {
      throw new RangeError(
        `Cannot run the Nexmark benchmark as '--${name}' must be an integer from 1 to ${max}: current value is ${
          JSON.stringify(text)
        }`,
      );
    }
    return n;
  };
  const names = (values.query ?? []).flatMap((q) => q.split(","));
  const queries = names.length === 0 ? QUERIES : names.map((name) => {
    const found = QUERIES.find((q) => q.name === name);
    if (found === undefined) {
      throw new RangeError(
        `Cannot run the Nexmark benchmark as '--query' must name a query: current value is ${
          JSON.stringify(name)
        }; the queries are ${QUERIES.map((q) => q.name).join(", ")}`,
      );
    }
    return found;
  });
  const events = positive("events", values.events!, Number.MAX_SAFE_INTEGER);
  return {
    events,
    queries,
    // One generator split per subtask, so at most one per event.
    parallelism: positive("parallelism", values.parallelism!, events),
    // The generator's limit: a gap of 1 ns between events.
    rate: positive("rate", values.rate!, 1_000_000_000),
    runs: positive("runs", values.runs!, 1_000),
    checkpoints: !values["no-checkpoints"],
    json: values.json!,
  };
}

// ---------------------------------------------------------------------------
// Progress on stderr: a bar on a terminal, a line per step otherwise.

class Progress {
  readonly #total: number;
  #done = 0;
  readonly #terminal = Deno.stderr.isTerminal();
  readonly #encoder = new TextEncoder();

  constructor(total: number) {
    this.#total = total;
  }

  step(label: string): void {
    const share = this.#done / this.#total;
    const width = 30;
    const filled = Math.round(share * width);
    const bar = `[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${
      String(Math.round(share * 100)).padStart(3)
    }% ${label}`;
    this.#write(this.#terminal ? `\r\x1b[2K${bar}` : `${bar}\n`);
    this.#done++;
  }

  end(): void {
    this.#write(
      this.#terminal ? "\r\x1b[2K" : `[${"#".repeat(30)}] 100% done\n`,
    );
  }

  #write(text: string): void {
    Deno.stderr.writeSync(this.#encoder.encode(text));
  }
}

// ---------------------------------------------------------------------------
// Runs.

/** Counts results and samples the JavaScript heap in use. */
class CountingSink implements Sink<unknown> {
  readonly name = "count";
  results = 0;
  peakHeap = 0;
  #calls = 0;

  createWriter() {
    return {
      write: (values: readonly unknown[]) => {
        this.results += values.length;
        if ((++this.#calls & 63) === 0) this.sample();
      },
    };
  }

  sample(): void {
    this.peakHeap = Math.max(this.peakHeap, Deno.memoryUsage().heapUsed);
  }
}

/** One run of a query's job. */
interface EngineRun {
  readonly eventsPerSecond: number;
  readonly results: number;
  readonly peakHeapMb: number;
  readonly runtime: LocalRuntime;
}

let jobs = 0;

async function runEngine(
  query: NexmarkQuery<unknown>,
  source: Source<Event>,
  events: number,
  parallelism: number,
  checkpoints: Deno.Kv | null,
): Promise<EngineRun> {
  const jobName = `nexmark-${query.name}-${++jobs}`;
  const env = new StreamEnvironment({
    jobName,
    parallelism,
    clock: new SystemClock(),
    checkpointIntervalMs: checkpoints === null ? 0 : CHECKPOINT_INTERVAL_MS,
    checkpointStorage: checkpoints === null
      ? null
      : new KvStorage(checkpoints, ["weir", jobName, "checkpoints"]),
  });
  const sink = new CountingSink();
  query.build(
    env.fromSource(
      source,
      WatermarkStrategy.forBoundedOutOfOrderness<Event>(OUT_OF_ORDERNESS_MS),
      "nexmark",
    ),
  ).sinkTo(sink);
  sink.sample();
  const start = performance.now();
  const runtime = await env.execute({ restore: "none" });
  const ms = performance.now() - start;
  sink.sample();
  return {
    eventsPerSecond: events / (ms / 1_000),
    results: sink.results,
    peakHeapMb: sink.peakHeap / 1e6,
    runtime,
  };
}

function best<T>(runs: readonly T[], rate: (run: T) => number): T {
  return runs.reduce((a, b) => rate(b) > rate(a) ? b : a);
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)];
}

/** Everything measured for one query. */
interface QueryReport {
  readonly query: string;
  readonly description: string;
  readonly results: number;
  readonly kernelEventsPerSecond: number;
  readonly engineEventsPerSecond: number;
  readonly engineWithGeneratorEventsPerSecond: number;
  readonly engineToKernel: number;
  readonly peakHeapMb: number;
  readonly checkpoints: CheckpointReport | null;
}

/** The checkpointed arm against the plain one, same events, alternated. */
interface CheckpointReport {
  readonly events: number;
  readonly withoutEventsPerSecond: number;
  readonly withEventsPerSecond: number;
  readonly ratio: number;
  readonly count: number;
  readonly p50Ms: number | null;
  readonly p99Ms: number | null;
}

async function measure(
  query: NexmarkQuery<unknown>,
  config: NexmarkConfig,
  events: PregeneratedEvents,
  options: Settings,
  kv: Deno.Kv | null,
  progress: Progress,
): Promise<QueryReport> {
  const { parallelism, runs } = options;
  const clock = new SystemClock();
  const kernelRates: number[] = [];
  // One more run than measured: the first compiles the loop.
  for (let i = 0; i <= runs; i++) {
    progress.step(`${query.name} kernel, run ${i + 1}/${runs + 1}`);
    let results = 0;
    const start = performance.now();
    query.kernel(events.merged, clock, () => results++);
    const ms = performance.now() - start;
    if (results < 0) throw new Error("unreachable: keeps the count alive");
    if (i > 0) kernelRates.push(events.count / (ms / 1_000));
  }
  // One more run than measured, as for the kernel: the first compiles.
  const engineRuns: EngineRun[] = [];
  for (let i = 0; i <= runs; i++) {
    progress.step(`${query.name} engine, run ${i + 1}/${runs + 1}`);
    const run = await runEngine(
      query,
      new PregeneratedSource(events),
      events.count,
      parallelism,
      null,
    );
    if (i > 0) engineRuns.push(run);
  }
  progress.step(`${query.name} engine with the generator`);
  const included = await runEngine(
    query,
    new NexmarkSource(config, { partitions: parallelism }),
    events.count,
    parallelism,
    null,
  );
  const engine = best(engineRuns, (r) => r.eventsPerSecond);
  const kernel = Math.max(...kernelRates);
  let checkpoints: CheckpointReport | null = null;
  if (kv !== null) {
    // Long enough for several checkpoints at the speed just measured.
    const count = Math.max(
      events.count,
      Math.round(included.eventsPerSecond * CHECKPOINTED_RUN_MS / 1_000),
    );
    const longer = { ...config, numEvents: count };
    const source = () => new NexmarkSource(longer, { partitions: parallelism });
    // Alternated, best of each: drift in the machine's load hits both arms.
    const withoutRuns: EngineRun[] = [];
    const withRuns: EngineRun[] = [];
    for (let i = 0; i < CHECKPOINTED_RUNS; i++) {
      progress.step(`${query.name} ${count} events without checkpoints`);
      withoutRuns.push(
        await runEngine(query, source(), count, parallelism, null),
      );
      progress.step(`${query.name} ${count} events, checkpoint every second`);
      withRuns.push(await runEngine(query, source(), count, parallelism, kv));
    }
    const without = best(withoutRuns, (r) => r.eventsPerSecond);
    const withCheckpoints = best(withRuns, (r) => r.eventsPerSecond);
    const latest = withCheckpoints.runtime.latestCheckpoint?.id ?? 0;
    const durations: number[] = [];
    for (let id = 1; id <= latest; id++) {
      const ms = withCheckpoints.runtime.checkpointDurationMs(id);
      if (ms !== undefined) durations.push(ms);
    }
    durations.sort((a, b) => a - b);
    checkpoints = {
      events: count,
      withoutEventsPerSecond: without.eventsPerSecond,
      withEventsPerSecond: withCheckpoints.eventsPerSecond,
      ratio: withCheckpoints.eventsPerSecond / without.eventsPerSecond,
      count: durations.length,
      p50Ms: durations.length > 0 ? percentile(durations, 0.5) : null,
      p99Ms: durations.length > 0 ? percentile(durations, 0.99) : null,
    };
  }
  return {
    query: query.name,
    description: query.description,
    results: engine.results,
    kernelEventsPerSecond: kernel,
    engineEventsPerSecond: engine.eventsPerSecond,
    engineWithGeneratorEventsPerSecond: included.eventsPerSecond,
    engineToKernel: engine.eventsPerSecond / kernel,
    peakHeapMb: Math.max(...engineRuns.map((r) => r.peakHeapMb)),
    checkpoints,
  };
}

// ---------------------------------------------------------------------------
// Output.

const rate = (n: number): string =>
  n >= 1e6 ? `${(n / 1e6).toFixed(2)} M/s` : `${(n / 1e3).toFixed(0)} K/s`;
const percent = (x: number): string => `${(x * 100).toFixed(0)}%`;

function printQuery(report: QueryReport): void {
  console.log(`\n${report.query}: ${report.description}`);
  const rows: Record<string, Record<string, string>> = {
    "kernel (hand-written loop)": {
      "events/s": rate(report.kernelEventsPerSecond),
    },
    "engine, generator excluded": {
      "events/s": rate(report.engineEventsPerSecond),
      "of kernel": percent(report.engineToKernel),
      "results": String(report.results),
      "peak heap MB": report.peakHeapMb.toFixed(0),
    },
    "engine, generator included": {
      "events/s": rate(report.engineWithGeneratorEventsPerSecond),
    },
  };
  const cp = report.checkpoints;
  if (cp !== null) {
    rows[`engine + generator, ${cp.events} events, no checkpoints`] = {
      "events/s": rate(cp.withoutEventsPerSecond),
    };
    rows[`same, checkpoint every second (${cp.count})`] = {
      "events/s": rate(cp.withEventsPerSecond),
      "of kernel": `${percent(cp.ratio)} of no checkpoints`,
      "results": `p50 ${cp.p50Ms?.toFixed(1) ?? "-"} ms`,
      "peak heap MB": `p99 ${cp.p99Ms?.toFixed(1) ?? "-"} ms`,
    };
  }
  console.table(rows);
}

/** The targets, each with whether this run met it. */
function targets(reports: readonly QueryReport[]): string[] {
  const lines: string[] = [];
  const check = (ok: boolean, text: string) =>
    lines.push(`${ok ? "met   " : "MISSED"}  ${text}`);
  for (const report of reports) {
    const name = report.query;
    if (name === "q5" || name === "q7") {
      check(
        report.engineEventsPerSecond >= 1e6,
        `${name} >= 1 M events/s: ${rate(report.engineEventsPerSecond)}`,
      );
    }
    if (name === "q0" || name === "q1" || name === "q2") {
      check(
        report.engineEventsPerSecond >= 5e6,
        `${name} >= 5 M events/s, generator excluded: ${
          rate(report.engineEventsPerSecond)
        }`,
      );
    }
    if (WINDOWED.has(name)) {
      check(
        report.engineToKernel >= 1 / 3,
        `${name} engine >= 1/3 of kernel: ${percent(report.engineToKernel)}`,
      );
    }
    if (report.checkpoints !== null) {
      check(
        report.checkpoints.ratio >= 0.8,
        `${name} with checkpoints every second >= 80% of without: ${
          percent(report.checkpoints.ratio)
        }`,
      );
    }
  }
  return lines;
}

async function main(): Promise<void> {
  let options: Settings;
  try {
    options = settings(Deno.args);
  } catch (error) {
    // Bad flags: the message says which and why; no stack trace.
    console.error((error as Error).message);
    Deno.exit(2);
  }
  const config = nexmarkConfig({
    numEvents: options.events,
    firstEventRate: options.rate,
    numEventGenerators: options.parallelism,
  });
  const perQuery = 2 * options.runs + 3 +
    (options.checkpoints ? 2 * CHECKPOINTED_RUNS : 0);
  const progress = new Progress(1 + perQuery * options.queries.length);
  progress.step(`generating ${options.events} events`);
  const events = pregenerate(config, options.parallelism);
  let kvPath: string | null = null;
  let kv: Deno.Kv | null = null;
  if (options.checkpoints) {
    kvPath = await Deno.makeTempFile({ suffix: ".sqlite" });
    kv = await Deno.openKv(kvPath);
  }
  const reports: QueryReport[] = [];
  try {
    for (const query of options.queries) {
      const report = await measure(
        query,
        config,
        events,
        options,
        kv,
        progress,
      );
      reports.push(report);
      if (!options.json) printQuery(report);
    }
  } finally {
    progress.end();
    kv?.close();
    if (kvPath !== null) {
      for (const suffix of ["", "-wal", "-shm"]) {
        await Deno.remove(kvPath + suffix).catch(() => {});
      }
    }
  }
  const setup = {
    events: options.events,
    rate: options.rate,
    parallelism: options.parallelism,
    runs: options.runs,
    deno: Deno.version.deno,
    v8: Deno.version.v8,
    cores: navigator.hardwareConcurrency,
  };
  if (options.json) {
    console.log(JSON.stringify({ setup, queries: reports }, null, 2));
    return;
  }
  console.log(
    `\nSummary: ${options.events} events at ${options.rate} events/s of event time, parallelism ${options.parallelism}, best of ${options.runs} runs; Deno ${setup.deno}, ${setup.cores} cores`,
  );
  console.table(Object.fromEntries(reports.map((r) => [r.query, {
    "kernel": rate(r.kernelEventsPerSecond),
    "engine": rate(r.engineEventsPerSecond),
    "engine/kernel": percent(r.engineToKernel),
    "with generator": rate(r.engineWithGeneratorEventsPerSecond),
    "peak heap MB": r.peakHeapMb.toFixed(0),
    "checkpoints 1/s": r.checkpoints === null
      ? "-"
      : percent(r.checkpoints.ratio),
    "cp p50/p99 ms": r.checkpoints?.p50Ms == null
      ? "-"
      : `${r.checkpoints.p50Ms.toFixed(1)}/${r.checkpoints.p99Ms!.toFixed(1)}`,
  }])));
  console.log("\nTargets:");
  for (const line of targets(reports)) console.log(`  ${line}`);
}

if (import.meta.main) await main();
