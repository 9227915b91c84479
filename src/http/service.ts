/**
 * What the HTTP app serves: running jobs and ingest streams.
 *
 * @module
 */

import type { KvLog } from "../connectors/sources/kv_log.ts";
import type { IngestKeyOptions } from "../api/ingest_key.ts";
import type { JobHandle } from "../observe/job_handle.ts";
import type { Clock } from "../time/mod.ts";

/** A stream that `POST /ingest/:stream` appends to. */
export interface IngestStream {
  /** The stream's name, as in the URL. */
  readonly name: string;
  /** The durable log the records are appended to. */
  readonly log: KvLog<Record<string, unknown>>;
  /** The field of each record that holds its event timestamp (epoch ms). */
  readonly timestampField: string;
  /**
   * Which field holds each record's key, its JSON types, whether it is
   * required and its largest size (see `IngestKeyOptions`).
   * @default {{ field: "key", types: ["string", "number"], required: false, maxBytes: 1024 }}
   */
  readonly key?: IngestKeyOptions;
}

/** Everything the HTTP app needs. */
export interface ServiceOptions {
  /** Running jobs by name. */
  readonly jobs: ReadonlyMap<string, JobHandle>;
  /** Ingest streams by name. */
  readonly streams: ReadonlyMap<string, IngestStream>;
  /**
   * When set, ingest and every write or admin endpoint require
   * `Authorization: Bearer <token>`.
   * @default {undefined}
   */
  readonly token?: string;
  /**
   * The largest request body accepted, in bytes (413 above).
   * @default {1048576}
   */
  readonly maxBodyBytes?: number;
  /**
   * How long reading one ingest body may take in all, in milliseconds:
   * a body that stalls or trickles past it gets 408 and nothing is
   * appended.
   * @default {30000}
   */
  readonly bodyTimeoutMs?: number;
  /**
   * How long an ingest `Idempotency-Key` is kept, in milliseconds: a batch
   * sent again with the same key within it is appended once. Deno KV
   * deletes a key at the earliest then, so it may be kept a little longer.
   * @default {86400000}
   */
  readonly idempotencyTtlMs?: number;
  /**
   * When set, only requests whose `Host` (host and port, as the URL has
   * it) is one of these are served; others get 403. The command line sets
   * it to the loopback names while it serves on a loopback address without
   * a token: a page on another site cannot then reach the service through
   * DNS rebinding.
   * @default {undefined}
   */
  readonly allowedHosts?: readonly string[];
  /** Processing time. */
  readonly clock: Clock;
  /**
   * One round of work of the process's KV-runtime worker, for
   * `POST /tick` (tests, manual runs, a scheduler's backstop); without it
   * the route answers 404.
   */
  readonly tick?: () => Promise<boolean>;
}
