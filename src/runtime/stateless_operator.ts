// The operator without state or timers that the record functions (map,
// filter, flat map, sink) and the source subtask's pass-through head share.
// It lives at the top of runtime/ rather than in operators/ because
// pass_through.ts, here, needs it as well (`_` files stay
// inside their folder and are never re-exported).

import type { WatermarkStatus } from "../time/mod.ts";
import type {
  OperatorContext,
  OperatorOutput,
  RejectRecord,
  StreamOperator,
} from "./stream_operator.ts";
import { rethrowRecord } from "./_record_guard.ts";
import type { StateKind } from "./rescale/state_kind.ts";

/**
 * Turns one input batch into what it emits: called once per batch, with the
 * operator's output and the subtask's `reject` (see
 * `OperatorContext.reject`; it rethrows outside a subtask), to which a
 * record whose user function throws goes, with its index. The arrays are
 * shared with the caller and must not be modified; they may be emitted as
 * they are, since emitted arrays are never modified either.
 *
 * @typeParam IN The input record type.
 * @typeParam OUT The output record type.
 */
export type BatchFunction<IN, OUT> = (
  values: readonly IN[],
  timestamps: readonly number[],
  output: OperatorOutput<OUT>,
  reject: RejectRecord,
) => void;

/**
 * An operator that runs a {@linkcode BatchFunction} over every batch and
 * nothing else: it keeps the output in `open`, forwards watermarks and
 * statuses as they come, has no processing-time work (`nextProcessingTime`
 * is `Infinity`), does nothing in `finish`, and has no state (the snapshot
 * is `null`).
 *
 * Subclasses are the same operator with a fixed batch function (a
 * subclass, not a flag); they validate their own argument and may override `finish`.
 *
 * @typeParam IN The input record type.
 * @typeParam OUT The output record type.
 */
export class StatelessOperator<IN, OUT> implements StreamOperator<IN, OUT> {
  /** How a rescale splits its state: it has none. */
  static readonly stateKind: StateKind = "stateless";

  /** Replayed records may run through it again: it keeps no state. */
  readonly replayRole = "pass";
  readonly #batch: BatchFunction<IN, OUT>;
  #output: OperatorOutput<OUT> | null = null;
  #reject: RejectRecord = rethrowRecord;

  /**
   * Creates the operator.
   *
   * @param batch Handles one batch; trusted to be a function.
   */
  constructor(batch: BatchFunction<IN, OUT>) {
    this.#batch = batch;
  }

  /**
   * Keeps the output and the context's `reject`.
   *
   * @param context Where rejected records go.
   * @param output Where records, watermarks and statuses go.
   */
  open(context: OperatorContext, output: OperatorOutput<OUT>): void {
    this.#output = output;
    this.#reject = context.reject ?? rethrowRecord;
  }

  /**
   * Runs the batch function over the batch.
   *
   * @param values The records.
   * @param timestamps Their timestamps.
   */
  processBatch(values: readonly IN[], timestamps: readonly number[]): void {
    this.#batch(values, timestamps, this.#output!, this.#reject);
  }

  /**
   * Forwards the watermark.
   *
   * @param watermark The input watermark.
   */
  processWatermark(watermark: number): void {
    this.#output!.emitWatermark(watermark);
  }

  /**
   * Forwards the status.
   *
   * @param status The input status.
   */
  processWatermarkStatus(status: WatermarkStatus): void {
    this.#output!.emitWatermarkStatus(status);
  }

  /**
   * Does nothing: no processing-time work.
   *
   * @param _now The current processing time.
   */
  onProcessingTime(_now: number): void {}

  /**
   * Never has processing-time work.
   *
   * @returns `Infinity`.
   */
  nextProcessingTime(): number {
    return Infinity;
  }

  /** Does nothing. */
  finish(): void {}

  /**
   * There is no state.
   *
   * @returns `null`.
   */
  snapshotState(): null {
    return null;
  }

  /**
   * There is no state to put back.
   *
   * @param _state Ignored.
   */
  restoreState(_state: unknown): void {}
}
