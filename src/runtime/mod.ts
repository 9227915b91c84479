/**
 * The runtime's pure core: stream elements, partitioners and key groups, the
 * operator-subtask state machine, source and sink contracts, and the job
 * graph. Driven by the actor runtimes; no I/O.
 *
 * @module
 */

export * from "./stream_element.ts";
export * from "./stream_operator.ts";
export {
  type DeadLetter,
  ERROR_POLICIES,
  type ErrorPolicy,
  RecordFailedError,
} from "./dead_letter.ts";
export * from "./key_groups.ts";
export * from "./partitioner.ts";
export * from "./source.ts";
export * from "./sink.ts";
export * from "./subtask.ts";
export * from "./source_subtask.ts";
export * from "./stateless_operator.ts";
export * from "./pass_through.ts";
export * from "./job_graph.ts";
export * from "./fingerprint.ts";
export * from "./operators/mod.ts";
export * from "./rescale/mod.ts";
