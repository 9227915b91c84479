/**
 * The service's one hono app: every resource's sub-app mounted under its
 * path, with one error handler and one not-found handler.
 *
 * @module
 */

import { Hono } from "hono";
import { dashboardRoutes, timelineRoute } from "./dashboard.ts";
import { notFound, onError } from "./errors.ts";
import { ingestRoutes } from "./ingest.ts";
import { jobRoutes } from "./jobs.ts";
import { metricsRoutes } from "./metrics.ts";
import type { ServiceOptions } from "./service.ts";
import { requireToken } from "./auth.ts";
import { requireHost } from "./host_check.ts";
import { nameSpanByRoute } from "./route_span.ts";
import { observeJobs } from "../observe/otel.ts";

/**
 * Builds the HTTP app of a weir process: ingest, jobs (watermarks,
 * checkpoints, explain, events), metrics and the dashboard.
 *
 * Every error, thrown anywhere below, is answered by `onError` from
 * `errors.ts` as `{ error: { code, message, details } }` with the code's
 * status; unexpected errors become 500 `INTERNAL` without their message.
 * Unknown routes get 404 JSON. With `options.token` set, ingest and every
 * write or admin route need `Authorization: Bearer <token>`: each sub-app
 * guards its own write routes with `requireToken` from `auth.ts`, so a
 * sub-app mounted elsewhere stays guarded; read routes stay open. With
 * `options.allowedHosts` set, a request for any other host gets 403
 * before any route (see `host_check.ts`).
 *
 * Run with `OTEL_DENO=true`, each request's OpenTelemetry span is named by
 * its route and every job's metrics are registered on the `weir` meter
 * (see `observeJobs`); without it both are no-ops.
 *
 * Serve it with `Deno.serve(app.fetch)`; test it with `app.request()`.
 *
 * @param options The jobs, streams, token, body limit and clock.
 * @returns The app.
 * @throws {RangeError} If `maxBodyBytes`, `bodyTimeoutMs` or
 * `idempotencyTtlMs` is not a positive safe integer, `token` is empty,
 * `allowedHosts` is empty, or a stream's key rule is out of range.
 *
 * @example Ingesting with a token
 * ```ts
 * import { createApp } from "./app.ts";
 * import { KvLog } from "../connectors/sources/kv_log.ts";
 * import { ManualClock } from "../time/mod.ts";
 * import assert from "node:assert/strict";
 *
 * const kv = await Deno.openKv(":memory:");
 * const log = new KvLog<Record<string, unknown>>(kv, "clicks", { partitions: 1 });
 * const streams = new Map([["clicks", { name: "clicks", log, timestampField: "at" }]]);
 * const app = createApp({ jobs: new Map(), streams, token: "s3cret", clock: new ManualClock(0) });
 * const init = { method: "POST", body: '{"at":1700000000000}\n' };
 * const headers = { "Content-Type": "application/x-ndjson" };
 * assert.equal((await app.request("/ingest/clicks", { ...init, headers })).status, 401);
 * const authorized = { ...headers, Authorization: "Bearer s3cret" };
 * assert.equal((await app.request("/ingest/clicks", { ...init, headers: authorized })).status, 202);
 * kv.close();
 * ```
 */
export function createApp(options: ServiceOptions): Hono {
  const app = new Hono();
  app.onError(onError);
  app.notFound(notFound);
  // OpenTelemetry (no-ops unless run with OTEL_DENO=true): each request's
  // span named by its route, and every job's metrics on the `weir` meter.
  app.use("*", nameSpanByRoute());
  observeJobs(options.jobs);
  // Before every route, so a rebinding page learns nothing.
  if (options.allowedHosts !== undefined) {
    app.use("*", requireHost(options.allowedHosts));
  }
  // POST /ingest/:stream (guarded by the token inside).
  app.route("/ingest", ingestRoutes(options));
  // GET /jobs/:job/timeline.svg, before the JSON API under /jobs.
  app.route("/", timelineRoute(options));
  // GET /jobs, /jobs/:job, watermarks, explain, events;
  // POST /jobs/:job/checkpoints (guarded by the token inside).
  app.route("/jobs", jobRoutes(options));
  // GET /metrics.
  app.route("/metrics", metricsRoutes(options));
  // POST /tick: one round of the KV-runtime worker (guarded by the token).
  const tick = options.tick;
  if (tick !== undefined) {
    app.post("/tick", requireToken(options.token), async (c) => {
      return c.json({ progressed: await tick() });
    });
  }
  // GET / (the dashboard page); last, so it shadows no route above.
  app.route("/", dashboardRoutes(options));
  return app;
}
