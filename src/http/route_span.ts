/**
 * {@linkcode nameSpanByRoute}: names the OpenTelemetry span of each request
 * by its route.
 *
 * @module
 */

import { trace } from "@opentelemetry/api";
import type { MiddlewareHandler } from "hono";

/**
 * A middleware that renames the request's active span (the server span
 * `Deno.serve` opens when run with `OTEL_DENO=true`, named by method only)
 * to `<method> <route>`, e.g. `GET /jobs/:job/watermarks`, and sets its
 * `http.route` attribute, as OpenTelemetry's HTTP conventions ask. A
 * request no route matched keeps its name. Without OpenTelemetry there is
 * no active span and it does nothing.
 *
 * Mount it first, so that it sees the route of the handler that answered.
 *
 * @returns The middleware.
 */
export function nameSpanByRoute(): MiddlewareHandler {
  return async function nameSpanByRoute(c, next) {
    await next();
    const span = trace.getActiveSpan();
    if (span === undefined) return;
    // After `next()`, the route of the last handler that ran: a wildcard
    // is this middleware's own, so no route matched.
    const route = c.req.routePath;
    if (route.endsWith("*")) return;
    span.updateName(`${c.req.method} ${route}`);
    span.setAttribute("http.route", route);
  };
}
