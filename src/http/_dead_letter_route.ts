// `GET /jobs/:job/dead-letters`: a job's most recent dead letters, whole
// (see `jobRoutes` in jobs.ts for the contract).

import { Hono } from "hono";
import { requireToken } from "./auth.ts";
import { HttpError } from "./errors.ts";
import { jobOf, optionalInteger } from "./_job_request.ts";
import { json } from "./_json.ts";
import type { ServiceOptions } from "./service.ts";

// The route's largest `limit` (a letter's record may take up to 16,384
// characters).
const MAX_DEAD_LETTERS = 1_000;

/**
 * The dead-letters route, to mount on the `/jobs` routes. The letters hold
 * the job's records, so it requires the token like a write route.
 */
export function deadLetterRoutes(options: ServiceOptions): Hono {
  const routes = new Hono();

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

  return routes;
}
