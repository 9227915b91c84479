/**
 * The service's error catalogue: every failure a client can see has a
 * stable code, a status and a JSON body, and one {@linkcode onError} turns
 * thrown errors into responses.
 *
 * Handlers throw by meaning and never build error responses themselves:
 * an {@linkcode HttpError} for what the client got wrong, a domain error
 * with its own code (`CheckpointMismatchError`, `AtomicConflictError`), or
 * anything else for a bug. The catalogue below marks which messages are
 * safe to show clients (RivetKit's error catalogue): the
 * message of an unexpected error may hold internal names or stored data,
 * so the client only gets `"Internal error"` and the server log gets the
 * rest.
 *
 * @module
 */

import type { Context } from "hono";
import { AtomicConflictError } from "../kv/mod.ts";
import { PersistentKvError } from "../kv/retry.ts";
import { CheckpointMismatchError } from "../runtime/fingerprint.ts";

/** How a code is answered. */
interface CatalogueEntry {
  /** The HTTP status. */
  readonly status: number;
  /**
   * Whether the error's own message may be shown to clients; when false
   * they get `message` below instead.
   */
  readonly expose: boolean;
  /** The message clients get when `expose` is false. */
  readonly message: string;
}

/**
 * A stable error code a client can receive, e.g. `"PAYLOAD_TOO_LARGE"`.
 * Programs branch on these, so a code is never renamed or reused.
 */
export type HttpErrorCode =
  | "BAD_REQUEST"
  | "MALFORMED_BODY"
  | "INVALID_RECORDS"
  | "UNAUTHORIZED"
  | "FORBIDDEN"
  | "NOT_FOUND"
  | "METHOD_NOT_ALLOWED"
  | "REQUEST_TIMEOUT"
  | "CONFLICT"
  | "CHECKPOINT_MISMATCH"
  | "PAYLOAD_TOO_LARGE"
  | "UNSUPPORTED_MEDIA_TYPE"
  | "IDEMPOTENCY_KEY_REUSED"
  | "TOO_MANY_REQUESTS"
  | "INTERNAL"
  | "UNAVAILABLE"
  | "ATOMIC_CONFLICT";

// How each code is answered. A new code goes in the union above and here.
const CATALOGUE: Readonly<Record<HttpErrorCode, CatalogueEntry>> = {
  BAD_REQUEST: { status: 400, expose: true, message: "Bad request" },
  MALFORMED_BODY: { status: 400, expose: true, message: "Malformed body" },
  INVALID_RECORDS: { status: 400, expose: true, message: "Invalid records" },
  UNAUTHORIZED: { status: 401, expose: true, message: "Unauthorized" },
  FORBIDDEN: { status: 403, expose: true, message: "Forbidden" },
  NOT_FOUND: { status: 404, expose: true, message: "Not found" },
  METHOD_NOT_ALLOWED: {
    status: 405,
    expose: true,
    message: "Method not allowed",
  },
  // The body did not arrive in time: nothing was appended.
  REQUEST_TIMEOUT: { status: 408, expose: true, message: "Request timeout" },
  CONFLICT: { status: 409, expose: true, message: "Conflict" },
  CHECKPOINT_MISMATCH: {
    status: 409,
    expose: true,
    message: "Checkpoint mismatch",
  },
  PAYLOAD_TOO_LARGE: {
    status: 413,
    expose: true,
    message: "Payload too large",
  },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    expose: true,
    message: "Unsupported media type",
  },
  // An Idempotency-Key sent again with another body (IETF
  // draft-ietf-httpapi-idempotency-key-header: 422).
  IDEMPOTENCY_KEY_REUSED: {
    status: 422,
    expose: true,
    message: "Idempotency key reused",
  },
  TOO_MANY_REQUESTS: {
    status: 429,
    expose: true,
    message: "Too many requests",
  },
  INTERNAL: { status: 500, expose: false, message: "Internal error" },
  UNAVAILABLE: { status: 503, expose: true, message: "Service unavailable" },
  // The log's head kept moving under concurrent appends: retrying helps.
  // The message names internal keys, so it stays in the server log.
  ATOMIC_CONFLICT: {
    status: 503,
    expose: false,
    message: "Storage is busy with concurrent writes; retry",
  },
};

/** Options of an {@linkcode HttpError}. */
export interface HttpErrorOptions {
  /**
   * Structured data for the client, sent as `error.details`, e.g. the list
   * of bad records. It must be JSON and safe to show.
   * @default {undefined}
   */
  readonly details?: unknown;
  /**
   * Extra response headers, e.g. `WWW-Authenticate` or `Retry-After`.
   * @default {undefined}
   */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * The error that caused this one; logged, never sent.
   * @default {undefined}
   */
  readonly cause?: unknown;
}

/**
 * A request the service refuses, with a stable code; {@linkcode onError}
 * answers it with the code's status and `{ error: { code, message,
 * details } }`.
 *
 * The message is shown to the client as written, so it must describe the
 * client's input and never internal state. Follow the usual shape:
 * "Cannot ingest into 'clicks' as the body must be at most 1048576 bytes:
 * current size is 2000000".
 *
 * @example Refusing a request
 * ```ts
 * import { HttpError } from "./errors.ts";
 * import assert from "node:assert/strict";
 *
 * const error = new HttpError("NOT_FOUND", "Cannot find stream 'x'");
 * assert.equal(error.status, 404);
 * assert.equal(error.code, "NOT_FOUND");
 * ```
 */
export class HttpError extends Error {
  /** The stable code, for programs to branch on. */
  readonly code: HttpErrorCode;
  /** The HTTP status of the code. */
  readonly status: number;
  /** Structured data for the client, if any. */
  readonly details: unknown;
  /** Extra response headers. */
  readonly headers: Readonly<Record<string, string>>;

