// Shared by the ingest tests: an app with one stream on a fresh in-memory
// KV (or one the test wraps), and small request helpers.

import type { Hono } from "hono";
import { createApp } from "../../src/http/app.ts";
import type { IngestStream, ServiceOptions } from "../../src/http/service.ts";
import {
  KvLog,
  type KvLogOptions,
} from "../../src/connectors/sources/kv_log.ts";
import { ManualClock } from "../../src/time/clock.ts";

/** A record as posted. */
export type Json = Record<string, unknown>;

/** What an ingest test gets. */
export interface IngestFixture {
  /** The app, with the stream "clicks" (timestamp field "at"). */
  readonly app: Hono;
  /** The stream's log. */
  readonly log: KvLog<Json>;
  /** The database under the log, unwrapped. */
  readonly kv: Deno.Kv;
}

/** Options of {@linkcode ingestTest}. */
export interface IngestTestOptions extends Partial<ServiceOptions> {
  /** Partitions of the stream's log. */
  readonly partitions?: number;
  /** The stream's fields besides name, log and timestamp field. */
  readonly stream?: Partial<IngestStream>;
  /** Wraps the database the log writes to (to observe or fail commits). */
  readonly wrapKv?: (kv: Deno.Kv) => Deno.Kv;
  /** How the log retries. */
  readonly retry?: KvLogOptions["retry"];
}

/**
 * Runs `fn` against an app with one stream "clicks" (timestamp field "at")
 * on a fresh `:memory:` KV, closed afterwards; sanitizers on.
 */
export function ingestTest(
  name: string,
  fn: (fixture: IngestFixture) => Promise<void>,
  options: IngestTestOptions = {},
): void {
  Deno.test({
    name,
    sanitizeOps: true,
    sanitizeResources: true,
    async fn() {
      const kv = await Deno.openKv(":memory:");
      try {
        const log = new KvLog<Json>(options.wrapKv?.(kv) ?? kv, "clicks", {
          partitions: options.partitions ?? 1,
          retry: options.retry ?? { sleep: () => Promise.resolve() },
        });
        const streams = new Map([["clicks", {
          name: "clicks",
          log,
          timestampField: "at",
          ...options.stream,
        }]]);
        const app = createApp({
          jobs: new Map(),
          streams,
          clock: new ManualClock(0),
          ...options,
        });
        await fn({ app, log, kv });
      } finally {
        kv.close();
      }
    },
  });
}

/** `POST /ingest/clicks` with a JSON body and extra headers. */
export async function postJson(
  app: Hono,
  records: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return await app.request("/ingest/clicks", {
    method: "POST",
    headers: { "Content-Type": "application/json", ...headers },
    body: typeof records === "string" ? records : JSON.stringify(records),
  });
}

/** Every partition's records, values only. */
export async function readValues(log: KvLog<Json>): Promise<Json[][]> {
  const out: Json[][] = [];
  for (let p = 0; p < log.numPartitions; p++) {
    out.push((await log.read(p, 0, 100_000)).map((r) => r.value));
  }
  return out;
}

/** `error` of an error answer. */
export async function errorOf(res: Response): Promise<{
  code: string;
  message: string;
  details: {
    errors: { index: number; field: string | null; reason: string }[];
    errorCount: number;
  } & Record<string, unknown>;
}> {
  return (await res.json()).error;
}
