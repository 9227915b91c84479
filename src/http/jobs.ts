/**
 * `/jobs`: running jobs, their subtasks' watermarks, watermark history,
 * checkpoints, dead letters, a live event stream, why a window has not
 * fired, and the job's health.
 *
 * JSON has no infinities, so every `-Infinity`, `Infinity` (and `NaN`) in
 * a response body is sent as the string `"-Infinity"`, `"Infinity"` (or
 * `"NaN"`): a watermark of `"-Infinity"` means no watermark yet.
 *
 * @module
 */

import { type Context, Hono } from "hono";
import { streamSSE } from "hono/streaming";
import type { SubtaskStatus } from "../actors/local/local_runtime.ts";
import { requireToken } from "./auth.ts";
import { HttpError } from "./errors.ts";
import { type DeadLetterSummary, readDeadLetters } from "./_dead_letters.ts";
import { type ExplainQuery, explainWindow } from "./_explain.ts";
import {
  DEFAULT_HEALTH_THRESHOLDS,
  type HealthThresholds,
  jobHealth,
} from "./health.ts";
import type { JobHandle, ServiceOptions } from "./service.ts";

/**
 * The routes under `/jobs`, to mount with `app.route("/jobs", jobRoutes(options))`
 * on an app whose `onError` answers {@linkcode HttpError} (`errors.ts`).
 *
 * - `GET /jobs`: `{ jobs: [summary] }`, one summary per job: `name`,
 *   `numOperators`, `numSubtasks`, `watermark` (the lowest input watermark
 *   of the subtasks that are not idle), `maxWatermarkLagMs`, `recordsIn`
 *   (records read by sources), `lateRecordsDropped`, `idleSubtasks`,
 *   `pausedSubtasks`, `lastSampleAt`, `deadLetters` (how many letters the
 *   job's dead-letter log holds; `null` when it keeps none or it could not
 *   be read).
 * - `GET /jobs/:job`: the summary, plus `maxParallelism`,
 *   `autoWatermarkIntervalMs`, `operators`: each vertex with its `id`,
 *   `name`, `parallelism`, `source`, `inputs`, `outputs` and `subtasks`
 *   (input and output watermark, idle, lag, records in and out, late
 *   records dropped, mailbox depth, paused, gauges), and
 *   `recentDeadLetters`: the 5 most recent dead letters, oldest first,
 *   without their records (`id`, `operator`, `subtask`, `timestamp`,
 *   `error`, `position`, `reason`, `at`).
 * - `GET /jobs/:job/watermarks?since=<ms>`: `{ job, samples }`, the
 *   watermark history oldest first (only samples after `since`).
 * - `GET /jobs/:job/checkpoints`: `{ job, checkpoints }`, oldest first.
 * - `POST /jobs/:job/checkpoints`: starts one; 202 `{ id }`, or 409
 *   `CONFLICT` while one is running or once the job finished. Requires
 *   `Authorization: Bearer <token>` when `options.token` is set (401).
 * - `GET /jobs/:job/dead-letters?limit=<n>`: `{ job, count, letters }`, the
 *   `limit` (default 100, at most 1000) most recent dead letters, oldest
 *   first as `DeadLetterLog.list()` gives them, each whole (`id`,
 *   `operator`, `subtask`, `value`, `timestamp`, `error`, `position`,
 *   `reason`, `at`); `count` is how many the log holds. The letters hold
 *   the job's records, so the route requires the token like a write
 *   route (401). 404 `NOT_FOUND` when the job keeps no dead-letter log.
 * - `GET /jobs/:job/explain?operator=<id>&window=<start ms>&size=<ms>&key=<k>`:
 *   why that window has not fired (see below). `end=<ms>` may replace
 *   `size`; `operator` may be left out when the job has one window
 *   operator; `key` is read as JSON when it parses (`3` is a number,
 *   `"3"` a string) and as a string otherwise; `stallMs` (default 10000)
 *   is how long a channel must stand still to be called stalled.
 * - `GET /jobs/:job/health`: the job's health ({@linkcode jobHealth}):
 *   `status` (`ok`, `warn` or `bad`, the worst operator's), `operators`
 *   (per vertex: `watermarkLagMs`, `driftRate`, `lateRecordRatio`,
 *   `windows`, each `{ value, status }`, and `keys`), the `thresholds`
 *   used and `diagnosis`: `[{ cause, operator, subtask?, evidence, fix }]`
 *   naming what holds event time back (a silent partition, timestamps in
 *   seconds, back-pressure, a generator that never emits, windows that
 *   never fire, state growth). Any threshold may be overridden in the
 *   query, e.g. `?lagWarnMs=10000&driftWarn=0.8`.
 * - `GET /jobs/:job/events?interval=<ms>&once=1`: server-sent events: a
 *   `status` event (the summary, with the latest watermark `sample`) at
 *   once, every `interval` ms (default 1000) and whenever the history
 *   gets a new sample, until the client disconnects; `once=1` sends one
 *   event and ends the stream.
 *
 * The explain report gives, for the subtask owning the key (or every
 * subtask of the operator): the window's end and maxTimestamp, the input
 * watermark and how far it is behind maxTimestamp, each input channel
 * with its watermark, idleness and when it last moved, the active channel
 * holding the minimum and the subtasks upstream of it to the source, and
 * `advice`: what would let the watermark advance (a silent partition and
 * `withIdleness`, timestamps in seconds, back-pressure, periodic
 * watermarks disabled), following seed 000 §5.1 and seed 004 §3.
 *
 * An unknown job is 404 `NOT_FOUND`; a malformed query is 400
 * `BAD_REQUEST`.
 *
 * @param options The jobs, the token and the clock.
 * @returns The sub-app.
 *
 * @example Asking why a window has not fired
 * ```ts ignore
 * const app = new Hono().route("/jobs", jobRoutes(options));
 * app.onError(onError);
 * const res = await app.request("/jobs/clicks/explain?window=1700000000000&size=10000&key=3");
 * console.log((await res.json()).advice);
 * ```
 */
