/**
 * weir's command line.
 *
 * - `deno task dev [job-file.ts] [--port 8000] [--host 127.0.0.1]
 *   [--store ./.weir/weir.sqlite] [--restore latest|none|<id>]
 *   [--allow-non-restored-state]` runs a job in the local runtime on a Deno
 *   KV file, restores its latest checkpoint, and serves the HTTP app
 *   (ingest, jobs, metrics, dashboard) at the printed address. Without a
 *   job file it runs the demo job (`examples/live_clicks.ts`). The job
 *   file's `settings` export sets its parallelism, checkpoint interval,
 *   `watermarkRecovery` and `errorPolicy`; `--parallelism`,
 *   `--checkpoint-interval-ms`, `--watermark-recovery` and `--error-policy`
 *   override them; what it runs with is printed at start. A record whose
 *   processing throws is set aside in the job's dead-letter log
 *   (`GET /jobs/<job>/dead-letters`), or under `--error-policy fail` the
 *   job restarts from its latest checkpoint and quarantines the record if
 *   it fails again. Ctrl-C waits for a checkpoint in progress, takes a
 *   final one and exits. `WEIR_TOKEN` protects ingest and admin endpoints. State is
 *   matched operator by operator (by `uid()`, or by positional id); a
 *   checkpoint holding state of an operator the job no longer has is
 *   refused unless `--allow-non-restored-state` lets it be dropped.
 * - `... --runtime kv [--processes N] [--lease-ms 10000]` runs the job on
 *   the KV runtime instead: this process is a worker (and serves the app,
 *   with `POST /tick`), or with `--processes N` it starts N worker processes
 *   sharing the store (`--worker <id>` each) and serves the app from what
 *   they commit. It resumes from the actors' state in KV; `--restore none`
 *   or `<id>` starts over. On Deno Deploy (`DENO_DEPLOY` set) this is the
 *   default, on `Deno.openKv()`, with a `Deno.cron` tick every minute.
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
  eventsToSeed,
  runDurableCounts,
  seedEvents,
  TABLE_NAME,
  type WindowCount,
} from "./examples/durable_counts.ts";
import liveClicks, {
  settings as liveClicksSettings,
} from "./examples/live_clicks.ts";
import {
  CheckpointStore,
  createJobContext,
  type JobDefinition,
  type JobSettings,
  KvStorage,
  readTable,
  StreamEnvironment,
  SystemClock,
} from "./src/mod.ts";
import { jobKeyPrefix } from "./src/actors/job_keys.ts";
import {
  describeJobSettings,
  resolveJobSettings,
} from "./src/api/job_settings.ts";
import {
  parseSettingFlags,
  refuseSettingFlags,
  settingFlags,
} from "./src/cli/setting_flags.ts";
import { stopLocalJob } from "./src/cli/stop_local_job.ts";
import {
  allowedHostsFor,
  exposureWarning,
  probeStore,
  tokenFromEnv,
} from "./src/cli/serve_guards.ts";
import { createApp, LocalJobHandle } from "./src/http/mod.ts";
import { KvRuntime } from "./src/actors/kv/kv_runtime.ts";
import { KvRuntimeView } from "./src/actors/kv/kv_runtime_view.ts";

// On Deno Deploy: the KV runtime on the app's database, with Deno.cron as
// the backstop that wakes an instance every minute (registered at the top
// level, as Deploy requires, before anything is served).
const onDeploy = Deno.env.get("DENO_DEPLOY") !== undefined;
let deployTick: (() => Promise<boolean>) | null = null;
if (onDeploy) {
  Deno.cron("weir tick", "* * * * *", async () => {
    await deployTick?.();
  });
}

type Restore = "latest" | "none" | number;

// Restarts of one worker of `--processes N` that keeps dying.
const MAX_RESTARTS = 5;

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

/** Opens the store and checks it can be written, before anything else. */
async function openStore(path: string | undefined): Promise<Deno.Kv> {
  let kv: Deno.Kv;
  try {
    const dir = path?.split("/").slice(0, -1).join("/") ?? "";
    if (dir !== "") await Deno.mkdir(dir, { recursive: true });
    kv = await Deno.openKv(path);
  } catch (error) {
    throw new Error(
      `Cannot open the store '${path ?? "Deno Deploy's KV"}': ${
        error instanceof Error ? error.message : String(error)
      }`,
    );
  }
  try {
    await probeStore(kv, path ?? "Deno Deploy's KV");
  } catch (error) {
    kv.close();
    throw error;
  }
  return kv;
}

