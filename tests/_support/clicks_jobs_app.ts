// The clicks job's handle behind `/jobs` (jobRoutes, with the error
// handler): what the /jobs and event-stream tests request.

import { Hono } from "hono";
import { jobRoutes } from "../../src/http/jobs.ts";
import { onError } from "../../src/http/errors.ts";
import { type ClicksHandle, clicksHandle } from "./clicks_handle.ts";

/** {@linkcode ClicksHandle} and the app that serves it under `/jobs`. */
export interface ClicksJobsApp extends ClicksHandle {
  readonly app: Hono;
}

/** Builds the clicks job and serves it under `/jobs`, with `token` if given. */
export function clicksJobsApp(
  options: { token?: string; historySize?: number } = {},
): ClicksJobsApp {
  const built = clicksHandle(options);
  const app = new Hono().route(
    "/jobs",
    jobRoutes({
      jobs: new Map([["clicks", built.handle]]),
      streams: new Map(),
      token: options.token,
      clock: built.clock,
    }),
  );
  app.onError(onError);
  return { ...built, app };
}
