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
import { requireToken } from "./auth.ts";
import { HttpError } from "./errors.ts";
import { deadLetterRoutes } from "./_dead_letter_route.ts";
import { explainWindow } from "../observe/explain.ts";
import {
  explainQuery,
  healthThresholds,
  jobOf,
  optionalInteger,
} from "./_job_request.ts";
import {
  describe,
  summarize,
  summarizeCheckpoints,
} from "../observe/job_summary.ts";
import { json, stringify } from "./_json.ts";
import { jobHealth } from "../observe/health.ts";
import type { JobHandle } from "../observe/job_handle.ts";
import type { ServiceOptions } from "./service.ts";

// How long a disconnected EventSource waits before it reconnects.
const RETRY_MS = 2_000;

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
 *   `error`, `position`, `reason`, `at`), and `checkpoints`: `counts`
 *   (`completed` and `failed` since the service started, `inProgress`,
 *   `retained`), `failures` (`[{ id, at }]`, recent), `restoredFrom`
 *   (`{ id, createdAt }` or `null`), `restoredFromKnown`, `latest` and
 *   `sizeBytes` (the latest's, `null` while the store records no sizes).
 * - `GET /jobs/:job/watermarks?since=<ms>`: `{ job, samples }`, the
 *   watermark history oldest first (only samples after `since`).
 * - `GET /jobs/:job/checkpoints`: `{ job, checkpoints }`, oldest first,
 *   with the fields of the detail's `checkpoints` beside them (`counts`,
 *   `failures`, `restoredFrom`, `restoredFromKnown`, `latest`, `sizeBytes`).
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
 *   `size`; `size` defaults to the operator's fixed window size; without
 *   `window`, the oldest window that has not fired (the one holding the
 *   operator's lowest input watermark; 400 while there is no watermark);
 *   `operator` may be left out when the job has one window operator; `key` is read as JSON when it parses (`3` is a number,
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
 *   event and ends the stream. Each event's `id` is a processing time in
 *   ms, strictly increasing across the job's streams; the first event sets
 *   `retry: 2000`. A client reconnecting with `Last-Event-ID` gets, in its
 *   first event, `missed`: the history samples taken after that id, oldest
 *   first (the ids it is sent stay above the one it saw).
 *
 * The explain report gives, for the subtask owning the key (or every
 * subtask of the operator): the window's end and maxTimestamp, the input
 * watermark and how far it is behind maxTimestamp, each input channel
 * with its watermark, idleness and when it last moved, the active channel
 * holding the minimum and the subtasks upstream of it to the source, and
 * `advice`: what would let the watermark advance (a silent partition and
 * `withIdleness`, timestamps in seconds, back-pressure, periodic
 * watermarks disabled): the usual causes of a window that never fires.
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
  // Per job: the last event id sent on any of its streams.
  const lastEventIds = new WeakMap<JobHandle, number>();

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
    const checkpoints = await handle.checkpoints();
    return json({
      job: handle.name,
      checkpoints,
      ...await summarizeCheckpoints(handle, checkpoints),
    });
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

  routes.route("/", deadLetterRoutes(options));

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
    const seen = lastEventId(c);
    return streamSSE(c, async function sendStatus(stream) {
      let wake: (() => void) | null = null;
      stream.onAbort(() => wake?.());
      c.req.raw.signal.addEventListener("abort", () => stream.abort());
      let lastAt = handle.history().at(-1)?.at ?? null;
      // Only the first event of a reconnecting stream carries what it missed.
      let missed = seen === undefined
        ? undefined
        : handle.history().filter((s) => s.at > seen);
      let retry: number | undefined = RETRY_MS;
      const send = async () => {
        const summary = await summarize(handle);
        const sample = handle.history().at(-1) ?? null;
        const data = stringify({
          ...summary,
          sample,
          ...(missed === undefined ? {} : { missed }),
        });
        await stream.writeSSE({
          event: "status",
          id: String(nextEventId(handle, seen)),
          data,
          ...(retry === undefined ? {} : { retry }),
        });
        missed = undefined;
        retry = undefined;
      };
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

  // Event ids are processing times in ms, kept strictly increasing per job
  // across connections (and above the id a reconnecting client saw), so
  // that `Last-Event-ID` dates what the client has: later samples are new.
  function nextEventId(handle: JobHandle, seen: number | undefined): number {
    const id = Math.max(
      options.clock.now(),
      (lastEventIds.get(handle) ?? -Infinity) + 1,
      (seen ?? -Infinity) + 1,
    );
    lastEventIds.set(handle, id);
    return id;
  }
}

/** The `Last-Event-ID` a reconnecting client sends; ignored unless an integer. */
function lastEventId(c: Context): number | undefined {
  const raw = c.req.header("Last-Event-ID")?.trim();
  if (raw === undefined || raw === "") return undefined;
  const value = Number(raw);
  return Number.isSafeInteger(value) ? value : undefined;
}
