/**
 * Connectors: sources that read records into a job and sinks that write its
 * results. A {@linkcode CollectionSource} reads an array at once; a
 * {@linkcode ScriptedSource} replays records at exact processing times, for
 * tests of idleness and lateness; a {@linkcode KvLogSource} follows a durable
 * {@linkcode KvLog} in Deno KV. A {@linkcode CollectSink} keeps results in
 * memory and a {@linkcode ConsoleSink} prints them; a {@linkcode KvTableSink}
 * upserts them into a Deno KV table and a {@linkcode KvAppendSink} appends
 * them, both exactly once through a two-phase commit at checkpoints.
 *
 * @example Reading a collection into a collecting sink by hand
 * ```ts
 * import { CollectionSource, CollectSink } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const reader = new CollectionSource(["a", "b"]).createReader(0, 1);
 * const sink = new CollectSink<string>();
 * const writer = sink.createWriter(0, 1);
 * for (let batch = reader.poll(0, 10); batch; batch = reader.poll(0, 10)) {
 *   writer.write(batch.values, batch.timestamps);
 * }
 * assert.deepEqual(sink.values, ["a", "b"]);
 * ```
 *
 * @module
 */

export * from "./sources/collection.ts";
export * from "./sources/generator.ts";
export * from "./sources/scripted.ts";
export * from "./sources/kv_log.ts";
export * from "./sources/kv_log_source.ts";
export * from "./sinks/collect.ts";
export * from "./sinks/console.ts";
export * from "./sinks/kv_table.ts";
export * from "./sinks/kv_append.ts";
