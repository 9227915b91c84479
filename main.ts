/**
 * weir's command line.
 *
 * - `deno task dev [job-file.ts] [--port 8000] [--host 127.0.0.1]
 *   [--store ./.weir/weir.sqlite] [--restore latest|none|<id>]` runs a job in
 *   the local runtime on a Deno KV file, restores its latest checkpoint
 *   (checkpoints every second), and serves the HTTP app (ingest, jobs,
 *   metrics, dashboard) at the printed address. Without a job file it runs
 *   the demo job (`examples/live_clicks.ts`). Ctrl-C takes a final checkpoint
 *   and exits. `WEIR_TOKEN` protects ingest and admin endpoints.
 * - `deno task dev durable [kv-file] [--restore ...]` runs the bounded
 *   durable example (`examples/durable_counts.ts`) to the end.
 * - `deno task dev demo` runs the simulated clicks demo and prints watermarks.
 *
 * @module
 */

import { parseArgs } from "node:util";
import {
  formatWatermark,
  runClicksPerPage,
} from "./examples/clicks_per_page.ts";
import {
  eventLog,
  runDurableCounts,
  seedEvents,
  TABLE_NAME,
  type WindowCount,
} from "./examples/durable_counts.ts";
import liveClicks from "./examples/live_clicks.ts";
import {
  CheckpointStore,
  createJobContext,
  type JobDefinition,
  KvStorage,
  readTable,
  StreamEnvironment,
  SystemClock,
} from "./src/mod.ts";
import { createApp, LocalJobHandle } from "./src/http/mod.ts";

type Restore = "latest" | "none" | number;

function parseRestore(value: string): Restore {
  if (value === "latest" || value === "none") return value;
  const id = Number(value);
  if (!Number.isSafeInteger(id) || id < 1) {
    throw new RangeError(
      `Cannot start as '--restore' must be latest, none or a checkpoint id: current value is ${value}`,
    );
  }
  return id;
}

async function openStore(path: string): Promise<Deno.Kv> {
  try {
    const dir = path.split("/").slice(0, -1).join("/");
    if (dir !== "") await Deno.mkdir(dir, { recursive: true });
    return await Deno.openKv(path);
  } catch (error) {
    throw new Error(
      `Cannot open the store '${path}': ${
        error instanceof Error ? error.message : String(error)
      }`,
    );
  }
}

async function loadJob(
  file: string | undefined,
): Promise<{ name: string; define: JobDefinition }> {
  if (file === undefined) return { name: "demo", define: liveClicks };
  const url = new URL(file, `file://${Deno.cwd()}/`).href;
  let module: { default?: unknown };
  try {
    module = await import(url);
  } catch (error) {
    throw new Error(
      `Cannot load the job file '${file}': ${
        error instanceof Error ? error.message.split("\n")[0] : String(error)
      }`,
    );
  }
  if (typeof module.default !== "function") {
    throw new TypeError(
      `Cannot load the job file '${file}' as its default export must be a function (context) => void: current value is ${typeof module
        .default}`,
    );
  }
  const name = file.split("/").pop()!.replace(/\.[jt]s$/, "");
  return { name, define: module.default as JobDefinition };
}

