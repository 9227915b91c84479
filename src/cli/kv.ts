/**
 * `deno task dev [job-file] --runtime kv`: a job on the KV runtime. This
 * process is a worker and serves the app (with `POST /tick`); with
 * `--worker <id>` it is one of the worker processes a supervisor started
 * (`--processes N`) and serves nothing. On Deno Deploy this is the
 * default, on `Deno.openKv()`.
 *
 * @module
 */

import {
  type CheckpointInfo,
  KvRuntime,
  KvRuntimeView,
} from "../actors/mod.ts";
import { describeJobSettings } from "../api/mod.ts";
import { createApp } from "../http/mod.ts";
import { LocalJobHandle } from "../observe/mod.ts";
import {
  type Command,
  type Flag,
  type ParsedArgs,
  parseInteger,
} from "./flags.ts";
import {
  type DefaultJob,
  findRestored,
  type KvStart,
  kvStartOf,
  type OpenJob,
  openJob,
} from "./job_file.ts";
import {
  onShutdown,
  openStore,
  type Place,
  runtimeFlag,
  serveFlags,
  type ServeOptions,
  serviceToken,
  startServer,
} from "./serve.ts";
import { allowedHostsFor } from "./serve_guards.ts";

/** How a job runs on the KV runtime. */
export interface KvOptions extends ServeOptions {
  /** Worker processes sharing the store (`--processes`). */
  readonly processes: number;
  /** This process's worker id, when a supervisor started it. */
  readonly worker: string | undefined;
  /** How long an actor's lease lasts, in ms. */
  readonly leaseMs: number;
}

/**
 * The flags of a job on the KV runtime, with their defaults in `place`.
 *
 * @param place Where the command line runs.
 * @returns The flags, `--worker` left out (only a supervisor gives it).
 */
export function kvFlags(place: Place): Flag[] {
  return [
    runtimeFlag(place),
    {
      name: "processes",
      value: "<n>",
      default: "1",
      about: "worker processes sharing the store; over 1, this one supervises",
    },
    {
      name: "lease-ms",
      value: "<ms>",
      default: "10000",
      about: "how long a worker holds an actor without renewing (>= 100)",
    },
    // On the KV runtime, latest is no checkpoint: the actors commit their
    // state as they go, and a restart resumes from it.
    ...serveFlags(place).map((flag) =>
      flag.name === "restore"
        ? {
          ...flag,
          about:
            "latest resumes from the actors' committed state (not the latest checkpoint); none starts over; <id> from checkpoint <id>",
        }
        : flag
    ),
  ];
}

/**
 * The `kv` command, as its `--help` shows it.
 *
 * @param place Where the command line runs: the defaults depend on it.
 * @returns The command.
 */
export function kvCommand(place: Place): Command {
  return {
    name: "kv",
    usage: "deno task dev [job-file] --runtime kv [flags]",
    summary: [
      "Runs the job file's job (without one, the demo job) on the KV runtime:",
      "its actors' state, channels and leases are in the store, so a restart",
      "resumes from them (--restore none or <id> starts over). This process",
      "is a worker and serves the app, with POST /tick. On Deno Deploy",
      "(DENO_DEPLOY set) this is the default, on Deno.openKv(), ticked by",
      "Deno.cron every minute.",
    ].join("\n"),
    flags: [...kvFlags(place), {
      name: "worker",
      value: "<id>",
      about: "run as worker <id> of a supervisor, serving nothing (set by it)",
    }],
    examples: [
      "deno task dev --runtime kv",
      "deno task dev examples/ingest_counts.ts --runtime kv --lease-ms 5000",
    ],
  };
}

/**
 * Reads the KV runtime's flags.
 *
 * @param parsed The arguments as parsed against {@linkcode kvCommand}'s flags.
 * @param serve The served job's options, read from them.
 * @returns The options.
 * @throws {RangeError} If a value is out of range, naming its flag.
 */
export function kvOptions(parsed: ParsedArgs, serve: ServeOptions): KvOptions {
  const processes = parseInteger("processes", parsed.values.processes!, {
    min: 1,
    rule: "a positive integer",
  });
  const leaseMs = parseInteger("lease-ms", parsed.values["lease-ms"]!, {
    min: 100,
    rule: "an integer of at least 100",
  });
  return { ...serve, processes, worker: parsed.values.worker, leaseMs };
}