/**
 * The token from `WEIR_TOKEN` (refused when set but empty), and a loud
 * warning when the service would be open to other machines without one.
 */
function serviceToken(options: ServeOptions): string | undefined {
  const token = tokenFromEnv(Deno.env.get("WEIR_TOKEN"));
  const warning = exposureWarning(options.host, token);
  if (warning !== null) console.warn(warning);
  return token;
}

async function loadJob(
  file: string | undefined,
): Promise<{ name: string; define: JobDefinition; settings: unknown }> {
  if (file === undefined) {
    return { name: "demo", define: liveClicks, settings: liveClicksSettings };
  }
  const url = new URL(file, `file://${Deno.cwd()}/`).href;
  let module: { default?: unknown; settings?: unknown };
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
  return {
    name,
    define: module.default as JobDefinition,
    settings: module.settings,
  };
}

interface ServeOptions {
  port: number;
  host: string;
  store: string;
  restore: Restore;
  /** Settings given on the command line: they override the job file's. */
  settings: JobSettings;
  allowNonRestoredState: boolean;
}

interface KvOptions extends ServeOptions {
  processes: number;
  worker: string | undefined;
  leaseMs: number;
}

/**
 * A job file's job on a store: the environment (with the job's settings,
 * overridden by the flags) and its ingest streams.
 */
async function openJob(
  file: string | undefined,
  kv: Deno.Kv,
  flags: JobSettings,
) {
  const { name, define, settings: own } = await loadJob(file);
  const settings = resolveJobSettings(own, {
    flags,
    jobFile: file ?? "examples/live_clicks.ts",
  });
  const clock = new SystemClock();
  const prefix = jobKeyPrefix(name);
  const storage = new KvStorage(kv, [...prefix, "checkpoints"]);
  const env = new StreamEnvironment({
    jobName: name,
    parallelism: settings.parallelism,
    clock,
    checkpointIntervalMs: settings.checkpointIntervalMs,
    watermarkRecovery: settings.watermarkRecovery,
    errorPolicy: settings.errorPolicy,
    checkpointStorage: storage,
    // Next to the checkpoints; the KV runtime keeps them there too.
    deadLetterStorage: new KvStorage(kv, [...prefix, "dead-letters"]),
    strikeStorage: new KvStorage(kv, [...prefix, "strikes"]),
  });
  const { context, streams } = createJobContext(env, kv);
  await define(context);
  return {
    name,
    env,
    clock,
    streams,
    settings,
    store: new CheckpointStore(storage),
  };
}

type App = { fetch: (request: Request) => Response | Promise<Response> };

/**
 * Serves the app `makeApp` builds for the port actually bound (with
 * `--port 0` the system picks it; the host check needs it).
 */
function startServer(
  options: ServeOptions,
  makeApp: (port: number) => App,
  banner: string,
): Deno.HttpServer {
  try {
    let app: App | null = null;
    const server = Deno.serve({
      hostname: options.host,
      port: options.port,
      onListen({ hostname, port }) {
        // An IPv6 address is bracketed in a URL (`http://[::]:8000`).
        const host = hostname.includes(":") ? `[${hostname}]` : hostname;
        console.log(`${banner}, serving http://${host}:${port}`);
      },
    }, (request) => app!.fetch(request));
    // Set before any request is handled: those wait for this task.
    app = makeApp(server.addr.port);
    return server;
  } catch (error) {
    if (error instanceof Deno.errors.AddrInUse) {
      throw new Error(
        `Cannot serve on ${options.host}:${options.port} as the port is in use: pass --port`,
      );
    }
    throw error;
  }
}

/**
 * Runs `stop` on Ctrl-C (or SIGTERM), then exits with the code it returns
 * (0 without one; 1, with the error, if it throws).
 *
 * @returns While the service stops, the promise of its exit (it never
 * resolves); else `null`.
 */