async function serve(
  file: string | undefined,
  options: { port: number; host: string; store: string; restore: Restore },
): Promise<void> {
  const { name, define } = await loadJob(file);
  const kv = await openStore(options.store);
  const clock = new SystemClock();
  const storage = new KvStorage(kv, ["weir", name, "checkpoints"]);
  const env = new StreamEnvironment({
    jobName: name,
    parallelism: 2,
    clock,
    checkpointIntervalMs: 1_000,
    watermarkRecovery: "persist",
    checkpointStorage: storage,
  });
  const { context, streams } = createJobContext(env, kv);
  await define(context);
  const checkpoint = await env.findCheckpoint(options.restore);
  const runtime = env.createRuntime(checkpoint ?? undefined);
  const handle = new LocalJobHandle({
    name,
    runtime,
    graph: env.getJobGraph(),
    store: new CheckpointStore(storage),
    clock,
  });
  handle.startSampling(500);
  const app = createApp({
    jobs: new Map([[name, handle]]),
    streams: new Map(streams.map((s) => [s.name, s])),
    token: Deno.env.get("WEIR_TOKEN") || undefined,
    clock,
  });
  let server: Deno.HttpServer;
  try {
    server = Deno.serve({
      hostname: options.host,
      port: options.port,
      onListen({ hostname, port }) {
        console.log(
          `weir: job '${name}'${
            checkpoint ? ` restored from checkpoint ${checkpoint.id}` : ""
          }, serving http://${hostname}:${port}`,
        );
      },
    }, app.fetch);
  } catch (error) {
    if (error instanceof Deno.errors.AddrInUse) {
      throw new Error(
        `Cannot serve on ${options.host}:${options.port} as the port is in use: pass --port`,
      );
    }
    throw error;
  }
  const running = runtime.run();
  const shutdown = async () => {
    runtime.stop();
    await running.catch(() => {});
    // A final checkpoint, so a restart resumes exactly here.
    if (runtime.triggerCheckpoint() !== null) runtime.runUntilIdle();
    await runtime.flushCheckpoints();
    handle.stop();
    await runtime.close();
    await server.shutdown();
    kv.close();
    Deno.exit(0);
  };
  Deno.addSignalListener("SIGINT", shutdown);
  Deno.addSignalListener("SIGTERM", shutdown);
  await running;
}

async function demo(): Promise<void> {
  console.log(
    "weir demo: clicks per page per 10 s, parallelism 2, 4 source partitions",
  );
  console.log(
    "partition 3 falls silent at 12 s; withIdleness(3 s) keeps event time moving\n",
  );
  const results = await runClicksPerPage({
    onTick(atMs, status) {
      if (atMs % 5_000 !== 0) return;
      const line = status.map((s) =>
        `${s.operator}/${s.subtask}=${formatWatermark(s.outputWatermark)}${
          s.idle ? " (idle)" : ""
        }`
      ).join("  ");
      console.log(`t=${String(atMs / 1_000).padStart(2)}s  ${line}`);
    },
    onResult(atMs, result) {
      console.log(
        `          window ${formatWatermark(result.windowStart)} ${
          result.page.padEnd(8)
        } ${result.clicks} clicks (emitted at t=${atMs / 1_000}s)`,
      );
    },
  });
  console.log(`\n${results.length} window results`);
}

async function durable(path: string, restore: Restore): Promise<void> {
  const kv = await openStore(path);
  try {
    if (await eventLog(kv).head(0) === 0) {
      console.log(`seeding 300000 events into ${path}`);
      await seedEvents(kv, 300_000);
    }
    await runDurableCounts(kv, restore);
    const rows = [...(await readTable<WindowCount>(kv, TABLE_NAME)).values()];
    console.log(
      `${rows.length} window counts, ${
        rows.reduce((n, r) => n + r.count, 0)
      } events`,
    );
  } finally {
    kv.close();
  }
}

if (import.meta.main) {
  try {
    const { positionals, values } = parseArgs({
      args: Deno.args,
      allowPositionals: true,
      options: {
        restore: { type: "string", default: "latest" },
        port: { type: "string", default: "8000" },
        host: { type: "string", default: "127.0.0.1" },
        store: { type: "string", default: "./.weir/weir.sqlite" },
      },
    });
    const restore = parseRestore(values.restore);
    if (positionals[0] === "durable") {
      await durable(positionals[1] ?? "./.weir/durable.sqlite", restore);
    } else if (positionals[0] === "demo") {
      await demo();
    } else {
      const port = Number(values.port);
      if (!Number.isSafeInteger(port) || port < 0 || port > 65_535) {
        throw new RangeError(
          `Cannot serve as '--port' must be a port number: current value is ${values.port}`,
        );
      }
      await serve(positionals[0], {
        port,
        host: values.host,
        store: values.store,
        restore,
      });
    }
  } catch (error) {
    console.error(
      `error: ${error instanceof Error ? error.message : String(error)}`,
    );
    Deno.exit(1);
  }
}
