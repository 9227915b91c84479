/**
 * What every serving command shares: the flags of a served job, opening
 * the store, the service's token, serving the app on the port actually
 * bound, and stopping on Ctrl-C.
 *
 * @module
 */

import type { JobSettings } from "../api/job_settings.ts";
import { exposureWarning, probeStore, tokenFromEnv } from "./serve_guards.ts";
import { type Flag, type ParsedArgs, parseInteger } from "./flags.ts";
import { parseRestore, type Restore } from "./restore_flag.ts";
import { parseSettingFlags } from "./setting_flags.ts";

/** Where the command line runs: what its defaults depend on. */
export interface Place {
  /** On Deno Deploy (`DENO_DEPLOY` set). */
  readonly onDeploy: boolean;
  /** `PORT`, when set. */
  readonly port: string | undefined;
}

/** How a served job runs: the flags every serving command takes. */
export interface ServeOptions {
  /** The port to serve on; 0 lets the system pick. */
  readonly port: number;
  /** The address to bind. */
  readonly host: string;
  /** The Deno KV file. */
  readonly store: string;
  /** Where the job restarts from. */
  readonly restore: Restore;
  /** Settings given on the command line: they override the job file's. */
  readonly settings: JobSettings;
  /** Drop the state of operators the job no longer has. */
  readonly allowNonRestoredState: boolean;
}

/**
 * `--runtime`, which picks the command, with its default in `place`.
 *
 * @param place Where the command line runs.
 * @returns The flag.
 */
export function runtimeFlag(place: Place): Flag {
  return {
    name: "runtime",
    value: "local|kv",
    default: place.onDeploy ? "kv" : "local",
    about:
      "the runtime: local (one process; state in memory, checkpoints in the store) or kv (actors' state in the store)",
  };
}

/**
 * The flags of a served job, with their defaults in `place`.
 *
 * @param place Where the command line runs.
 * @returns The flags.
 */
export function serveFlags(place: Place): Flag[] {
  return [
    {
      name: "port",
      value: "<n>",
      default: place.port ?? "8000",
      about: "port to serve on, 0 for any free one ($PORT when set)",
    },
    {
      name: "host",
      value: "<addr>",
      default: place.onDeploy ? "0.0.0.0" : "127.0.0.1",
      about: "address to bind; other than loopback, set WEIR_TOKEN",
    },
    {
      name: "store",
      value: "<path>",
      default: "./.weir/weir.sqlite",
      about: "the Deno KV file holding the job's logs and checkpoints",
    },
    {
      name: "restore",
      value: "latest|none|<id>",
      default: "latest",
      about:
        "where the job restarts from: its latest checkpoint, none (start over) or checkpoint <id>",
    },
    {
      name: "parallelism",
      value: "<n>",
      about: "overrides the job file's settings.parallelism (default 1)",
    },
    {
      name: "checkpoint-interval-ms",
      value: "<ms>",
      about: "overrides settings.checkpointIntervalMs (default 1000, 0: none)",
    },
    {
      name: "watermark-recovery",
      value: "persist|replay",
      about: "overrides settings.watermarkRecovery (default replay)",
    },
    {
      name: "error-policy",
      value: "dead-letter|fail",
      about: "overrides settings.errorPolicy (default dead-letter)",
    },
    {
      name: "allow-non-restored-state",
      about: "drop the checkpointed state of operators the job no longer has",
    },
  ];
}

/**
 * Reads the flags of a served job.
 *
 * @param parsed The arguments as parsed against {@linkcode serveFlags}.
 * @returns The options.
 * @throws {RangeError} If a value is out of range, naming its flag.
 */
export function serveOptions(parsed: ParsedArgs): ServeOptions {
  const values = parsed.values;
  const restore = parseRestore(values.restore!);
  const port = parseInteger("port", values.port!, {
    min: 0,
    max: 65_535,
    rule: "a port number",
    action: "serve",
  });
  return {
    port,
    host: values.host!,
    store: values.store!,
    restore,
    settings: parseSettingFlags(values),
    allowNonRestoredState: values["allow-non-restored-state"] === "true",
  };
}

/**
 * Opens the store and checks it can be written, before anything else.
 *
 * @param path The KV file; `undefined` for Deno Deploy's database.
 * @returns The store.
 * @throws {Error} If it cannot be opened or written, naming it.
 */
export async function openStore(path: string | undefined): Promise<Deno.Kv> {
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
 *
 * @param options The served job's options.
 * @returns The token, `undefined` without one.
 */
export function serviceToken(options: ServeOptions): string | undefined {
  const token = tokenFromEnv(Deno.env.get("WEIR_TOKEN"));
  const warning = exposureWarning(options.host, token);
  if (warning !== null) console.warn(warning);
  return token;
}

/** What serves requests: a hono app. */
export type App = {
  fetch: (request: Request) => Response | Promise<Response>;
};

/**
 * Serves the app `makeApp` builds for the port actually bound (with
 * `--port 0` the system picks it; the host check needs it).
 *
 * @param options Where to serve.
 * @param makeApp The app for the port bound.
 * @param banner The start of the line printed once it listens.
 * @returns The server.
 * @throws {Error} If the port is in use, saying to pass `--port`.
 */
export function startServer(
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
 * @param stop What stops the service.
 * @returns While the service stops, the promise of its exit (it never
 * resolves); else `null`.
 */
export function onShutdown(
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