function onShutdown(
  stop: () => Promise<number | void>,
): () => Promise<never> | null {
  let stopping: Promise<never> | null = null;
  const handler = () => {
    if (stopping !== null) return;
    stopping = stop().then(
      (code) => Deno.exit(code ?? 0),
      (error) => {
        console.error(
          `error: ${error instanceof Error ? error.message : String(error)}`,
        );
        Deno.exit(1);
      },
    );
  };
  Deno.addSignalListener("SIGINT", handler);
  Deno.addSignalListener("SIGTERM", handler);
  return () => stopping;
}

async function serve(
  file: string | undefined,
  options: ServeOptions,
): Promise<void> {
  const token = serviceToken(options);
  const kv = await openStore(options.store);
  const { name, env, clock, streams, store, settings } = await openJob(
    file,
    kv,
    options.settings,
  );
  console.log(`weir: job '${name}': ${describeJobSettings(settings)}`);
  const checkpoint = await env.findCheckpoint(options.restore);
  // A LocalJob: restarts from the latest checkpoint when a record fails
  // under errorPolicy "fail"; the handle follows the runtime it runs.
  const runtime = env.createJob(checkpoint ?? undefined, {
    allowNonRestoredState: options.allowNonRestoredState,
  });
  const handle = new LocalJobHandle({
    name,
    runtime,
    graph: env.getJobGraph(),
    store,
    clock,
  });
  handle.startSampling(500);
  const server = startServer(
    options,
    (port) =>
      createApp({
        jobs: new Map([[name, handle]]),
        streams: new Map(streams.map((s) => [s.name, s])),
        token,
        allowedHosts: allowedHostsFor(options.host, port, token),
        clock,
      }),
    `weir: job '${name}'${
      checkpoint ? ` restored from checkpoint ${checkpoint.id}` : ""
    }`,
  );
  const running = runtime.run();
  const stopping = onShutdown(async () => {
    // A final checkpoint, so a restart resumes exactly here; none past a
    // record that failed as the job stopped (exit code 1).
    const code = await stopLocalJob(runtime, running, { name });
    handle.stop();
    await runtime.close();
    await server.shutdown();
    kv.close();
    return code;
  });
  try {
    await running;
  } catch (error) {
    // Stopping: the shutdown says how the job ended, and exits.
    await stopping();
    throw error;
  }
  if (runtime.finished) {
    console.log(`weir: job '${name}' finished (Ctrl-C stops the service)`);
  }
}

/** The KV runtime's dashboard and `POST /tick`, over a view refreshed from KV. */
async function serveKvApp(
  options: ServeOptions,
  job: Awaited<ReturnType<typeof openJob>>,
  runtime: KvRuntime,
  banner: string,
  token: string | undefined,
  tick?: () => Promise<boolean>,
): Promise<{ server: Deno.HttpServer; stop: () => void }> {
  const view = new KvRuntimeView(runtime);
  await view.refresh();
  const handle = new LocalJobHandle({
    name: job.name,
    runtime: view,
    graph: job.env.getJobGraph(),
    store: job.store,
    clock: job.clock,
    // The view shows status; the dead letters are the runtime's (in KV).
    deadLetters: () => runtime.deadLetters,
  });
  handle.sample();
  const timer = setInterval(() => {
    view.refresh().then(() => handle.sample(), () => {});
  }, 500);
  const makeApp = (port: number) =>
    createApp({
      jobs: new Map([[job.name, handle]]),
      streams: new Map(job.streams.map((s) => [s.name, s])),
      token,
      allowedHosts: allowedHostsFor(options.host, port, token),
      clock: job.clock,
      tick,
    });
  return {
    server: startServer(options, makeApp, banner),
    stop: () => clearInterval(timer),
  };
}

/**
 * The KV runtime: one worker (this process, or a Deploy instance) that
 * also serves the app, or with `--processes N` a supervisor that starts N
 * workers sharing the store and serves the app from what they commit.
 */
