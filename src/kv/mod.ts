/**
 * Deno KV's storage format: its limits, its key encoding, values split into
 * parts over the value limit, and the packing of mutations into commits
 * under the limits, and the retry of calls that failed for a passing
 * reason. Actors' storages, the KV connectors and the http ingest size
 * and write their data with these, so that every writer agrees on what
 * fits. Imports only Deno's own `Deno.Kv` types.
 *
 * @example Sizing a key and packing writes into commits
 * ```ts
 * import { encodedKeySize, MAX_KEY_BYTES, packCommits } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * assert.ok(encodedKeySize(["weir", "job", 1]) <= MAX_KEY_BYTES);
 * const writes = Array.from({ length: 30 }, (_, i) => ({ key: ["t", i], value: new Uint8Array(60_000) }));
 * const commits = packCommits(writes);
 * assert.deepEqual(commits.map((c) => c.length), [13, 13, 4]);
 * ```
 *
 * @module
 */

export * from "./limits.ts";
export * from "./utf8_length.ts";
export * from "./key_encoding.ts";
export * from "./atomic_conflict_error.ts";
export * from "./kv_write.ts";
export * from "./commit_cost.ts";
export * from "./pack_commits.ts";
export * from "./chunks.ts";
export * from "./commit_plan.ts";
export * from "./retry.ts";
