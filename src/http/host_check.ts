/**
 * A guard against DNS rebinding: a service on a loopback address without
 * a token answers only requests addressed to a loopback name.
 *
 * A page on another site can make the browser resolve its own name to
 * 127.0.0.1 and then talk to a local service as if it were same-origin;
 * the request still carries the page's name in `Host`. hono has no
 * middleware for this (its `ip-restriction` checks the client's address,
 * which is 127.0.0.1 here too), hence this one.
 *
 * @module
 */

import type { MiddlewareHandler } from "hono";
import { HttpError } from "./errors.ts";

/**
 * Whether `host` (as `--host` takes it) is a loopback address or name:
 * `localhost`, `127.0.0.0/8` or `::1`.
 *
 * @param host A host name or address, IPv6 with or without brackets.
 * @returns Whether only this machine can reach it.
 *
 * @example
 * ```ts
 * import { isLoopbackHost } from "./host_check.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(isLoopbackHost("127.0.0.1"), true);
 * assert.equal(isLoopbackHost("[::1]"), true);
 * assert.equal(isLoopbackHost("0.0.0.0"), false);
 * ```
 */
export function isLoopbackHost(host: string): boolean {
  const name = host.toLowerCase().replace(/^\[(.*)\]$/, "$1");
  return name === "localhost" || name === "::1" ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name);
}

/**
 * The `Host` values a browser sends for a service on this machine's
 * loopback at `port`: `localhost`, `127.0.0.1` and `[::1]`, each with the
 * port (without it for port 80, as URLs drop a default port).
 *
 * @param port The port the service listens on.
 * @returns The hosts, as `new URL(...).host` writes them.
 */
export function loopbackHosts(port: number): string[] {
  return ["localhost", "127.0.0.1", "[::1]"].map((name) =>
    new URL(`http://${name}:${port}`).host
  );
}

/**
 * A middleware that answers 403 `FORBIDDEN` to every request whose host
 * (the URL's `host`: the `Host` header's name and port, lower-cased, a
 * default port dropped) is not one of `allowed`, before any route runs.
 *
 * @param allowed The hosts served, e.g. from {@linkcode loopbackHosts}.
 * @returns The middleware.
 * @throws {RangeError} If `allowed` is empty.
 *
 * @example Serving only loopback names
 * ```ts
 * import { Hono } from "hono";
 * import { loopbackHosts, requireHost } from "./host_check.ts";
 * import { onError } from "./errors.ts";
 * import assert from "node:assert/strict";
 *
 * const app = new Hono().use(requireHost(loopbackHosts(8000))).get("/", (c) => c.text("ok"));
 * app.onError(onError);
 * assert.equal((await app.request("http://127.0.0.1:8000/")).status, 200);
 * assert.equal((await app.request("http://evil.example:8000/")).status, 403);
 * ```
 */
export function requireHost(allowed: readonly string[]): MiddlewareHandler {
  if (!Array.isArray(allowed) || allowed.length === 0) {
    throw new RangeError(
      `Cannot create the host check as 'allowed' must list at least one host: current value is ${
        JSON.stringify(allowed)
      }`,
    );
  }
  const hosts = new Set(allowed.map((h) => new URL(`http://${h}`).host));
  const list = [...hosts].join(", ");
  return async function checkHost(c, next) {
    const host = new URL(c.req.url).host;
    if (!hosts.has(host)) {
      throw new HttpError(
        "FORBIDDEN",
        `Cannot serve a request for host '${
          host.slice(0, 100)
        }' as this service answers only to ${list} while it has no token (a guard against DNS rebinding): open it by one of those, or set WEIR_TOKEN`,
      );
    }
    await next();
  };
}