async function serveKv(file: string | undefined, options: KvOptions) {
  // A worker of --processes N serves nothing: its supervisor checked.
  const token = options.worker === undefined
    ? serviceToken(options)
    : undefined;
  const kv = await openStore(onDeploy ? undefined : options.store);
  const job = await openJob(file, kv, options.settings);
  if (options.worker === undefined) {
    console.log(
      `weir: job '${job.name}': ${describeJobSettings(job.settings)}`,
    );
  }
  if (options.worker === undefined && options.processes > 1) {
    return await supervise(file, options, kv, job, token);
  }
  // Found before any reset: one that cannot be restored is refused while
  // the job's state is still there. A worker of --processes N that joins
  // (or is restarted into) a started job resumes from its actors: the
  // checkpoint it was started with may be gone by now.
  const joining = options.worker !== undefined &&
    await KvRuntime.started(kv, job.name);
  const checkpoint = joining
    ? null
    : await job.env.findCheckpoint(options.restore);
  if (options.worker === undefined && options.restore !== "latest") {
    // Start over (from nothing, or from the checkpoint asked for).
    await KvRuntime.reset(kv, job.name);
  }
  const runtime = job.env.createKvRuntime(
    {
      kv,
      workerId: options.worker,
      leaseMs: options.leaseMs,
      allowNonRestoredState: options.allowNonRestoredState,
    },
    checkpoint ?? undefined,
  );
  const running = runtime.run();
  if (options.worker !== undefined) {
    // A worker of `--processes N`: no server; the supervisor serves.
    // One ending, whether the job finishes or Ctrl-C stops it: the store
    // is closed once.
    const done = running.then(() => {
      console.log(
        `weir: worker ${options.worker}: job '${job.name}' ${
          runtime.finished ? "finished" : "stopped"
        }`,
      );
    }).finally(() => kv.close());
    onShutdown(async () => {
      runtime.stop();
      await done;
    });
    console.log(`weir: worker ${options.worker} of job '${job.name}' started`);
    await done;
    return;
  }
  deployTick = () => runtime.tick();
  const { server, stop } = await serveKvApp(
    options,
    job,
    runtime,
    `weir: job '${job.name}' on the KV runtime (worker ${runtime.workerId})`,
    token,
    () => runtime.tick(),
  );
  onShutdown(async () => {
    runtime.stop();
    await running.catch(() => {});
    stop();
    await server.shutdown();
    kv.close();
    console.log(
      `weir: job '${job.name}' stopped (its actors' state is in the store: the next start resumes from it)`,
    );
  });
  await running;
}

