// Reading and parsing an ingest body: its media type, its size (declared
// and actual), a deadline for the whole read, UTF-8, and JSON or NDJSON.
// Each refusal is an HttpError the client can act on.

import { describeInput as describe } from "../connectors/sources/ingest_records.ts";
import { HttpError } from "./errors.ts";

// One rendering of a client's value, the records' checks' own.
export { describe };

/** The body's format, from its media type. */
export type Format = "json" | "ndjson";

/**
 * An error list is capped so a 1 MiB body of tiny bad records cannot make a
 * response many times its size; `errorCount` still counts them all.
 */
export const MAX_LISTED = 1_000;

const FORMATS: Readonly<Record<string, Format>> = {
  "application/json": "json",
  "application/x-ndjson": "ndjson",
};

/** The records of a body, and for NDJSON each one's line (from 1). */
export interface Parsed {
  /** The values, in order. */
  readonly values: unknown[];
  /** For NDJSON, each value's line, from 1; `null` for JSON. */
  readonly lines: number[] | null;
}

/** The format of a `Content-Type`; 415 for any other type or charset. */
export function formatOf(header: string | undefined, action: string): Format {
  const [type, ...params] = (header ?? "").split(";");
  const format = FORMATS[type.trim().toLowerCase()];
  const charset = params.map((param) => param.trim().toLowerCase())
    .find((param) => param.startsWith("charset="))
    ?.slice("charset=".length).replace(/^"(.*)"$/, "$1");
  if (
    format === undefined ||
    (charset !== undefined && charset !== "utf-8" && charset !== "utf8")
  ) {
    throw new HttpError(
      "UNSUPPORTED_MEDIA_TYPE",
      `Cannot ${action} as 'Content-Type' must be application/json or application/x-ndjson in UTF-8: current value is ${
        header === undefined ? "missing" : describe(header)
      }`,
    );
  }
  return format;
}

/** Refuses a `Content-Length` that is not a number, or over `max` (413). */
export function checkDeclaredLength(
  header: string | undefined,
  max: number,
  action: string,
): void {
  if (header === undefined) return;
  if (!/^\s*\d+\s*$/.test(header)) {
    throw new HttpError(
      "BAD_REQUEST",
      `Cannot ${action} as 'Content-Length' must be a non-negative integer: current value is ${
        describe(header)
      }`,
    );
  }
  if (Number(header) > max) throw tooLarge(action, max, Number(header));
}

/** Options of {@linkcode readBody}. */
export interface ReadBodyOptions {
  /** The most bytes read; 413 past them. */
  readonly maxBytes: number;
  /** The whole read's deadline in milliseconds; 408 past it. */
  readonly timeoutMs: number;
  /** What is being done, for messages. */
  readonly action: string;
}

/**
 * Reads the body's bytes, giving up as soon as it passes `maxBytes` (413),
 * or when the whole read takes over `timeoutMs` (408: a client that stalls,
 * or trickles a byte at a time, must not hold a request open for ever).
 * Either way the body is cancelled, and nothing was appended.
 */
export async function readBody(
  body: ReadableStream<Uint8Array> | null,
  options: ReadBodyOptions,
): Promise<Uint8Array> {
  if (body === null) return new Uint8Array(0);
  const { maxBytes, timeoutMs, action } = options;
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = body.getReader();
  let timedOut = false;
  // Cancelling settles a pending read, so a stalled body ends the loop.
  const timer = setTimeout(() => {
    timedOut = true;
    reader.cancel().catch(() => {});
  }, timeoutMs);
  try {
    while (true) {
      let step: ReadableStreamReadResult<Uint8Array>;
      try {
        step = await reader.read();
      } catch (error) {
        if (timedOut) throw timeout(action, timeoutMs, size);
        throw error;
      }
      if (timedOut) throw timeout(action, timeoutMs, size);
      if (step.done) break;
      size += step.value.byteLength;
      if (size > maxBytes) {
        await reader.cancel();
        throw tooLarge(action, maxBytes, `over ${maxBytes}`);
      }
      chunks.push(step.value);
    }
  } finally {
    clearTimeout(timer);
    reader.releaseLock();
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}

/** The body as text; 400 `MALFORMED_BODY` for bytes that are not UTF-8. */
export function decodeUtf8(bytes: Uint8Array, action: string): string {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch (error) {
    throw new HttpError(
      "MALFORMED_BODY",
      `Cannot ${action} as the body must be UTF-8: it holds an invalid byte sequence`,
      { cause: error },
    );
  }
}

/** A JSON array of records; 400 naming where the JSON breaks. */
export function parseJson(text: string, action: string): Parsed {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const reason = (error as Error).message;
    const position = /at position (\d+)/.exec(reason);
    throw new HttpError(
      "MALFORMED_BODY",
      `Cannot ${action} as the body must be valid JSON: ${reason}`,
      { details: position ? locate(text, Number(position[1])) : undefined },
    );
  }
  if (!Array.isArray(value)) {
    throw new HttpError(
      "BAD_REQUEST",
      `Cannot ${action} as the JSON body must be an array of records: current value is ${
        describe(value)
      }; wrap a single record in [ ]`,
    );
  }
  return { values: value, lines: null };
}

/** One JSON value per non-blank line; 400 listing every bad line. */
export function parseNdjson(text: string, action: string): Parsed {
  const values: unknown[] = [];
  const lines: number[] = [];
  const errors: { line: number; reason: string }[] = [];
  text.split("\n").forEach((raw, i) => {
    if (raw.trim() === "") return;
    try {
      values.push(JSON.parse(raw));
      lines.push(i + 1);
    } catch (error) {
      errors.push({ line: i + 1, reason: (error as Error).message });
    }
  });
  if (errors.length > 0) {
    const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : "";
    throw new HttpError(
      "MALFORMED_BODY",
      `Cannot ${action} as line ${
        errors[0].line
      } of the NDJSON body must be one JSON value${more}: ${errors[0].reason}`,
      {
        details: {
          errors: errors.slice(0, MAX_LISTED),
          errorCount: errors.length,
        },
      },
    );
  }
  return { values, lines };
}

function locate(text: string, position: number) {
  const before = text.slice(0, position).split("\n");
  return { position, line: before.length, column: before.at(-1)!.length + 1 };
}

function tooLarge(action: string, max: number, size: number | string) {
  return new HttpError(
    "PAYLOAD_TOO_LARGE",
    `Cannot ${action} as the body must be at most ${max} bytes: current size is ${size} bytes; split it into smaller batches`,
    { details: { maxBodyBytes: max } },
  );
}

function timeout(action: string, timeoutMs: number, read: number) {
  return new HttpError(
    "REQUEST_TIMEOUT",
    `Cannot ${action} as the body must arrive within ${timeoutMs} ms: ${read} bytes came in time; nothing was appended, send it again`,
    // RFC 9110: a server that times a request out closes the connection.
    { details: { bodyTimeoutMs: timeoutMs }, headers: { Connection: "close" } },
  );
}
