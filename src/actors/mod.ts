/**
 * Durable actors: the layer where I/O starts. Every subtask of a job is an
 * actor with its own {@linkcode ActorStorage}: {@linkcode MemoryStorage} in
 * tests, {@linkcode KvStorage} over Deno KV (values of several MB are
 * chunked; a batch is all-or-nothing). Two runtimes implement
 * {@linkcode ActorRuntime}: the local runtime (mailboxes in memory) and the
 * KV runtime (channel logs and leases in Deno KV).
 *
 * @example An actor's storage: a batch is all-or-nothing
 * ```ts
 * import { MemoryStorage } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const storage = new MemoryStorage();
 * await storage.atomic([{ type: "put", key: ["sum"], value: 6 }]);
 * assert.equal(await storage.get(["sum"]), 6);
 * ```
 *
 * @module
 */

// The storage port.
export * from "./storage.ts";

// Storage backends.
export * from "./local/memory_storage.ts";
export * from "./kv/kv_storage.ts";

// Where a job keeps its state in a store.
export * from "./job_keys.ts";

// Completed checkpoints of a job, over its storage.
export * from "./checkpoint.ts";
export * from "./checkpoint_store.ts";
export * from "./dead_letter_log.ts";
export * from "./actor_failure.ts";
export * from "./unreadable_checkpoints_error.ts";

// The contract both runtimes implement.
export * from "./actor_runtime.ts";

// Runtimes: the local runtime (./local/) and the KV runtime (./kv/).
export * from "./local/mod.ts";
export * from "./kv/mod.ts";
