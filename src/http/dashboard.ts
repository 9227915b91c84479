/**
 * The dashboard: one HTML page with every job's culprit line, subtasks,
 * watermarks, lag chart, timeline and checkpoints, kept live by the job's
 * event stream; its scripts and styles (static files); and the images and
 * summary line it shows.
 *
 * @module
 */

import { Hono } from "hono";
import { dashboardPage } from "../observe/dashboard/page.ts";
import {
  type DashboardAsset,
  dashboardAsset,
} from "../observe/dashboard/assets.ts";
import { jobCulprit } from "../observe/dashboard/culprit.ts";
import { timelineMarks } from "../observe/fired_windows.ts";
import { renderLagChartSvg } from "../observe/lag_chart.ts";
import { renderTimelineSvg } from "../observe/timeline.ts";
import { HttpError } from "./errors.ts";
import type { ServiceOptions } from "./service.ts";

// The timeline draws at most this many of the latest samples, so a long
// history costs the same as a short one.
const MAX_TIMELINE_SAMPLES = 600;

const ASSET_TYPES: ReadonlyArray<readonly [DashboardAsset, string]> = [
  ["dashboard.js", "text/javascript; charset=utf-8"],
  ["dashboard_live.js", "text/javascript; charset=utf-8"],
  ["dashboard.css", "text/css; charset=utf-8"],
];

/**
 * The dashboard page, to mount at `/` (`app.route("/", dashboardRoutes(options))`),
 * with its script and styles at `/dashboard.js` and `/dashboard.css`.
 *
 * `GET /` answers one HTML page with no external resources (the static
 * files `dashboard.css`, `dashboard.js` and `dashboard_live.js` in
 * `observe/dashboard/`, read once beside the module, from a checkout or a
 * URL). It lists the jobs and shows the one named by `?job=` (the first
 * job without it). First comes the culprit line: what holds the job's
 * event time back, from the health diagnosis (e.g. "event time is held by
 * partition p-2 of clicks (subtask 0): silent for 35.000 s; withIdleness
 * would release it", with the evidence and fix below; where the runtime
 * cannot know the partitions' states, the subtask and the partitions it
 * reads: "held by subtask 0 of clicks (partitions p-0, p-2): one of its
 * partitions is silent ..."), or "event time is
 * advancing" with the lowest watermark's lag. Then a health panel (the
 * job's status badge, and per operator its status, lag, drift, late
 * ratio, windows and the causes the diagnosis names there with their
 * fixes; see `jobHealth` in `observe/health.ts`), a dead letters panel
 * (how many records the error policy set aside, the 5 most recent newest
 * first, a link to `/jobs/:job/dead-letters`), a table per operator with
 * one row per subtask (input and output watermark as an ISO time and
 * epoch milliseconds, idle/active, lag, records in and out, late records
 * dropped, mailbox depth, and under a source subtask each partition with
 * its status, active, idle or finished, and watermark, or "partition
 * statuses not known"; the active subtask holding its operator's
 * watermark back is highlighted, and so is the partition holding its
 * subtask back),
 * the lag chart (`/jobs/:job/lag.svg`), the timeline
 * (`/jobs/:job/timeline.svg`, see {@linkcode timelineRoute}) and the
 * checkpoint history. Tables scroll sideways on a narrow screen.
 *
 * The page is complete when served; its script then opens the job's
 * event stream (`GET /jobs/:job/events`) and redraws the subtasks from
 * each `status` event (from its `operators` when it carries them, else
 * the watermarks of its latest `sample`, re-reading `GET /jobs/:job` at
 * most every 5 s); on an event it re-reads the culprit line and health at
 * most every 5 s, the checkpoints every 10 s and reloads the charts every
 * 5 s. Only when the stream cannot be opened does it poll every 5 s. It
 * keeps the values it has when a read fails.
 *
 * For browser tests, every element showing a watermark has a `data-testid`
 * (`input-watermark`, `output-watermark`) and a `data-value` with the
 * epoch milliseconds (`-Infinity` before the first watermark); rows are
 * `data-testid="subtask-row"` with `data-subtask` set to the actor id
 * (`data-lowest="true"` on the highlighted one), each partition
 * `data-testid="partition"` with `data-partition`, `data-status` and
 * `data-value` (`data-lowest="true"` on the one holding its subtask back),
 * the culprit line
 * `data-testid="culprit"` with `data-cause` (`none` when nothing holds
 * event time back), the charts `img[data-testid="lag-chart"]` and
 * `img[data-testid="timeline"]`, the checkpoint table
 * `data-testid="checkpoints"`, the health badge `data-testid="health-status"`
 * with `data-status` (`ok`, `warn`, `bad`), each operator's entry
 * `data-testid="operator-health"` with `data-operator` and `data-status`,
 * each cause `data-testid="diagnosis"` with `data-cause`, the dead-letter
 * count `data-testid="dead-letter-count"` with `data-count`, each letter
 * `data-testid="dead-letter-row"` with `data-reason`; `main` counts
 * redraws of the subtasks in `data-polls` and stream events in
 * `data-events`, and a chart gets `data-frame` once a reloaded image has
 * been decoded.
 *
 * An unknown `?job=` answers 404 with the page and the job list. The page
 * is read-only, so it needs no token.
 *
 * @param options The service's jobs.
 * @returns A hono app with `GET /`, `GET /dashboard.js`, `GET /dashboard_live.js` and `GET /dashboard.css`.
 *
 * @example Serving the page
 * ```ts
 * import { Hono } from "hono";
 * import { dashboardRoutes } from "./dashboard.ts";
 * import { ManualClock } from "../time/clock.ts";
 * import assert from "node:assert/strict";
 *
 * const options = { jobs: new Map(), streams: new Map(), clock: new ManualClock() };
 * const app = new Hono().route("/", dashboardRoutes(options));
 * const response = await app.request("/");
 * assert.match(await response.text(), /No jobs are running/);
 * ```
 */
