// Nexmark on weir: every query as a weir job against the same query as a
// hand-written loop (its kernel), on the same pregenerated events, in one
// run; then the job again with the generator in the loop, and with a
// checkpoint every second to a local Deno KV file. Every run checks that the
// engine's results equal the kernel's (q12, on processing time, excepted) and
// fails naming the query and the first difference.
//
//   deno task bench [--events N] [--query qN]... [--parallelism P]
//                   [--rate EVENTS_PER_S] [--runs R] [--watermark-interval-ms MS]
//                   [--no-checkpoints] [--json]
//
// With more than one query, each runs in a Deno process of its own (a fresh
// heap, the engine compiled for that query alone, as Flink runs each Nexmark
// query as its own job); this process collects their reports.
// A progress bar goes to stderr; a table per query, then a summary and the
// issue's targets, go to stdout (or one JSON document with --json).
// Throughput is events/s of wall time over the whole input, from building the
// runtime to the last result. "Generator excluded" reads pregenerated events;
// "included" generates them inside the source, as Flink's numbers do. Peak
// memory is the most JavaScript heap in use seen while the engine ran
// (garbage not yet collected and the pregenerated events included). The
// default event-time rate is 1000 events/s: 1 M events span 1000 s of event
// time, so each windowed query fires at least 100 windows (at Flink V2's
// 100 000/s, q7 would fire one and its ratio would measure forwarding).

import { type Source, SystemClock } from "../src/mod.ts";
import { type NexmarkConfig, nexmarkConfig } from "./nexmark/config.ts";
import { NexmarkSource } from "./nexmark/source.ts";
import {
  pregenerate,
  type PregeneratedEvents,
  PregeneratedSource,
} from "./nexmark/pregenerated.ts";
import type { NexmarkQuery } from "./nexmark/query.ts";
import { childArgs, type Settings, settings } from "./nexmark/settings.ts";
import { checkResults } from "./nexmark/check.ts";
import { missingChildPermissions, runChild } from "./nexmark/children.ts";
import {
  best,
  CHECKPOINTED_RUNS,
  type EngineRun,
  measureCheckpoints,
  runEngine,
} from "./nexmark/runs.ts";
import {
  MIN_CHECKPOINTS,
  printQuery,
  printSummary,
  Progress,
  type QueryReport,
  targets,
} from "./nexmark/output.ts";

type Query = NexmarkQuery<unknown, unknown>;

// The checkpointed runs last this long at the speed of the generator-included
// arm, so that at least MIN_CHECKPOINTS are taken even when checkpoints slow
// the job down by a third.
const CHECKPOINTED_RUN_MS = (MIN_CHECKPOINTS + 3) * 1_000;

/** Fails the run when a run's count of results differs from the checked run's. */
function sameCount(query: Query, arm: string, got: number, want: number) {
  if (!query.processingTime && got !== want) {
    throw new Error(
      `Benchmark check failed as ${query.name}'s ${arm} emitted ${got} results where its checked run emitted ${want}`,
    );
  }
}

async function measure(
  query: Query,
  config: NexmarkConfig,
  nexmarkEvents: () => PregeneratedEvents,
  options: Settings,
  kv: Deno.Kv | null,
  progress: Progress,
): Promise<QueryReport> {
  const { parallelism, runs } = options;
  const shape = {
    parallelism,
    watermarkIntervalMs: options.watermarkIntervalMs,
  };
  const events: PregeneratedEvents<unknown> = query.input
    ? query.input.pregenerate(options.events, parallelism)
    : nexmarkEvents();
  const generating = (count: number): Source<unknown> =>
    query.input
      ? query.input.source(count, parallelism)
      : new NexmarkSource({ ...config, numEvents: count }, {
        partitions: parallelism,
      });
  const clock = new SystemClock();
  const kernelRates: number[] = [];
  const kernelCounts: number[] = [];
  // One more run than measured: the first compiles the loop.
  for (let i = 0; i <= runs; i++) {
    progress.step(`${query.name} kernel, run ${i + 1}/${runs + 1}`);
    let results = 0;
    const start = performance.now();
    query.kernel(events.merged, clock, () => results++);
    const ms = performance.now() - start;
    kernelCounts.push(results);
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
      shape,
      null,
    );
    if (i > 0) engineRuns.push(run);
  }
  // The check runs after the measured ones, so that the results it keeps
  // (and its garbage) do not weigh on their heap.
  progress.step(`${query.name} engine = kernel check`);
  const kernelResults: unknown[] = [];
  query.kernel(events.merged, clock, (r) => kernelResults.push(r));
  const checked = await runEngine(
    query,
    new PregeneratedSource(events),
    events.count,
    shape,
    null,
    true,
  );
  if (!query.processingTime) {
    checkResults(query, checked.kept!, kernelResults);
  }
  const kernelCount = kernelResults.length;
  const engineCount = checked.results;
  for (const n of kernelCounts) sameCount(query, "kernel", n, kernelCount);
  for (const run of engineRuns) {
    sameCount(query, "engine", run.results, engineCount);
  }
  const windows = query.windows?.(kernelResults) ?? null;
  const includedRuns: EngineRun[] = [];
  for (let i = 0; i < runs; i++) {
    progress.step(`${query.name} engine with the generator, run ${i + 1}`);
    const run = await runEngine(
      query,
      generating(events.count),
      events.count,
      shape,
      null,
    );
    sameCount(query, "engine with the generator", run.results, engineCount);
    includedRuns.push(run);
  }
  const included = best(includedRuns, (r) => r.eventsPerSecond);
  const engine = best(engineRuns, (r) => r.eventsPerSecond);
  const kernel = Math.max(...kernelRates);
  const checkpoints = kv === null ? null : await measureCheckpoints(
    query,
    generating,
    // Long enough for MIN_CHECKPOINTS at the speed just measured.
    Math.max(
      events.count,
      Math.round(included.eventsPerSecond * CHECKPOINTED_RUN_MS / 1_000),
    ),
    shape,
    kv,
    progress,
  );
  return {
    query: query.name,
    description: query.description,
    results: engineCount,
    kernelResults: kernelCount,
    windows,
    checked: !query.processingTime,
    processingTime: query.processingTime ?? false,
    kernelEventsPerSecond: kernel,
    engineEventsPerSecond: engine.eventsPerSecond,
    engineWithGeneratorEventsPerSecond: included.eventsPerSecond,
    engineToKernel: engine.eventsPerSecond / kernel,
    peakHeapMb: Math.max(...engineRuns.map((r) => r.peakHeapMb)),
    checkpoints,
  };
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
  const reports: QueryReport[] = [];
  const perQuery = 3 * options.runs + 3 +
    (options.checkpoints ? 2 * CHECKPOINTED_RUNS : 0);
  const isolated = options.queries.length > 1;
  const missing = isolated ? missingChildPermissions() : null;
  if (missing !== null) {
    console.error(
      `Cannot run the Nexmark benchmark on several queries as each runs in a process of its own, which needs ${missing} without limits (deno task bench grants them): grant them, or ask for one query`,
    );
    Deno.exit(2);
  }
  try {
    await (isolated ? inChildren : inProcess)(options, perQuery, reports);
  } catch (error) {
    // A failed check: the message names the query and the difference.
    console.error((error as Error).message);
    Deno.exit(1);
  }
  report(options, isolated, reports);
}

