// The KV runtime against the local runtime, in one run: the same job
// (counts per key per 10 s of a seeded KV log, appended exactly once to a
// KV output; bench/kv_runtime/cluster_counts.ts) on a local Deno KV file,
//
//   - local:          the local runtime, in this process;
//   - kv, in-process: one KV-runtime worker, in this process;
//   - kv, 1 process:  `main.ts --runtime kv --worker w1`, a process of its own;
//   - kv, 3 processes: three such workers sharing the file.
//
//   deno task bench:kv [--events N] [--runs R] [--kv-latency-ms L]
//                      [--prefetch P] [--json]
//
// `--kv-latency-ms L` adds L ms to every KV call the job makes, in every
// arm (the process arms preload bench/kv_runtime/latency_preload.ts), as a
// round trip to Deno Deploy's KV would: seeding and checking are not
// delayed. `--prefetch P` sets the source's first read size per partition
// (KvLogSource's `prefetch`, 1024 by default; reads grow from it up to 16
// times it) in every arm, through the environment (WEIR_BENCH_PREFETCH)
// that the job file reads.
//
// Throughput is events/s of wall time from start to the last worker's end
// (process start-up included for the process arms), best of R runs per arm,
// arms interleaved run by run. Every run's output is checked against the
// brute-force counts, so a fast wrong run cannot count. Each run also
// counts its KV calls by kind, and its commits that failed a check
// (another worker's lease, a conflicting write): printed to stderr, and
// with `--json` for each arm's best run.

import { parseArgs } from "node:util";
import {
  createJobContext,
  KvStorage,
  StreamEnvironment,
  SystemClock,
} from "../src/mod.ts";
import { readAppendLog } from "../src/connectors/mod.ts";
import clusterCounts, {
  expectedCounts,
  OUTPUT,
  PREFETCH_ENV,
  seedClusterEvents,
  startClusterWorker,
} from "./kv_runtime/cluster_counts.ts";
import {
  type CallCounts,
  countCalls,
  COUNTS_LINE,
  withLatency,
} from "./kv_runtime/latency_kv.ts";

const JOB = "cluster_counts";

type Arm = "local" | "kv, in-process" | "kv, 1 process" | "kv, 3 processes";
const ARMS: Arm[] = [
  "local",
  "kv, in-process",
  "kv, 1 process",
  "kv, 3 processes",
];

function environment(kv: Deno.Kv): StreamEnvironment {
  return new StreamEnvironment({
    jobName: JOB,
    parallelism: 2,
    clock: new SystemClock(),
    checkpointIntervalMs: 1_000,
    watermarkRecovery: "persist",
    checkpointStorage: new KvStorage(kv, ["weir", JOB, "checkpoints"]),
  });
}

async function inProcess(
  store: string,
  kvRuntime: boolean,
  latencyMs: number,
  counts: CallCounts,
): Promise<void> {
  const raw = await Deno.openKv(store);
  const kv = countCalls(withLatency(raw, latencyMs), counts);
  try {
    const env = environment(kv);
    const { context } = createJobContext(env, kv);
    clusterCounts(context);
    if (kvRuntime) await env.createKvRuntime({ kv, workerId: "w1" }).run();
    else await env.createRuntime().run();
  } finally {
    raw.close();
  }
}

/** Adds a worker's counts, from its stderr, to `counts`; passes the rest on. */
async function readCounts(
  stderr: ReadableStream<Uint8Array>,
  counts: CallCounts,
): Promise<void> {
  const text = await new Response(stderr).text();
  for (const line of text.split("\n")) {
    if (!line.startsWith(COUNTS_LINE)) {
      if (line !== "") console.error(line);
      continue;
    }
    const worker: CallCounts = JSON.parse(line.slice(COUNTS_LINE.length));
    for (const [name, n] of Object.entries(worker.calls)) {
      counts.calls[name] = (counts.calls[name] ?? 0) + n;
    }
    counts.conflicts += worker.conflicts;
    counts.errors += worker.errors;
    for (const [message, n] of Object.entries(worker.messages)) {
      counts.messages[message] = (counts.messages[message] ?? 0) + n;
    }
  }
}

async function processes(
  store: string,
  count: number,
  kvLatencyMs: number,
  counts: CallCounts,
): Promise<void> {
  const children = Array.from(
    { length: count },
    (_, i) =>
      startClusterWorker(store, `w${i + 1}`, { kvLatencyMs, stderr: "piped" }),
  );
  const [statuses] = await Promise.all([
    Promise.all(children.map((c) => c.status)),
    ...children.map((c) => readCounts(c.stderr, counts)),
  ]);
  if (!statuses.every((s) => s.success)) {
    throw new Error(`a worker failed: ${JSON.stringify(statuses)}`);
  }
}