  /**
   * Creates the error.
   *
   * @param code A code of the catalogue; it fixes the status.
   * @param message What the client did wrong and how to fix it; shown to
   * the client.
   * @param options Details, headers and cause.
   */
  constructor(
    code: HttpErrorCode,
    message: string,
    options?: HttpErrorOptions,
  ) {
    super(message, { cause: options?.cause });
    this.name = "HttpError";
    this.code = code;
    this.status = CATALOGUE[code].status;
    this.details = options?.details;
    this.headers = options?.headers ?? {};
  }
}

/** The JSON body of every error response. */
export interface ErrorBody {
  /** The error. */
  readonly error: {
    /** A stable code of the catalogue. */
    readonly code: string;
    /** A message for people; never internal details. */
    readonly message: string;
    /** Structured data, e.g. every bad record of an ingest. */
    readonly details?: unknown;
  };
}

/**
 * The app's error handler (`app.onError(onError)`): answers every thrown
 * error with JSON and a status chosen by its meaning.
 *
 * - {@linkcode HttpError}: its status, code, message and details; for a
 *   code whose messages are not safe to show (`INTERNAL`,
 *   `ATOMIC_CONFLICT`), the code's fixed message instead, and it is logged.
 * - `CheckpointMismatchError`: 409 `CHECKPOINT_MISMATCH` with its message
 *   and the differences as details.
 * - `AtomicConflictError` (writers racing for a log's head): 503
 *   `ATOMIC_CONFLICT` with `Retry-After: 1`, logged.
 * - `PersistentKvError` (Deno KV kept failing for a passing reason, e.g.
 *   SQLite's lock): 503 `UNAVAILABLE` with `Retry-After: 1` and a fixed
 *   message, logged. An append may or may not have happened: a client
 *   resends with the same `Idempotency-Key`.
 * - hono's `HTTPException`: its status; its message only below 500.
 * - Anything else is a bug: 500 `INTERNAL` with the message "Internal
 *   error", and the error goes to `console.error` with the method and path.
 *
 * hono hands only `Error` instances to `onError`; code in weir throws
 * nothing else.
 *
 * @param err The thrown value.
 * @param c The request's context.
 * @returns The error response.
 */
export function onError(err: unknown, c: Context): Response {
  if (err instanceof HttpError) {
    if (CATALOGUE[err.code].expose) {
      return send(err.code, err.message, err.details, err.headers);
    }
    log(c, err);
    return send(
      err.code,
      CATALOGUE[err.code].message,
      err.details,
      err.headers,
    );
  }
  if (err instanceof CheckpointMismatchError) {
    return send("CHECKPOINT_MISMATCH", err.message, {
      checkpointId: err.checkpointId,
      differences: err.differences,
    });
  }
  if (err instanceof AtomicConflictError) {
    log(c, err);
    return send("ATOMIC_CONFLICT", CATALOGUE.ATOMIC_CONFLICT.message, {
      retryable: true,
    }, { "Retry-After": "1" });
  }
  if (err instanceof PersistentKvError) {
    log(c, err);
    return send(
      "UNAVAILABLE",
      "Storage is not answering; retry, with the same Idempotency-Key if the request had one",
      { retryable: true },
      { "Retry-After": "1" },
    );
  }
  const status = httpExceptionStatus(err);
  if (status !== null && status < 500) {
    return sendStatus(status, (err as Error).message);
  }
  log(c, err);
  if (status !== null) return sendStatus(status, "Internal error");
  return send("INTERNAL", CATALOGUE.INTERNAL.message);
}

/**
 * The app's not-found handler (`app.notFound(notFound)`): 404 with code
 * `NOT_FOUND` naming the method and path.
 *
 * @param c The request's context.
 * @returns The 404 response.
 */
export function notFound(c: Context): Response {
  return send(
    "NOT_FOUND",
    `Cannot ${c.req.method} ${c.req.path} as no route matches it`,
  );
}

function send(
  code: HttpErrorCode,
  message: string,
  details?: unknown,
  headers?: Readonly<Record<string, string>>,
): Response {
  return json(CATALOGUE[code].status, code, message, details, headers);
}

// An HTTPException (or any error carrying its own status) gets the code of
// its status when the catalogue has one.
function sendStatus(status: number, message: string): Response {
  const code = (Object.keys(CATALOGUE) as HttpErrorCode[]).find((key) =>
    CATALOGUE[key].status === status
  );
  return json(
    status,
    code ?? (status < 500 ? "BAD_REQUEST" : "INTERNAL"),
    message,
  );
}

function json(
  status: number,
  code: string,
  message: string,
  details?: unknown,
  headers?: Readonly<Record<string, string>>,
): Response {
  const body: ErrorBody = details === undefined
    ? { error: { code, message } }
    : { error: { code, message, details } };
  return new Response(JSON.stringify(body), {
    status,
    headers: { "Content-Type": "application/json", ...headers },
  });
}

// hono's HTTPException, recognised by shape: its class lives in a subpath
// (`hono/http-exception`) the import map does not expose.
function httpExceptionStatus(err: unknown): number | null {
  if (!(err instanceof Error)) return null;
  const candidate = err as Error & { status?: unknown; getResponse?: unknown };
  if (
    typeof candidate.getResponse === "function" &&
    Number.isInteger(candidate.status) &&
    (candidate.status as number) >= 400 &&
    (candidate.status as number) <= 599
  ) {
    return candidate.status as number;
  }
  return null;
}

function log(c: Context, err: unknown): void {
  console.error(`weir http: ${c.req.method} ${c.req.path} failed:`, err);
}