/** What {@linkcode serveKvApp} serves besides the job. */
export interface KvApp {
  /** The start of the line printed once it listens. */
  readonly banner: string;
  /** The service's token. */
  readonly token: string | undefined;
  /** What `POST /tick` runs; without it, no such route. */
  readonly tick?: () => Promise<boolean>;
  /** The checkpoint the job started from; `undefined` when not known. */
  readonly restoredFrom?: CheckpointInfo | null;
}

/**
 * The KV runtime's dashboard and `POST /tick`, over a view refreshed from
 * KV.
 *
 * @param options Where to serve.
 * @param job The job.
 * @param runtime The runtime whose state in KV the view shows.
 * @param app The start of the line printed once it listens (`banner`),
 * the service's `token`, what `POST /tick` runs (`tick`; without it, no
 * such route) and the checkpoint the job started from (`restoredFrom`;
 * `undefined` when not known).
 * @returns The server, and what stops the view's refreshing.
 */
export async function serveKvApp(
  options: ServeOptions,
  job: OpenJob,
  runtime: KvRuntime,
  app: KvApp,
): Promise<{ server: Deno.HttpServer; stop: () => void }> {
  const { banner, token, tick, restoredFrom } = app;
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
    // Not known (a resume): the tracker says so, not "started afresh".
    ...(restoredFrom === undefined ? {} : { restoredFrom }),
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
 * Runs `file`'s job on the KV runtime as one worker: serving the app, or,
 * with `--worker`, as a supervisor's worker process.
 *
 * @param file The job file; `undefined` for the default job.
 * @param defaultJob The job run without a job file.
 * @param options The flags.
 * @param place Where the command line runs: on Deno Deploy, Deploy's KV.
 * @param onTick Given what ticks the runtime (for Deploy's cron).
 * @throws {Error} If the store, the job or its checkpoint cannot be used.
 */
export async function runKv(
  file: string | undefined,
  defaultJob: DefaultJob,
  options: KvOptions,
  place: Place,
  onTick: (tick: () => Promise<boolean>) => void,
): Promise<void> {
  const worker = options.worker;
  // A worker of --processes N serves nothing: its supervisor checked.
  const token = worker === undefined ? serviceToken(options) : undefined;
  const kv = await openStore(place.onDeploy ? undefined : options.store);
  const job = await openJob(file, defaultJob, kv, options.settings);
  if (worker === undefined) {
    console.log(
      `weir: job '${job.name}': ${describeJobSettings(job.settings)}`,
    );
  }
  // Found before any reset: one that cannot be restored is refused while
  // the job's state is still there. A worker of --processes N that joins
  // (or is restarted into) a started job resumes from its actors: the
  // checkpoint it was started with may be gone by now.
  const joining = worker !== undefined &&
    await KvRuntime.started(kv, job.name);
  const checkpoint = joining ? null : await findRestored(job, options.restore);
  let start: KvStart | null = null;
  if (worker === undefined) {
    start = await kvStartOf(kv, job, options.restore, checkpoint);
    console.log(`weir: job '${job.name}': ${start.text}`);
  }
  if (worker === undefined && options.restore !== "latest") {
    // Start over (from nothing, or from the checkpoint asked for).
    await KvRuntime.reset(kv, job.name);
  }
  const runtime = job.env.createKvRuntime(
    {
      kv,
      workerId: worker,
      leaseMs: options.leaseMs,
      allowNonRestoredState: options.allowNonRestoredState,
    },
    checkpoint ?? undefined,
  );
  const running = runtime.run();
  if (worker !== undefined) {
    // A worker of `--processes N`: no server; the supervisor serves.
    // One ending, whether the job finishes or Ctrl-C stops it: the store
    // is closed once.
    const done = running.then(() => {
      console.log(
        `weir: worker ${worker}: job '${job.name}' ${
          runtime.finished ? "finished" : "stopped"
        }`,
      );
    }).finally(() => kv.close());
    onShutdown(async () => {
      runtime.stop();
      await done;
    });
    console.log(`weir: worker ${worker} of job '${job.name}' started`);
    await done;
    return;
  }
  onTick(() => runtime.tick());
  const { server, stop } = await serveKvApp(options, job, runtime, {
    banner:
      `weir: job '${job.name}' on the KV runtime (worker ${runtime.workerId})`,
    token,
    tick: () => runtime.tick(),
    restoredFrom: start?.restoredFrom,
  });
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