export function dashboardRoutes(options: ServiceOptions): Hono {
  const routes = new Hono();
  routes.get("/", async function dashboard(c) {
    const requested = c.req.query("job");
    const html = await dashboardPage(
      options.jobs,
      requested,
      options.clock.now(),
    );
    const missing = requested !== undefined && !options.jobs.has(requested);
    return c.html(html, missing ? 404 : 200, { "Cache-Control": "no-store" });
  });
  for (const [name, type] of ASSET_TYPES) {
    routes.get(`/${name}`, async function asset(c) {
      return c.body(await dashboardAsset(name), 200, {
        "Content-Type": type,
        // Revalidated on each load, so an upgraded service is seen at once.
        "Cache-Control": "no-cache",
      });
    });
  }
  return routes;
}

/**
 * The dashboard's images and summary line of a job, to mount at `/`
 * (`app.route("/", timelineRoute(options))`): `GET /jobs/:job/timeline.svg`
 * answers `image/svg+xml` drawn by {@linkcode renderTimelineSvg} from the
 * job's latest watermark samples (`JobHandle.history()`, at most 600),
 * with the windows and records its gauge history saw ({@linkcode timelineMarks});
 * `GET /jobs/:job/lag.svg` the lag chart of the same samples
 * ({@linkcode renderLagChartSvg}: each subtask's processing time minus
 * watermark, idle periods shaded); `GET /jobs/:job/culprit` the page's
 * first line as JSON, `{ text, cause, evidence, fix }` (`cause` `null`
 * when nothing holds event time back): what holds the job's event time
 * back, from the health diagnosis. The images take `?width=` (pixels,
 * kept within 200–1600; 800 without it), so a page draws them as wide as
 * it shows them; under 600 px the legend goes under the plot.
 *
 * It is a separate app because it lives under `/jobs`, next to the JSON
 * API, while the page lives at `/`.
 *
 * @param options The service's jobs.
 * @returns A hono app with `GET /jobs/:job/timeline.svg`, `lag.svg` and `culprit`.
 * @throws {HttpError} `NOT_FOUND` (404) from the route when no job has that
 * name; the app's `onError` answers it.
 *
 * @example Drawing a job's timeline
 * ```ts ignore
 * const app = new Hono().route("/", timelineRoute(options));
 * app.onError(onError);
 * const response = await app.request("/jobs/clicks/timeline.svg");
 * assert.equal(response.headers.get("Content-Type"), "image/svg+xml; charset=utf-8");
 * ```
 */
export function timelineRoute(options: ServiceOptions): Hono {
  const routes = new Hono();
  const jobOf = (name: string, what: string) => {
    const handle = options.jobs.get(name);
    if (handle === undefined) {
      throw new HttpError(
        "NOT_FOUND",
        `Cannot ${what} of job '${name}' as no job of that name is running`,
      );
    }
    return handle;
  };
  const svg = (body: string) =>
    new Response(body, {
      headers: {
        "Content-Type": "image/svg+xml; charset=utf-8",
        "Cache-Control": "no-store",
      },
    });
  // The page asks for its images as wide as it shows them (`?width=`).
  const widthOf = (text: string | undefined) => {
    const width = Number(text);
    return Number.isInteger(width)
      ? Math.min(Math.max(width, 200), 1_600)
      : undefined;
  };
  routes.get("/jobs/:job/timeline.svg", function timeline(c) {
    const handle = jobOf(c.req.param("job"), "draw the timeline");
    return svg(renderTimelineSvg({
      samples: handle.history().slice(-MAX_TIMELINE_SAMPLES),
      ...timelineMarks(handle, MAX_TIMELINE_SAMPLES),
      width: widthOf(c.req.query("width")),
    }));
  });
  routes.get("/jobs/:job/lag.svg", function lagChart(c) {
    const handle = jobOf(c.req.param("job"), "draw the lag chart");
    return svg(renderLagChartSvg({
      samples: handle.history().slice(-MAX_TIMELINE_SAMPLES),
      width: widthOf(c.req.query("width")),
    }));
  });
  routes.get("/jobs/:job/culprit", function culprit(c) {
    const handle = jobOf(c.req.param("job"), "name what holds event time");
    const line = jobCulprit(handle, options.clock.now());
    return c.json(
      {
        text: line.text,
        cause: line.diagnosis?.cause ?? null,
        evidence: line.diagnosis?.evidence ?? null,
        fix: line.diagnosis?.fix ?? null,
      },
      200,
      { "Cache-Control": "no-store" },
    );
  });
  return routes;
}
