/**
 * weir: an event-time stream processor for Deno, with Flink's watermark
 * and window semantics. This is the public entry; each name below is part of the
 * stable contract of DESIGN.md, or a generator, option or snapshot type that
 * a contract name takes or returns.
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

export {
  // time: constants, outputs, generators
  type AdaptiveOutOfOrdernessOptions,
  type AdaptiveOutOfOrdernessSnapshot,
  AdaptiveOutOfOrdernessWatermarks,
  AscendingTimestampsWatermarks,
  type AutoTunedOutOfOrdernessOptions,
  type AutoTunedOutOfOrdernessSnapshot,
  AutoTunedOutOfOrdernessWatermarks,
  type AutoTuneStep,
  type BoundedOutOfOrdernessSnapshot,
  BoundedOutOfOrdernessWatermarks,
  type CheckpointedWatermarkGenerator,
  // time: clocks
  type Clock,
  type IdlenessTimerSnapshot,
  LatenessHistogram,
  type LatenessHistogramSnapshot,
  ManualClock,
  MAX_TIMESTAMP,
  MAX_WATERMARK,
  type MetricGroup,
  MIN_TIMESTAMP,
  MIN_WATERMARK,
  NoWatermarksGenerator,
  PausableClock,
  type PausableClockSnapshot,
  PunctuatedWatermarks,
  recordTimestampAssigner,
  // time: merging inputs
  StatusWatermarkValve,
  type StatusWatermarkValveOptions,
  SystemClock,
  TimeLagWatermarks,
  type TimestampAssigner,
  type ValveSnapshot,
  type WatermarkAlignmentParams,
  type WatermarkCombinePolicy,
  WatermarkEmitter,
  type WatermarkEmitterSnapshot,
  type WatermarkExtractor,
  type WatermarkGenerator,
  type WatermarkGeneratorContext,
  type WatermarkGeneratorFactory,
  type WatermarkOutput,
  WatermarkOutputMultiplexer,
  type WatermarkOutputMultiplexerSnapshot,
  type WatermarkStatus,
  type WatermarkStatusOutput,
  WatermarkStrategy,
  type WatermarkStrategyOptions,
  WatermarksWithIdleness,
  type WatermarksWithIdlenessSnapshot,
} from "./time/mod.ts";

export {
  type AggregateFunction,
  CountTrigger,
  EarlyFiringTrigger,
  EventTimeSessionWindows,
  EventTimeTrigger,
  GlobalWindows,
  type MergeCallback,
  mergeWindows,
  NeverTrigger,
  type OnMergeContext,
  OutputTag,
  ProcessingTimeTrigger,
  type ProcessWindowContext,
  type ProcessWindowFunction,
  PurgingTrigger,
  type ReduceFunction,
  SlidingEventTimeWindows,
  TimeWindow,
  type Trigger,
  type TriggerContext,
  type TriggerResult,
  TumblingEventTimeWindows,
  type TumblingEventTimeWindowsOptions,
  TumblingProcessingTimeWindows,
  type WindowAssigner,
  type WindowAssignerContext,
  type WindowStagger,
} from "./windows/mod.ts";

export {
  createJobContext,
  DataStream,
  type DeclaredStream,
  type ExecuteOptions,
  type IngestKeyOptions,
  type IngestKeyRule,
  type IngestKeyType,
  type IngestOptions,
  type JobContext,
  type JobDefinition,
  type JobSettings,
  KeyedStream,
  StreamEnvironment,
  type StreamEnvironmentOptions,
  WindowedStream,
} from "./api/mod.ts";

export {
  type ChannelSend,
  CheckpointMismatchError,
  type CheckpointMismatchErrorOptions,
  type DeadLetter,
  type ErrorPolicy,
  fingerprintOf,
  type InputChannelStatus,
  type JobEdge,
  type JobFingerprint,
  type JobGraph,
  type JobVertex,
  type KeyedProcessContext,
  type KeyedProcessFunction,
  type KeyedTimerContext,
  type OperatorContext,
  type OperatorDescriptor,
  type OperatorFingerprint,
  type OperatorOutput,
  type Partitioner,
  type ProcessContext,
  type ProcessFunction,
  RecordFailedError,
  type RejectRecord,
  type Sink,
  type SinkWriter,
  type SnapshotOptions,
  type Source,
  type SourceBatch,
  type SourceReader,
  type SourceRestoreOptions,
  type SourceSpec,
  type StateKind,
  type StreamOperator,
} from "./runtime/mod.ts";

export {
  type LocalJob,
  type LocalJobOptions,
  type LocalRuntime,
  type LocalRuntimeOptions,
} from "./actors/local/mod.ts";

export {
  type ActorRuntime,
  type RuntimeOptions,
  type RuntimeView,
  type SubtaskStatus,
} from "./actors/actor_runtime.ts";

export {
  KvRuntime,
  type KvRuntimeOptions,
  KvRuntimeView,
  type KvSubtaskStatus,
  type LeaseRecord,
} from "./actors/kv/mod.ts";

export { PersistentKvError } from "./kv/mod.ts";

export {
  type CollectedRecord,
  CollectionSource,
  type CollectionSourceOptions,
  CollectSink,
  ConsoleSink,
  type ConsoleSinkOptions,
  GeneratorSource,
  type GeneratorSourceOptions,
  ScriptedSource,
  type ScriptedSourceOptions,
  type ScriptStep,
} from "./connectors/mod.ts";

export {
  type ActorFailure,
  type ActorStorage,
  AtomicConflictError,
  type CheckpointInfo,
  CheckpointStore,
  type CheckpointStoreOptions,
  type CompletedCheckpoint,
  DeadLetterLog,
  type KvAtomicOptions,
  KvStorage,
  type ListOptions,
  MemoryStorage,
  type StorageKey,
  type StorageKeyPart,
  type StorageOp,
  type UnreadableCheckpoint,
  UnreadableCheckpointsError,
} from "./actors/mod.ts";

export {
  type AppendAllOptions,
  type AppendAllResult,
  type AppendedRecord,
  type AppendOnce,
  type AppendRecord,
  type AppendResult,
  KvAppendSink,
  KvLog,
  type KvLogOptions,
  type KvLogReader,
  type KvLogRetryOptions,
  KvLogSource,
  type KvLogSourceOptions,
  KvTableSink,
  type KvTableSinkOptions,
  type LogRecord,
  type PartitionOffsets,
  type PartitionRecords,
  readAppendLog,
  readTable,
  waitForSources,
} from "./connectors/mod.ts";

export {
  type AsyncContext,
  type AsyncFunction,
  type AsyncWaitOptions,
} from "./runtime/operators/async_wait.ts";

export { SegmentedQueue, type SegmentedQueueSnapshot } from "./async/mod.ts";
