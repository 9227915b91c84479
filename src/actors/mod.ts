/**
 * Durable actors: the layer where I/O starts. An {@linkcode ActorHost} runs
 * one {@linkcode Actor} (an operator subtask) with a mailbox processed one
 * message at a time, a persisted alarm and its own {@linkcode ActorStorage}:
 * {@linkcode MemoryStorage} in tests, {@linkcode KvStorage} over Deno KV
 * (values of several MB are chunked; a batch is all-or-nothing).
 *
 * @example An actor that keeps a running sum in storage
 * ```ts
 * import { ActorHost, MemoryStorage } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const storage = new MemoryStorage();
 * const host = new ActorHost<number>((host) => ({
 *   id: "job/sum/0",
 *   async receive(n) {
 *     const sum = (await host.storage.get<number>(["sum"])) ?? 0;
 *     await host.storage.put(["sum"], sum + n);
 *   },
 * }), { storage });
 * [1, 2, 3].forEach((n) => host.deliver(n));
 * await host.drain();
 * assert.equal(await storage.get(["sum"]), 6);
 * ```
 *
 * @module
 */

// The actor abstraction and its storage port.
export * from "./storage.ts";
export * from "./actor.ts";

// Storage backends.
export * from "./local/memory_storage.ts";
export * from "./kv/kv_storage.ts";

// Where a job keeps its state in a store.
export * from "./job_keys.ts";

// Completed checkpoints of a job, over its storage.
export * from "./checkpoint_store.ts";
export * from "./dead_letter_log.ts";
export * from "./actor_failure.ts";
export * from "./unreadable_checkpoints_error.ts";

// Runtimes: the local runtime (./local/) and the KV runtime (./kv/).
export * from "./local/mod.ts";
export * from "./kv/mod.ts";
