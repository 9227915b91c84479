/**
 * The dashboard: one HTML page with every job's subtasks, watermarks,
 * timeline and checkpoints, kept live by polling the JSON API; its script
 * and styles (static files); and the timeline image it shows.
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
import { renderLagChartSvg } from "../observe/lag_chart.ts";
import { renderTimelineSvg } from "../observe/timeline.ts";
import { HttpError } from "./errors.ts";
import type { ServiceOptions } from "./service.ts";

// The timeline draws at most this many of the latest samples, so a long
// history costs the same as a short one.
const MAX_TIMELINE_SAMPLES = 600;

const ASSET_TYPES: ReadonlyArray<readonly [DashboardAsset, string]> = [
  ["dashboard.js", "text/javascript; charset=utf-8"],
  ["dashboard.css", "text/css; charset=utf-8"],
];

/**
 * The dashboard page, to mount at `/` (`app.route("/", dashboardRoutes(options))`),
 * with its script and styles at `/dashboard.js` and `/dashboard.css`.
 *
 * `GET /` answers one HTML page with inline CSS and JavaScript and no
 * external resources (the static files `dashboard.css` and `dashboard.js`
 * in `observe/dashboard/`, read once beside the module, from a checkout
 * or a URL). It lists the jobs and shows the one named by `?job=`
 * (the first job without it): a table per operator with one row per subtask
 * (input and output watermark as an ISO time and epoch milliseconds,
 * idle/active, lag, records in and out, late records dropped, mailbox
 * depth), a health panel (the job's status badge, and per operator its
 * status, lag, drift, late ratio, windows and the causes the diagnosis
 * names there with their fixes; see `jobHealth` in `observe/health.ts`), a dead
 * letters panel (how many records the error policy set aside, the 5 most
 * recent newest first, a link to `/jobs/:job/dead-letters`), the
 * timeline image (`/jobs/:job/timeline.svg`, see
 * {@linkcode timelineRoute}) and the checkpoint history. The page is
 * complete when served; its script then polls `GET /jobs/:job` every
 * second (reading `operators[].subtasks`, with `±Infinity` sent as
 * strings, as `jobs.ts` answers), `GET /jobs/:job/health` every two
 * seconds, `GET /jobs/:job/checkpoints` every five seconds
 * (`{ checkpoints }`) and reloads the timeline every two, and keeps the
 * values it has when a poll fails.
 *
 * For browser tests, every element showing a watermark has a `data-testid`
 * (`input-watermark`, `output-watermark`) and a `data-value` with the
 * epoch milliseconds (`-Infinity` before the first watermark); rows are
 * `data-testid="subtask-row"` with `data-subtask` set to the actor id, the
 * timeline is `img[data-testid="timeline"]`, the checkpoint table
 * `data-testid="checkpoints"`, the health badge `data-testid="health-status"`
 * with `data-status` (`ok`, `warn`, `bad`), each operator's entry
 * `data-testid="operator-health"` with `data-operator` and `data-status`,
 * each cause `data-testid="diagnosis"` with `data-cause`, the dead-letter
 * count `data-testid="dead-letter-count"` with `data-count`, each letter
 * `data-testid="dead-letter-row"` with `data-reason`, `main` counts
 * successful polls in
 * `data-polls`, and the timeline gets `data-frame` once a reloaded image
 * has been decoded.
 *
 * An unknown `?job=` answers 404 with the page and the job list. The page
 * is read-only, so it needs no token.
 *
 * @param options The service's jobs.
 * @returns A hono app with `GET /`, `GET /dashboard.js` and `GET /dashboard.css`.
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
 * job's latest watermark samples (`JobHandle.history()`, at most 600);
 * `GET /jobs/:job/lag.svg` the lag chart of the same samples
 * ({@linkcode renderLagChartSvg}: each subtask's processing time minus
 * watermark, idle periods shaded); `GET /jobs/:job/culprit` the page's
 * first line as JSON, `{ text, cause, evidence, fix }` (`cause` `null`
 * when nothing holds event time back): what holds the job's event time
 * back, from the health diagnosis.
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
  routes.get("/jobs/:job/timeline.svg", function timeline(c) {
    const handle = jobOf(c.req.param("job"), "draw the timeline");
    return svg(renderTimelineSvg({
      samples: handle.history().slice(-MAX_TIMELINE_SAMPLES),
    }));
  });
  routes.get("/jobs/:job/lag.svg", function lagChart(c) {
    const handle = jobOf(c.req.param("job"), "draw the lag chart");
    return svg(renderLagChartSvg({
      samples: handle.history().slice(-MAX_TIMELINE_SAMPLES),
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