/** Starts `--processes` workers on the store and serves the app until they end. */
async function supervise(
  file: string | undefined,
  options: KvOptions,
  kv: Deno.Kv,
  job: Awaited<ReturnType<typeof openJob>>,
  token: string | undefined,
): Promise<void> {
  // Refused here, once, rather than by every worker after the reset.
  await job.env.findCheckpoint(options.restore);
  if (options.restore !== "latest") {
    // Start over (from nothing, or from the checkpoint asked for).
    await KvRuntime.reset(kv, job.name);
  }
  const main = new URL(import.meta.url).pathname;
  const spawn = (worker: string) =>
    new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--allow-read",
        "--allow-write",
        "--allow-env",
        "--allow-net",
        "--unstable-kv",
        "--unstable-cron",
        main,
        ...(file === undefined ? [] : [file]),
        "--runtime",
        "kv",
        "--worker",
        worker,
        "--store",
        options.store,
        "--restore",
        String(options.restore),
        "--lease-ms",
        String(options.leaseMs),
        ...settingFlags(options.settings),
        ...(options.allowNonRestoredState
          ? ["--allow-non-restored-state"]
          : []),
      ],
      stdout: "inherit",
      stderr: "inherit",
    }).spawn();
  const children: Deno.ChildProcess[] = [];
  let stopping = false;
  // A worker that dies (a crash, a kill) is started again, up to
  // MAX_RESTARTS times; its actors wait for it or go to the others when
  // their leases run out.
  const keep = async (i: number): Promise<Deno.CommandStatus> => {
    const worker = `w${i + 1}`;
    for (let restarts = 0;; restarts++) {
      children[i] = spawn(worker);
      const status = await children[i].status;
      if (status.success || stopping || restarts === MAX_RESTARTS) {
        return status;
      }
      console.error(
        `weir: worker ${worker} exited (${
          status.signal ?? `code ${status.code}`
        }); starting it again (${restarts + 1} of ${MAX_RESTARTS})`,
      );
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  };
  const running = Array.from({ length: options.processes }, (_, i) => keep(i));
  const observer = job.env.createKvRuntime({ kv, workerId: "supervisor" });
  const { server, stop } = await serveKvApp(
    options,
    job,
    observer,
    `weir: job '${job.name}' on the KV runtime, ${options.processes} worker processes sharing ${options.store}`,
    token,
  );
  // One ending, whether the workers end or Ctrl-C stops them: the server
  // and the store are closed once.
  const done = Promise.all(running).then(async (statuses) => {
    stop();
    await server.shutdown();
    kv.close();
    // A worker our Ctrl-C stopped before it could take the signal (still
    // starting) ended as asked: its state is in the store.
    const failed = statuses.filter((s) =>
      !s.success && !(stopping && s.signal === "SIGTERM")
    ).length;
    console.log(
      `weir: job '${job.name}': ${
        options.processes - failed
      } of ${options.processes} workers ended normally`,
    );
    return failed > 0 ? 1 : 0;
  });
  onShutdown(async () => {
    stopping = true;
    for (const child of children) {
      try {
        child.kill("SIGTERM");
      } catch {
        // Already gone.
      }
    }
    return await done;
  });
  if (await done > 0) Deno.exit(1);
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
    // Also completes a seeding that a kill cut short.
    const missing = await eventsToSeed(kv, 300_000);
    if (missing > 0) {
      console.log(`seeding ${missing} events into ${path}`);
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
        port: { type: "string", default: Deno.env.get("PORT") ?? "8000" },
        host: { type: "string", default: onDeploy ? "0.0.0.0" : "127.0.0.1" },
        store: { type: "string", default: "./.weir/weir.sqlite" },
        runtime: { type: "string", default: onDeploy ? "kv" : "local" },
        processes: { type: "string", default: "1" },
        worker: { type: "string" },
        "lease-ms": { type: "string", default: "10000" },
        parallelism: { type: "string" },
        "checkpoint-interval-ms": { type: "string" },
        "watermark-recovery": { type: "string" },
        "error-policy": { type: "string" },
        "allow-non-restored-state": { type: "boolean", default: false },
      },
    });
    const restore = parseRestore(values.restore);
    if (positionals[0] === "durable") {
      refuseSettingFlags(values, "durable");
      await durable(positionals[1] ?? "./.weir/durable.sqlite", restore);
    } else if (positionals[0] === "demo") {
      refuseSettingFlags(values, "demo");
      await demo();
    } else {
      const port = Number(values.port);
      if (!Number.isSafeInteger(port) || port < 0 || port > 65_535) {
        throw new RangeError(
          `Cannot serve as '--port' must be a port number: current value is ${values.port}`,
        );
      }
      const serveOptions = {
        port,
        host: values.host,
        store: values.store,
        restore,
        settings: parseSettingFlags(values),
        allowNonRestoredState: values["allow-non-restored-state"],
      };
      if (values.runtime === "local") {
        if (values.processes !== "1") {
          throw new RangeError(
            `Cannot start as '--processes' needs '--runtime kv': current value is ${values.processes} with --runtime local`,
          );
        }
        await serve(positionals[0], serveOptions);
      } else if (values.runtime === "kv") {
        const processes = Number(values.processes);
        if (!Number.isSafeInteger(processes) || processes < 1) {
          throw new RangeError(
            `Cannot start as '--processes' must be a positive integer: current value is ${values.processes}`,
          );
        }
        const leaseMs = Number(values["lease-ms"]);
        if (!Number.isSafeInteger(leaseMs) || leaseMs < 100) {
          throw new RangeError(
            `Cannot start as '--lease-ms' must be an integer of at least 100: current value is ${
              values["lease-ms"]
            }`,
          );
        }
        await serveKv(positionals[0], {
          ...serveOptions,
          processes,
          worker: values.worker,
          leaseMs,
        });
      } else {
        throw new RangeError(
          `Cannot start as '--runtime' must be local or kv: current value is ${values.runtime}`,
        );
      }
    }
  } catch (error) {
    console.error(
      `error: ${error instanceof Error ? error.message : String(error)}`,
    );
    Deno.exit(1);
  }
}
