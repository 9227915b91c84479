// The `Idempotency-Key` request header (IETF
// draft-ietf-httpapi-idempotency-key-header): its syntax, the fingerprint
// of a request's body, and what is kept with a key so that a repeat gets
// the first answer again.
//
// The key itself is kept by the log (KvLog's append id), in the same
// commit as the batch, so there is no "in progress" state: a repeat that
// arrives while the first request is still appending waits for it (same
// process) or loses the commit race to it (another process), and then is
// answered as a repeat. The draft's 409 for concurrent requests is
// therefore never needed.

import { describe, type Format } from "./_ingest_body.ts";
import { HttpError } from "./errors.ts";

/** How long a key is kept by default: 24 hours, in milliseconds. */
export const DEFAULT_IDEMPOTENCY_TTL_MS = 86_400_000;
/** The longest key, in characters. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

// An sf-string (RFC 8941 §3.3.3): printable ASCII in quotes, with `\"`
// and `\\` the only escapes; or, as most clients send it, the bare key.
const SF_STRING = /^"((?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\["\\])*)"$/;
const BARE = /^[\x21\x23-\x2b\x2d-\x5b\x5d-\x7e]+$/;
const encoder = new TextEncoder();

/** What is kept with a key: enough to tell a repeat from a reuse, and answer it. */
export interface IngestMemo {
  /** SHA-256 of the format and the body's bytes, hex. */
  readonly digest: string;
  /** How many records the first request appended. */
  readonly accepted: number;
  /**
   * Where they went: `[partition, firstOffset, lastOffset]` per partition,
   * compact so that even hundreds of partitions fit one KV value.
   */
  readonly offsets: readonly (readonly [number, number, number])[];
  /** How many warnings the first answer had. */
  readonly warningCount: number;
}

/**
 * The request's idempotency key, or `null` without the header.
 *
 * @throws {HttpError} 400 `BAD_REQUEST` if it is empty, longer than 255
 * characters, not printable ASCII, or more than one key.
 */
export function parseIdempotencyKey(
  header: string | undefined,
  action: string,
): string | null {
  if (header === undefined) return null;
  const text = header.trim();
  const quoted = SF_STRING.exec(text);
  const key = quoted !== null
    ? quoted[1].replace(/\\(["\\])/g, "$1")
    : BARE.test(text)
    ? text
    : null;
  if (key === null || key === "" || key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    throw new HttpError(
      "BAD_REQUEST",
      `Cannot ${action} as 'Idempotency-Key' must be one key of 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} printable ASCII characters, bare or as a quoted string (e.g. a UUID): current value is ${
        describe(header)
      }`,
    );
  }
  return key;
}

/** The fingerprint of a request: SHA-256 over its format and body, hex. */
export async function bodyDigest(
  format: Format,
  bytes: Uint8Array,
): Promise<string> {
  const prefix = encoder.encode(`${format}\n`);
  const all = new Uint8Array(prefix.length + bytes.length);
  all.set(prefix);
  all.set(bytes, prefix.length);
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", all));
  return Array.from(hash, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * The answer to a repeat: the first answer's counts and offsets, with
 * `appended: 0` and `duplicate: true`.
 *
 * @throws {HttpError} 422 `IDEMPOTENCY_KEY_REUSED` if the key came with
 * another body.
 */
export function replayAnswer(
  memo: unknown,
  digest: string,
  context: { key: string; ttlMs: number; action: string },
): Record<string, unknown> {
  const kept = readMemo(memo);
  if (kept.digest !== digest) {
    throw new HttpError(
      "IDEMPOTENCY_KEY_REUSED",
      `Cannot ${context.action} as the 'Idempotency-Key' ${
        describe(context.key)
      } was used for another body within the last ${
        wholeUnitDuration(context.ttlMs)
      }: a key stands for one batch; send this batch with a new key`,
      { details: { idempotencyKey: context.key } },
    );
  }
  return {
    accepted: kept.accepted,
    appended: 0,
    duplicate: true,
    offsets: kept.offsets.map(([partition, firstOffset, lastOffset]) => ({
      partition,
      firstOffset,
      lastOffset,
    })),
    // The first answer listed them; a repeat only counts them.
    warnings: [],
    warningCount: kept.warningCount,
  };
}

function readMemo(memo: unknown): IngestMemo {
  const m = memo as Partial<IngestMemo> | null;
  if (
    typeof m?.digest !== "string" || !Number.isSafeInteger(m.accepted) ||
    !Array.isArray(m.offsets) || !Number.isSafeInteger(m.warningCount)
  ) {
    throw new TypeError(
      `Cannot replay an ingest answer as the kept memo must be { digest, accepted, offsets, warningCount }: current value is ${
        JSON.stringify(memo)?.slice(0, 200)
      }`,
    );
  }
  return m as IngestMemo;
}

// A TTL in the largest unit that divides it exactly ("24 h", "5 min",
// "1500 ms"): a setting the user chose, so shown as written, not rounded
// as observe/format.ts's formatDuration rounds measured times.
function wholeUnitDuration(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  return `${ms} ms`;
}
