/**
 * weir: an event-time stream processor for Deno, with Flink's watermark
 * and window semantics. This is the public entry: the names a job is written
 * with (environment, streams, watermark strategies, windows, triggers, the
 * built-in sources and sinks, clocks, the errors a caller handles) and the
 * types their signatures take or return. Everything else is reached through
 * a folder's own entry (the runtimes, the HTTP service, observability, the
 * generators' and operators' internals), so this list stays the stable
 * contract.
 *
 * @example A strategy for records with a timestamp field
 * ```ts
 * import { WatermarkStrategy } from "@weir/weir";
 * import assert from "node:assert/strict";
 *
 * const strategy = WatermarkStrategy.forBoundedOutOfOrderness<{ at: number }>(5_000)
 *   .withTimestampAssigner((event) => event.at)
 *   .withIdleness(60_000);
 * assert.equal(strategy.idleTimeoutMs, 60_000);
 * ```
 *
 * @module
 */

// The names a job is written with (the contract: names and behaviours stay;
// signatures may add optional parameters).

export {
  AdaptiveOutOfOrdernessWatermarks,
  AscendingTimestampsWatermarks,
  BoundedOutOfOrdernessWatermarks,
  type Clock,
  ManualClock,
  MAX_WATERMARK,
  MIN_WATERMARK,
  StatusWatermarkValve,
  SystemClock,
  type WatermarkGenerator,
  type WatermarkOutput,
  WatermarkOutputMultiplexer,
  type WatermarkStatus,
  WatermarkStrategy,
  WatermarksWithIdleness,
} from "./time/mod.ts";

export {
  type AggregateFunction,
  CountTrigger,
  EventTimeSessionWindows,
  EventTimeTrigger,
  OutputTag,
  type ProcessWindowFunction,
  PurgingTrigger,
  type ReduceFunction,
  SlidingEventTimeWindows,
  TimeWindow,
  type Trigger,
  TumblingEventTimeWindows,
} from "./windows/mod.ts";

export { SegmentedQueue } from "./async/mod.ts";

export {
  createJobContext,
  DataStream,
  type JobContext,
  type JobSettings,
  KeyedStream,
  StreamEnvironment,
  WindowedStream,
} from "./api/mod.ts";

export {
  CheckpointMismatchError,
  type KeyedProcessFunction,
  RecordFailedError,
  type Sink,
  type SinkWriter,
  type Source,
  type SourceBatch,
  type SourceReader,
} from "./runtime/mod.ts";

export { KvStorage, UnreadableCheckpointsError } from "./actors/mod.ts";

export {
  CollectionSource,
  CollectSink,
  ConsoleSink,
  GeneratorSource,
  KvAppendSink,
  KvLog,
  KvLogSource,
  KvTableSink,
  ScriptedSource,
} from "./connectors/mod.ts";

// Types a job file names in its settings and ingest declarations.
export type {
  DeclaredStream,
  ExecuteOptions,
  IngestKeyOptions,
  IngestKeyRule,
  IngestKeyType,
  IngestOptions,
} from "./api/mod.ts";
