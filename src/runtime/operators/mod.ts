/**
 * The operators a subtask chains: timestamps and watermarks, the stateless
 * record functions, the keyed process operator (per-key state and timers),
 * the window operator and the sink. Each implements
 * {@linkcode StreamOperator}: batches in, batches out, and every watermark
 * after everything it caused. Pure: no I/O.
 *
 * @module
 */

export * from "./timestamps_and_watermarks.ts";
export * from "./map.ts";
export * from "./filter.ts";
export * from "./flat_map.ts";
export * from "./process.ts";
export * from "./keyed_process.ts";
export * from "./window.ts";
export * from "./sink.ts";
export * from "./async_wait.ts";