export function jobRoutes(options: ServiceOptions): Hono {
  const routes = new Hono();

  routes.get("/", async function listJobs() {
    return json({
      jobs: await Promise.all(
        [...options.jobs.values()].map((handle) => summarize(handle)),
      ),
    });
  });

  routes.get("/:job", async function getJob(c) {
    return json(await describe(jobOf(options, c)));
  });

  routes.get("/:job/watermarks", function getWatermarks(c) {
    const handle = jobOf(options, c);
    const since = optionalInteger(c, "since");
    const samples = handle.history().filter((s) =>
      since === undefined || s.at > since
    );
    return json({ job: handle.name, samples });
  });

  routes.get("/:job/checkpoints", async function getCheckpoints(c) {
    const handle = jobOf(options, c);
    return json({ job: handle.name, checkpoints: await handle.checkpoints() });
  });

  routes.post(
    "/:job/checkpoints",
    requireToken(options.token),
    function postCheckpoint(c) {
      const handle = jobOf(options, c);
      const id = handle.triggerCheckpoint();
      if (id === null) {
        throw new HttpError(
          "CONFLICT",
          `Cannot trigger a checkpoint of job '${handle.name}' as no checkpoint may be in progress and the job must be running: one is in progress or the job has finished; retry once it completes`,
        );
      }
      return json({ id }, 202);
    },
  );

  routes.get(
    "/:job/dead-letters",
    requireToken(options.token),
    async function getDeadLetters(c) {
      const handle = jobOf(options, c);
      const limit = optionalInteger(c, "limit") ?? 100;
      if (limit < 1 || limit > MAX_DEAD_LETTERS) {
        throw new HttpError(
          "BAD_REQUEST",
          `Cannot list dead letters as 'limit' must be an integer from 1 to ${MAX_DEAD_LETTERS}: current value is ${limit}`,
        );
      }
      const log = handle.deadLetters?.();
      if (log === undefined) {
        throw new HttpError(
          "NOT_FOUND",
          `Cannot list the dead letters of job '${handle.name}' as its runtime must keep a dead-letter log: it keeps none`,
        );
      }
      const [count, letters] = await Promise.all([
        log.count(),
        log.list(limit),
      ]);
      return json({ job: handle.name, count, letters });
    },
  );

  routes.get("/:job/explain", function explain(c) {
    const handle = jobOf(options, c);
    return json(explainWindow(handle, explainQuery(c, handle, options)));
  });

  routes.get("/:job/health", function health(c) {
    const handle = jobOf(options, c);
    return json(
      jobHealth(handle, options.clock.now(), healthThresholds(c)),
    );
  });

  routes.get("/:job/events", function events(c) {
    const handle = jobOf(options, c);
    const once = ["1", "true"].includes(c.req.query("once") ?? "");
    const interval = optionalInteger(c, "interval") ?? 1_000;
    if (interval < 50) {
      throw new HttpError(
        "BAD_REQUEST",
        `Cannot stream events as 'interval' must be at least 50 ms: current value is ${interval}`,
      );
    }
    return streamSSE(c, async function sendStatus(stream) {
      let wake: (() => void) | null = null;
      stream.onAbort(() => wake?.());
      c.req.raw.signal.addEventListener("abort", () => stream.abort());
      let id = 0;
      let lastAt = handle.history().at(-1)?.at ?? null;
      const send = async () =>
        stream.writeSSE({
          event: "status",
          id: String(id++),
          data: stringify({
            ...await summarize(handle),
            sample: handle.history().at(-1) ?? null,
          }),
        });
      await send();
      if (once) return;
      const tick = Math.min(interval, 250);
      let waited = 0;
      while (!stream.aborted) {
        // A sleep that the client's disconnect ends at once, leaving no timer.
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, tick);
          function done() {
            clearTimeout(timer);
            wake = null;
            resolve();
          }
          wake = done;
        });
        if (stream.aborted) break;
        waited += tick;
        const at = handle.history().at(-1)?.at ?? null;
        if (waited >= interval || at !== lastAt) {
          lastAt = at;
          waited = 0;
          await send();
        }
      }
    });
  });

  return routes;
}

