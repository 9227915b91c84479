/**
 * Connectors: sources that read records into a job and sinks that write its
 * results. A {@linkcode CollectionSource} reads an array at once; a
 * {@linkcode ScriptedSource} replays records at exact processing times, for
 * tests of idleness and lateness; a {@linkcode CollectSink} keeps results in
 * memory and a {@linkcode ConsoleSink} prints them.
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
export * from "./sources/scripted.ts";
export * from "./sinks/collect.ts";
export * from "./sinks/console.ts";