async function runArm(
  arm: Arm,
  events: number,
  latencyMs: number,
  dir: string,
): Promise<{ rate: number; counts: CallCounts }> {
  const counts: CallCounts = {
    calls: {},
    conflicts: 0,
    errors: 0,
    messages: {},
  };
  const store = `${dir}/${arm.replaceAll(/[^a-z0-9]/g, "_")}.sqlite`;
  await Deno.remove(store).catch(() => {});
  {
    const kv = await Deno.openKv(store);
    await seedClusterEvents(kv, events);
    kv.close();
  }
  const start = performance.now();
  if (arm === "local") await inProcess(store, false, latencyMs, counts);
  else if (arm === "kv, in-process") {
    await inProcess(store, true, latencyMs, counts);
  } else {
    const n = arm === "kv, 1 process" ? 1 : 3;
    await processes(store, n, latencyMs, counts);
  }
  const seconds = (performance.now() - start) / 1_000;
  const kv = await Deno.openKv(store);
  try {
    const rows = (await readAppendLog<string>(kv, OUTPUT)).map((r) => r.value)
      .sort();
    const expected = expectedCounts(events);
    if (JSON.stringify(rows) !== JSON.stringify(expected)) {
      throw new Error(
        `${arm}: wrong output (${rows.length} rows, ${expected.length} expected)`,
      );
    }
  } finally {
    kv.close();
  }
  return { rate: events / seconds, counts };
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      events: { type: "string", default: "300000" },
      runs: { type: "string", default: "3" },
      "kv-latency-ms": { type: "string", default: "0" },
      prefetch: { type: "string" },
      json: { type: "boolean", default: false },
    },
  });
  const events = Number(values.events);
  const runs = Number(values.runs);
  const latencyMs = Number(values["kv-latency-ms"]);
  for (
    const [flag, value, raw, min] of [
      ["--events", events, values.events, 1],
      ["--runs", runs, values.runs, 1],
      ["--kv-latency-ms", latencyMs, values["kv-latency-ms"], 0],
      ...(values.prefetch === undefined
        ? []
        : [["--prefetch", Number(values.prefetch), values.prefetch, 1]]),
    ] as const
  ) {
    if (!Number.isSafeInteger(value) || value < min) {
      console.error(
        `error: '${flag}' must be a ${
          min === 0 ? "non-negative" : "positive"
        } integer: current value is ${raw}`,
      );
      Deno.exit(1);
    }
  }
  // Read by the job file, here and in the worker processes.
  if (values.prefetch !== undefined) {
    Deno.env.set(PREFETCH_ENV, values.prefetch);
  }
  const dir = await Deno.makeTempDir({ prefix: "weir-bench-kv-" });
  const best = new Map<Arm, number>();
  // Of each arm's best run.
  const bestCounts = new Map<Arm, CallCounts>();
  try {
    for (let run = 0; run < runs; run++) {
      for (const arm of ARMS) {
        const { rate, counts } = await runArm(arm, events, latencyMs, dir);
        if (rate > (best.get(arm) ?? 0)) {
          best.set(arm, rate);
          bestCounts.set(arm, counts);
        }
        const calls = Object.values(counts.calls).reduce((a, b) => a + b, 0);
        console.error(
          `run ${run + 1}/${runs} ${arm}: ${
            Math.round(rate)
          } events/s, ${calls} KV calls, ${
            counts.calls.commit ?? 0
          } commits, ${counts.conflicts} failed a check, ${counts.errors} threw`,
        );
      }
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
  const local = best.get("local")!;
  if (values.json) {
    console.log(JSON.stringify({
      events,
      runs,
      kvLatencyMs: latencyMs,
      prefetch: values.prefetch === undefined ? null : Number(values.prefetch),
      arms: ARMS.map((arm) => ({
        arm,
        eventsPerSecond: Math.round(best.get(arm)!),
        ratioToLocal: best.get(arm)! / local,
        kvCalls: bestCounts.get(arm)!.calls,
        failedChecks: bestCounts.get(arm)!.conflicts,
        failedCalls: bestCounts.get(arm)!.errors,
        failures: bestCounts.get(arm)!.messages,
      })),
    }));
  } else {
    console.log(
      `\n${events} events, ${latencyMs} ms added to every KV call, ${
        values.prefetch ?? "default"
      } prefetch, best of ${runs} (output checked every run)\n`,
    );
    console.log("| arm | events/s | / local |");
    console.log("| --- | --- | --- |");
    for (const arm of ARMS) {
      const rate = best.get(arm)!;
      console.log(
        `| ${arm} | ${Math.round(rate).toLocaleString("en")} | ${
          (100 * rate / local).toFixed(0)
        } % |`,
      );
    }
  }
}