// How many dead letters `GET /jobs/:job` shows, and the route's largest
// `limit` (a letter's record may take up to 16,384 characters).
const RECENT_DEAD_LETTERS = 5;
const MAX_DEAD_LETTERS = 1_000;

/** The handle of the job named in the path, or a 404. */
function jobOf(options: ServiceOptions, c: Context): JobHandle {
  const name = c.req.param("job") ?? "";
  const handle = options.jobs.get(name);
  if (handle === undefined) {
    const known = [...options.jobs.keys()].map((n) => `'${n}'`).join(", ");
    throw new HttpError(
      "NOT_FOUND",
      `Cannot find job '${name}' as it must be one of the running jobs: ${
        known || "none is running"
      }`,
    );
  }
  return handle;
}

/**
 * The job summary of `GET /jobs`; `deadLetters` when the caller has read
 * them already.
 */
async function summarize(
  handle: JobHandle,
  deadLetters?: DeadLetterSummary | null,
) {
  const letters = deadLetters === undefined
    ? await readDeadLetters(handle, 0)
    : deadLetters;
  const statuses = handle.status();
  const sources = new Set(
    handle.graph.vertices.filter((v) => v.source !== undefined).map((v) =>
      v.id
    ),
  );
  const active = statuses.filter((s) => !s.idle);
  return {
    name: handle.name,
    numOperators: handle.graph.vertices.length,
    numSubtasks: statuses.length,
    watermark: Math.min(
      ...(active.length > 0 ? active : statuses).map((s) => s.inputWatermark),
    ),
    maxWatermarkLagMs: statuses.length === 0
      ? 0
      : Math.max(...statuses.map((s) => s.watermarkLagMs)),
    recordsIn: sum(
      statuses.filter((s) => sources.has(s.operator)).map((s) => s.recordsIn),
    ),
    lateRecordsDropped: sum(statuses.map(lateOf)),
    idleSubtasks: statuses.length - active.length,
    pausedSubtasks: statuses.filter((s) => s.paused).length,
    lastSampleAt: handle.history().at(-1)?.at ?? null,
    deadLetters: letters?.count ?? null,
  };
}

/** The job's plan with every subtask's status, for `GET /jobs/:job`. */
async function describe(handle: JobHandle) {
  const { graph } = handle;
  const statuses = handle.status();
  const deadLetters = await readDeadLetters(handle, RECENT_DEAD_LETTERS);
  return {
    ...await summarize(handle, deadLetters),
    maxParallelism: graph.maxParallelism,
    autoWatermarkIntervalMs: graph.autoWatermarkIntervalMs,
    operators: graph.vertices.map((v) => ({
      id: v.id,
      name: v.name,
      parallelism: v.parallelism,
      source: v.source !== undefined,
      inputs: graph.edges.filter((e) => e.to === v.id).map((e) => e.from),
      outputs: graph.edges.filter((e) => e.from === v.id).map((e) => e.to),
      subtasks: statuses.filter((s) => s.operator === v.id).map((s) => ({
        id: s.id,
        subtask: s.subtask,
        inputWatermark: s.inputWatermark,
        outputWatermark: s.outputWatermark,
        idle: s.idle,
        watermarkLagMs: s.watermarkLagMs,
        recordsIn: s.recordsIn,
        recordsOut: s.recordsOut,
        lateRecordsDropped: lateOf(s),
        mailboxDepth: s.mailboxDepth,
        paused: s.paused,
        gauges: s.gauges,
        ...(s.worker === undefined ? {} : { worker: s.worker }),
      })),
    })),
    recentDeadLetters: deadLetters?.recent ?? [],
  };
}