// Each query in a process of its own, one after the other.
async function inChildren(
  options: Settings,
  perQuery: number,
  reports: QueryReport[],
): Promise<void> {
  // Each child generates its own events (peer-tumble excepted).
  const progress = new Progress(options.queries.reduce(
    (n, q) => n + perQuery + (q.input ? 0 : 1),
    0,
  ));
  try {
    for (const query of options.queries) {
      const { report, notes } = await runChild(
        query.name,
        new URL(import.meta.url),
        childArgs(options, query.name),
        progress,
      );
      if (notes !== "") progress.note(notes);
      reports.push(report);
      if (!options.json) printQuery(report);
    }
  } finally {
    progress.end();
  }
}

// One query (or a child's): measured in this process.
async function inProcess(
  options: Settings,
  perQuery: number,
  reports: QueryReport[],
): Promise<void> {
  const config = nexmarkConfig({
    numEvents: options.events,
    firstEventRate: options.rate,
    numEventGenerators: options.parallelism,
  });
  const progress = new Progress(1 + perQuery * options.queries.length);
  // Made on first use, once: peer-tumble alone needs no Nexmark events.
  let nexmark: PregeneratedEvents | null = null;
  const nexmarkEvents = () => {
    if (nexmark === null) {
      progress.step(`generating ${options.events} events`);
      nexmark = pregenerate(config, options.parallelism);
    }
    return nexmark;
  };
  let kvPath: string | null = null;
  let kv: Deno.Kv | null = null;
  if (options.checkpoints) {
    kvPath = await Deno.makeTempFile({ suffix: ".sqlite" });
    kv = await Deno.openKv(kvPath);
  }
  try {
    for (const query of options.queries) {
      const report = await measure(
        query,
        config,
        nexmarkEvents,
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
}

function report(
  options: Settings,
  isolated: boolean,
  reports: readonly QueryReport[],
): void {
  const setup = {
    events: options.events,
    rate: options.rate,
    eventTimeSeconds: options.events / options.rate,
    parallelism: options.parallelism,
    watermarkIntervalMs: options.watermarkIntervalMs,
    runs: options.runs,
    deno: Deno.version.deno,
    v8: Deno.version.v8,
    cores: navigator.hardwareConcurrency,
    processPerQuery: isolated,
  };
  if (options.json) {
    console.log(JSON.stringify({ setup, queries: reports }, null, 2));
    return;
  }
  printSummary(
    `Summary: ${options.events} events at ${options.rate} events/s of event time (${setup.eventTimeSeconds} s${
      reports.some((r) => r.query === "peer-tumble")
        ? "; peer-tumble: its own input, 100 records/s"
        : ""
    }), parallelism ${options.parallelism}, a watermark every ${options.watermarkIntervalMs} ms of processing time, best of ${options.runs} runs for every arm, engine results checked equal to the kernel's${
      isolated ? ", each query in a Deno process of its own" : ""
    }; Deno ${setup.deno}, ${setup.cores} cores`,
    reports,
  );
  console.log("\nTargets:");
  for (const line of targets(reports)) console.log(`  ${line}`);
}

if (import.meta.main) await main();
