/**
 * The HTTP service: one hono app that ingests records into durable logs and
 * shows running jobs, their watermarks, checkpoints and metrics. The routes
 * live here; what they show (sampling, health, diagnosis, explain, the
 * timeline, the Prometheus text, the dashboard page) lives in `observe/`.
 *
 * {@linkcode createApp} builds the app from {@linkcode ServiceOptions};
 * handlers throw {@linkcode HttpError} with a stable code, and one error
 * handler answers every error as JSON.
 *
 * @example Posting records and reading the error catalogue
 * ```ts
 * import { createApp, HttpError } from "./mod.ts";
 * import { KvLog } from "../connectors/sources/kv_log.ts";
 * import { ManualClock } from "../time/mod.ts";
 * import assert from "node:assert/strict";
 *
 * const kv = await Deno.openKv(":memory:");
 * const log = new KvLog<Record<string, unknown>>(kv, "clicks", { partitions: 2 });
 * const streams = new Map([["clicks", { name: "clicks", log, timestampField: "at" }]]);
 * const app = createApp({ jobs: new Map(), streams, clock: new ManualClock(0) });
 * const headers = { "Content-Type": "application/json" };
 * const res = await app.request("/ingest/clicks", { method: "POST", headers, body: '[{"at":"soon"}]' });
 * assert.equal(res.status, 400);
 * assert.equal((await res.json()).error.code, "INVALID_RECORDS");
 * assert.equal(new HttpError("NOT_FOUND", "Cannot find job 'x'").status, 404);
 * kv.close();
 * ```
 *
 * @module
 */

export { createApp } from "./app.ts";
export { requireToken } from "./auth.ts";
export {
  type ErrorBody,
  HttpError,
  type HttpErrorCode,
  type HttpErrorOptions,
  notFound,
  onError,
} from "./errors.ts";
export { ingestRoutes } from "./ingest.ts";
export { isLoopbackHost, loopbackHosts, requireHost } from "./host_check.ts";
export type { IngestStream, ServiceOptions } from "./service.ts";
export { jobRoutes } from "./jobs.ts";
export { metricsRoutes } from "./metrics.ts";
export { dashboardRoutes, timelineRoute } from "./dashboard.ts";
