/**
 * Bearer-token access for ingest and every write or admin endpoint.
 *
 * @module
 */

import type { MiddlewareHandler } from "hono";
import { HttpError } from "./errors.ts";

const encoder = new TextEncoder();

/**
 * A middleware that lets a request through only with
 * `Authorization: Bearer <token>`, when a token is configured; without one
 * it lets every request through.
 *
 * The scheme name is matched case-insensitively (RFC 6750); the token
 * exactly. The comparison takes the same time wherever the tokens differ,
 * and whatever their lengths: both are hashed with SHA-256 first and the
 * digests compared byte by byte without stopping early. A refused request
 * throws an `HttpError` with code `UNAUTHORIZED` (401, with
 * `WWW-Authenticate: Bearer`), before its body is read.
 *
 * Mount it on each write or admin route, e.g.
 * `routes.post("/:job/checkpoints", requireToken(options.token), handler)`;
 * read-only routes stay open.
 *
 * @param token The expected token, or `undefined` for no check.
 * @returns The middleware.
 * @throws {TypeError} If `token` is neither a string nor `undefined`.
 * @throws {RangeError} If `token` is empty (easy to mistake for "no token")
 * or holds whitespace (a header could never carry it). The message never
 * shows the token.
 *
 * @example Guarding a route
 * ```ts
 * import { Hono } from "hono";
 * import { requireToken } from "./auth.ts";
 * import { onError } from "./errors.ts";
 * import assert from "node:assert/strict";
 *
 * const app = new Hono().post("/x", requireToken("s3cret"), (c) => c.text("ok"));
 * app.onError(onError);
 * assert.equal((await app.request("/x", { method: "POST" })).status, 401);
 * const headers = { Authorization: "Bearer s3cret" };
 * assert.equal((await app.request("/x", { method: "POST", headers })).status, 200);
 * ```
 */
export function requireToken(token?: string): MiddlewareHandler {
  if (token !== undefined && typeof token !== "string") {
    throw new TypeError(
      `Cannot create the token check as 'token' must be a string or undefined: current value is of type ${
        token === null ? "null" : typeof token
      }`,
    );
  }
  if (token === "" || /\s/.test(token ?? "")) {
    throw new RangeError(
      `Cannot create the token check as 'token' must be a non-empty string without whitespace: current value has ${
        token?.length ?? 0
      } characters; leave it undefined to disable the check`,
    );
  }
  if (token === undefined) {
    return async function noTokenRequired(_c, next) {
      await next();
    };
  }
  // Hashed on first use, so creating the check starts no work.
  let expected: Promise<Uint8Array> | undefined;
  return async function checkToken(c, next) {
    expected ??= digest(token);
    const header = c.req.header("Authorization") ?? "";
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
    const ok = match !== null &&
      equalDigests(await expected, await digest(match[1]));
    if (!ok) {
      throw new HttpError(
        "UNAUTHORIZED",
        match === null
          ? "Cannot authorize the request as it must carry 'Authorization: Bearer <token>'"
          : "Cannot authorize the request as its bearer token is not the configured one",
        { headers: { "WWW-Authenticate": 'Bearer realm="weir"' } },
      );
    }
    await next();
  };
}

async function digest(text: string): Promise<Uint8Array> {
  return new Uint8Array(
    await crypto.subtle.digest("SHA-256", encoder.encode(text)),
  );
}

// Both digests are 32 bytes: the loop always runs to the end.
function equalDigests(a: Uint8Array, b: Uint8Array): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < a.length; i++) diff |= a[i] ^ b[i];
  return diff === 0;
}
