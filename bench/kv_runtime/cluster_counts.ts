// The job of the multi-process KV-runtime tests: counts per key per 10 s of
// a seeded, bounded KV log, appended exactly once to a KV output (a
// duplicate would show as a second row).

import {
  type JobContext,
  type JobSettings,
  KvAppendSink,
  KvLog,
  KvLogSource,
  TumblingEventTimeWindows,
  WatermarkStrategy,
} from "../../src/mod.ts";
import { LATENCY_ENV } from "./latency_kv.ts";

/** An event of the seeded log. */
export interface ClusterEvent {
  /** The key counted. */
  key: string;
  /** Event time, epoch milliseconds. */
  ts: number;
}

/** The output the job appends to. */
export const OUTPUT = "cluster-counts";
const PARTITIONS = 4;
const EPOCH = Date.UTC(2026, 0, 1);

function eventLog(kv: Deno.Kv): KvLog<ClusterEvent> {
  return new KvLog<ClusterEvent>(kv, "cluster-events", {
    partitions: PARTITIONS,
  });
}

/** The events of the log, as seeded: up to 2 s out of order. */
export function clusterEvents(count: number): ClusterEvent[][] {
  const partitions: ClusterEvent[][] = Array.from(
    { length: PARTITIONS },
    () => [],
  );
  for (let i = 0; i < count; i++) {
    partitions[i % PARTITIONS].push({
      key: `k${i % 13}`,
      ts: EPOCH + i * 10 - ((i * 7_919) % 2_000),
    });
  }
  return partitions;
}

/** Appends `count` events to the log in `kv`. */
export async function seedClusterEvents(
  kv: Deno.Kv,
  count: number,
): Promise<void> {
  const log = eventLog(kv);
  const partitions = clusterEvents(count);
  for (let p = 0; p < PARTITIONS; p++) {
    const records = partitions[p].map((e) => ({ value: e, timestamp: e.ts }));
    for (let from = 0; from < records.length; from += 1_000) {
      await log.append(p, records.slice(from, from + 1_000));
    }
  }
}

/** `key@windowStart=count` for every window, by brute force. */
export function expectedCounts(count: number): string[] {
  const counts = new Map<string, number>();
  for (const partition of clusterEvents(count)) {
    for (const e of partition) {
      const key = `${e.key}@${e.ts - (e.ts % 10_000)}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  }
  return [...counts].map(([key, n]) => `${key}=${n}`).sort();
}

/** Two subtasks per operator; event time persisted with every step. */
export const settings: JobSettings = {
  parallelism: 2,
  watermarkRecovery: "persist",
};

/**
 * The environment variable that sets the source's first read size per
 * partition (KvLogSource's `prefetch`): the benchmark's `--prefetch`.
 */
export const PREFETCH_ENV = "WEIR_BENCH_PREFETCH";

function prefetch(): number | undefined {
  const value = Deno.env.get(PREFETCH_ENV);
  return value === undefined ? undefined : Number(value);
}

/** The job: a job file for `deno task dev`. */
export default function clusterCounts({ env, kv }: JobContext): void {
  env.fromSource(
    new KvLogSource(eventLog(kv), { bounded: true, prefetch: prefetch() }),
    WatermarkStrategy.forBoundedOutOfOrderness<ClusterEvent>(2_000)
      .withTimestampAssigner((e) => e.ts),
    "events",
  )
    .keyBy((e) => e.key)
    .window(TumblingEventTimeWindows.of(10_000))
    .aggregate<number, number, string>(
      {
        createAccumulator: () => 0,
        add: (_e, n) => n + 1,
        getResult: (n) => n,
        merge: (a, b) => a + b,
      },
      (key, ctx, [n], out) => out(`${key}@${ctx.window.start}=${n}`),
    )
    .sinkTo(new KvAppendSink<string>(kv, OUTPUT));
}

const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const JOB_FILE = new URL("./cluster_counts.ts", import.meta.url).pathname;
const PRELOAD = new URL("./latency_preload.ts", import.meta.url).pathname;

/**
 * Starts one worker process of this job on the KV runtime, as
 * `deno task dev <this file> --runtime kv --worker <id>` would.
 *
 * @param store The KV file the workers share.
 * @param worker The worker id.
 * @param options The lease time, where the worker's stderr goes, and the
 * milliseconds added to each of its KV calls (the benchmark's
 * `--kv-latency-ms`; see `latency_kv.ts`: given, even 0, the worker counts
 * its KV calls and prints them on exit).
 */
export function startClusterWorker(
  store: string,
  worker: string,
  options: {
    leaseMs?: number;
    stderr?: "inherit" | "piped";
    kvLatencyMs?: number;
  } = {},
): Deno.ChildProcess {
  const latency = options.kvLatencyMs;
  return new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      ...(latency === undefined ? [] : ["--preload", PRELOAD]),
      "--allow-read",
      "--allow-write",
      "--allow-env",
      "--allow-net",
      "--unstable-kv",
      "--unstable-cron",
      MAIN,
      JOB_FILE,
      "--runtime",
      "kv",
      "--worker",
      worker,
      "--store",
      store,
      ...(options.leaseMs === undefined
        ? []
        : ["--lease-ms", String(options.leaseMs)]),
    ],
    env: latency === undefined ? {} : { [LATENCY_ENV]: String(latency) },
    stdout: "null",
    stderr: options.stderr ?? "inherit",
  }).spawn();
}
