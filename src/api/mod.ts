/**
 * The DataStream API: build a job from sources, operators, keyed windows and
 * sinks, then run it.
 *
 * @example A keyed tumbling window
 * ```ts
 * import { ManualClock } from "../time/mod.ts";
 * import { TumblingEventTimeWindows } from "../windows/mod.ts";
 * import { StreamEnvironment } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const env = new StreamEnvironment({ jobName: "sum", clock: new ManualClock() });
 * const sums = env.fromCollection([1, 2, 3], { timestampOf: (n) => n * 1_000 })
 *   .keyBy(() => "all").window(TumblingEventTimeWindows.of(10_000)).reduce((a, b) => a + b);
 * assert.deepEqual(await env.executeAndCollect(sums), [6]);
 * ```
 *
 * @module
 */

export * from "./stream_environment.ts";
export * from "./data_stream.ts";
export * from "./keyed_stream.ts";
export * from "./windowed_stream.ts";
export * from "./ingest_key.ts";
export * from "./job_context.ts";
export * from "./job_settings.ts";
