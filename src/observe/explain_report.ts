/**
 * What `explain` answers: the query ({@linkcode ExplainQuery}) and the
 * report ({@linkcode ExplainReport}) of why a window has not fired, per
 * subtask and per input channel.
 *
 * @module
 */

import type { DiagnosableJob } from "./diagnosis/diagnosis.ts";

/** What to explain. */
export interface ExplainQuery {
  /** The operator (vertex id) whose window it is. */
  readonly operator: string;
  /** The window's start, epoch milliseconds. */
  readonly windowStart: number;
  /** The window's end (exclusive), or `null` if unknown. */
  readonly windowEnd: number | null;
  /** The key whose subtask to look at; `undefined` for every subtask. */
  readonly key?: string | number | boolean;
  /** How long a channel must stand still to be called stalled, in ms. */
  readonly stallMs: number;
  /** The current processing time. */
  readonly now: number;
}

/** One input channel of an explained subtask. */
export interface ExplainedChannel {
  /** The channel number. */
  readonly channel: number;
  /** The upstream subtask feeding it. */
  readonly upstream: string;
  /** Its last watermark. */
  readonly watermark: number;
  /** Whether it is idle (left out of the minimum). */
  readonly idle: boolean;
  /** When its watermark last moved, or `null` if never seen moving. */
  readonly lastMovedAt: number | null;
  /** How long it has stood still, as far as the samples tell; `null` if unknown. */
  readonly stalledForMs: number | null;
}

/** The diagnosis of one subtask of the window operator. */
export interface ExplainedSubtask {
  /** The actor id. */
  readonly id: string;
  /** The subtask index. */
  readonly subtask: number;
  /** The merged input watermark. */
  readonly inputWatermark: number;
  /** `window.maxTimestamp - inputWatermark`, or `null` if the end is unknown. */
  readonly behindMs: number | null;
  /** Whether the watermark passed the window's maxTimestamp; `null` if unknown. */
  readonly fired: boolean | null;
  /** Whether every input channel is idle. */
  readonly idle: boolean;
  /** Whether the subtask is paused by back-pressure or alignment. */
  readonly paused: boolean;
  /** Elements waiting in its mailbox. */
  readonly mailboxDepth: number;
  /** Records dropped as late by the window operator. */
  readonly lateRecordsDropped: number;
  /** Its input channels. */
  readonly channels: readonly ExplainedChannel[];
  /** The active channel with the lowest watermark, which holds event time. */
  readonly minimum: ExplainedChannel | null;
  /** The subtasks upstream of the minimum, nearest first, to the source. */
  readonly heldBy: readonly string[];
  /** What would let the watermark advance, in plain language. */
  readonly advice: readonly string[];
}

/** The answer of `explain`. */
export interface ExplainReport {
  /** The job. */
  readonly job: string;
  /** The operator. */
  readonly operator: string;
  /** The window, with `maxTimestamp = end - 1`. */
  readonly window: {
    readonly start: number;
    readonly end: number | null;
    readonly maxTimestamp: number | null;
  };
  /** The key asked for, or `null`. */
  readonly key: string | number | boolean | null;
  /** The key's key group, or `null`. */
  readonly keyGroup: number | null;
  /** Whether every explained subtask's watermark passed maxTimestamp; `null` if unknown. */
  readonly fired: boolean | null;
  /** The subtasks looked at: the key's, or all. */
  readonly subtasks: readonly ExplainedSubtask[];
  /** Every subtask's advice, without repeats. */
  readonly advice: readonly string[];
}

/**
 * A job as `explain` reads it: a {@linkcode DiagnosableJob}, which may also
 * name the partitions a source subtask reads (`LocalJobHandle` does).
 */
export type ExplainableJob = DiagnosableJob;