/** Reads and checks the explain query. */
function explainQuery(
  c: Context,
  handle: JobHandle,
  options: ServiceOptions,
): ExplainQuery {
  const ids = handle.graph.vertices.map((v) => v.id);
  let operator = c.req.query("operator");
  if (operator === undefined) {
    const windows = ids.filter((id) => id.startsWith("window"));
    if (windows.length !== 1) {
      throw new HttpError(
        "BAD_REQUEST",
        `Cannot explain as 'operator' must name the window operator, one of ${
          ids.join(", ")
        }: current value is missing`,
      );
    }
    operator = windows[0];
  } else if (!ids.includes(operator)) {
    throw new HttpError(
      "NOT_FOUND",
      `Cannot explain as 'operator' must name an operator of job '${handle.name}', one of ${
        ids.join(", ")
      }: current value is "${operator}"`,
    );
  }
  const windowStart = optionalInteger(c, "window");
  if (windowStart === undefined) {
    throw new HttpError(
      "BAD_REQUEST",
      "Cannot explain as 'window' must be the window's start in epoch milliseconds: current value is missing",
    );
  }
  const size = optionalInteger(c, "size");
  let windowEnd = optionalInteger(c, "end") ?? null;
  if (size !== undefined) windowEnd = windowStart + size;
  if (windowEnd !== null && windowEnd <= windowStart) {
    throw new HttpError(
      "BAD_REQUEST",
      `Cannot explain as the window's end must be after its start ${windowStart}: current value is ${windowEnd}`,
    );
  }
  const stallMs = optionalInteger(c, "stallMs") ?? 10_000;
  const raw = c.req.query("key");
  return {
    operator,
    windowStart,
    windowEnd,
    key: raw === undefined ? undefined : parseKey(raw),
    stallMs: Math.max(0, stallMs),
    now: options.clock.now(),
  };
}

/** Threshold overrides from the query: non-negative finite numbers. */
function healthThresholds(c: Context): Partial<HealthThresholds> {
  const overrides: Record<string, number> = {};
  for (const name of Object.keys(DEFAULT_HEALTH_THRESHOLDS)) {
    const raw = c.req.query(name);
    if (raw === undefined) continue;
    const value = Number(raw);
    if (raw.trim() === "" || !Number.isFinite(value) || value < 0) {
      throw new HttpError(
        "BAD_REQUEST",
        `Cannot compute job health as '${name}' must be a non-negative number: current value is "${raw}"`,
      );
    }
    overrides[name] = value;
  }
  return overrides;
}

/** A key from the query: JSON when it is a JSON number, string or boolean. */
function parseKey(raw: string): string | number | boolean {
  try {
    const value: unknown = JSON.parse(raw);
    if (
      typeof value === "string" || typeof value === "boolean" ||
      (typeof value === "number" && Number.isFinite(value))
    ) return value;
  } catch {
    // Not JSON: the key is the text itself.
  }
  return raw;
}

/** A query parameter that must be a safe integer when present. */
function optionalInteger(c: Context, name: string): number | undefined {
  const raw = c.req.query(name);
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (raw.trim() === "" || !Number.isSafeInteger(value)) {
    throw new HttpError(
      "BAD_REQUEST",
      `Cannot read the query as '${name}' must be an integer: current value is "${raw}"`,
    );
  }
  return value;
}

function lateOf(status: SubtaskStatus): number {
  return status.gauges.numLateRecordsDropped ?? 0;
}

function sum(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

/**
 * JSON with `±Infinity` and `NaN` as strings (JSON would make them `null`),
 * and a bigint (a dead letter's record may hold one) as its digits.
 */
function stringify(body: unknown): string {
  return JSON.stringify(body, function infinities(_key, value) {
    return (typeof value === "number" && !Number.isFinite(value)) ||
        typeof value === "bigint"
      ? String(value)
      : value;
  });
}

function json(body: unknown, status = 200): Response {
  return new Response(stringify(body), {
    status,
    headers: { "Content-Type": "application/json" },
  });
}
