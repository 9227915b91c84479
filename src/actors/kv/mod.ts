/**
 * The KV runtime: every subtask of a job as an actor
 * whose steps are atomic Deno KV commits, shared by processes or Deno
 * Deploy instances through leases.
 *
 * @module
 */

export * from "./kv_runtime.ts";
export * from "./kv_subtask_status.ts";
export * from "./kv_runtime_view.ts";
export * from "./lease.ts";
export * from "../../kv/retry.ts";
