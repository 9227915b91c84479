/**
 * What a job file receives: the environment, the KV store, and ingest
 * streams that the HTTP service fills.
 *
 * @module
 */

import { requireNonEmptyString } from "../time/validate.ts";
import { WatermarkStrategy } from "../time/mod.ts";
import { KvLog } from "../connectors/sources/kv_log.ts";
import { KvLogSource } from "../connectors/sources/kv_log_source.ts";
import type { DataStream } from "./data_stream.ts";
import {
  type IngestKeyOptions,
  type IngestKeyRule,
  resolveIngestKey,
} from "./ingest_key.ts";
import type { StreamEnvironment } from "./stream_environment.ts";

/** Options of {@linkcode JobContext.ingest}. */
export interface IngestOptions<T> {
  /** The record field holding the event timestamp (epoch ms), checked at ingest. */
  timestampField: string;
  /**
   * Partitions of the stream's log.
   * @default {2}
   */
  partitions?: number;
  /**
   * Which field holds the records' key, its JSON types, whether it is
   * required and its largest size: `POST /ingest/<name>` refuses records
   * whose key breaks the rule, so `keyBy` and the KV sinks can take every
   * key it accepts. A job that keys by the field should set
   * `required: true`: a keyless record is then refused at the door rather
   * than set aside by `keyBy`.
   * @default {{ field: "key", types: ["string", "number"], required: false, maxBytes: 1024 }}
   */
  key?: IngestKeyOptions;
  /**
   * Watermarks for the stream; timestamps come from `timestampField`.
   * @default {bounded out-of-orderness of 5 s with 30 s idleness}
   */
  strategy?: WatermarkStrategy<T>;
}

/** An ingest stream a job declared, for the HTTP service. */
export interface DeclaredStream {
  /** The stream's name: `POST /ingest/<name>`. */
  readonly name: string;
  /** Its durable log. */
  readonly log: KvLog<Record<string, unknown>>;
  /** The timestamp field. */
  readonly timestampField: string;
  /** The key rule ingest enforces. */
  readonly key: IngestKeyRule;
}

/**
 * The context a job file's default export is called with.
 *
 * @example A job file
 * ```ts ignore
 * import type { JobContext } from "@weir/weir";
 * import { TumblingEventTimeWindows } from "@weir/weir";
 *
 * export default function clicks({ env, ingest }: JobContext) {
 *   ingest<{ page: string; at: number }>("clicks", { timestampField: "at" })
 *     .keyBy((c) => c.page).window(TumblingEventTimeWindows.of(60_000))
 *     .aggregate({ createAccumulator: () => 0, add: (_c, n) => n + 1, getResult: (n) => n, merge: (a, b) => a + b });
 * }
 * ```
 */
export interface JobContext {
  /** The job's environment (name, clock, checkpoints are set by the command line). */
  readonly env: StreamEnvironment;
  /** The KV database of the store. */
  readonly kv: Deno.Kv;
  /**
   * A stream of the records posted to `POST /ingest/<name>`, read from a
   * durable log in KV (replayed from checkpoints, so nothing acknowledged is lost).
   */
  ingest<T>(name: string, options: IngestOptions<T>): DataStream<T>;
}

/**
 * The shape of a job file's default export.
 *
 * @param context The environment, KV and ingest streams.
 */
export type JobDefinition = (context: JobContext) => void | Promise<void>;

/**
 * Creates the context for a job file, collecting the streams it declares.
 *
 * @param env The environment.
 * @param kv The store's KV database.
 * @returns The context and the declared streams.
 */
export function createJobContext(
  env: StreamEnvironment,
  kv: Deno.Kv,
): { context: JobContext; streams: DeclaredStream[] } {
  const streams: DeclaredStream[] = [];
  const context: JobContext = {
    env,
    kv,
    ingest<T>(name: string, options: IngestOptions<T>): DataStream<T> {
      requireNonEmptyString(name, {
        action: "declare an ingest stream",
        param: "name",
      });
      const field = requireNonEmptyString(options.timestampField, {
        action: `declare ingest stream '${name}'`,
        param: "timestampField",
      });
      const key = resolveIngestKey(
        options.key,
        `declare ingest stream '${name}'`,
      );
      const log = new KvLog<Record<string, unknown>>(kv, name, {
        partitions: options.partitions ?? 2,
      });
      streams.push({ name, log, timestampField: field, key });
      const strategy = options.strategy ??
        WatermarkStrategy.forBoundedOutOfOrderness<T>(5_000).withIdleness(
          30_000,
        );
      return env.fromSource(
        new KvLogSource(log as unknown as KvLog<T>),
        strategy.withTimestampAssigner((record) =>
          (record as Record<string, unknown>)[field] as number
        ),
        `ingest:${name}`,
      );
    },
  };
  return { context, streams };
}
