/**
 * The local runtime: every subtask of a job as an actor in this process.
 *
 * @module
 */

export * from "./local_runtime.ts";
export * from "./local_job.ts";
