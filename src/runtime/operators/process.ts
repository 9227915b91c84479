/**
 * The general record function with access to the record's timestamp, the
 * current watermark and side outputs.
 *
 * @module
 */

import type { WatermarkStatus } from "../../time/mod.ts";
import type { OutputTag } from "../../windows/mod.ts";
import type {
  OperatorContext,
  OperatorOutput,
  RejectRecord,
  SnapshotOptions,
  StreamOperator,
} from "../stream_operator.ts";
import { requireFunction } from "./_validate.ts";
import { rethrowRecord } from "../_record_guard.ts";
import type { StateKind } from "../rescale/state_kind.ts";

/**
 * What a {@linkcode ProcessFunction} sees besides the record. One object is
 * reused for every record: read it during the call, do not keep it.
 */
export interface ProcessContext {
  /** The record's event timestamp in milliseconds; `-Infinity` if it has none. */
  readonly timestamp: number;
  /** The operator's current watermark; `-Infinity` before the first. */
  readonly currentWatermark: number;
  /**
   * Emits `value` to the side output `tag` (an {@linkcode OutputTag} or its
   * id), with the record's timestamp.
   */
  output<X>(tag: OutputTag<X> | string, value: X): void;
}

/**
 * Processes one record (Flink's `ProcessFunction.processElement`): emits
 * any number of outputs through `out`, each with the record's timestamp, and
 * side outputs through `ctx.output`.
 *
 * @typeParam IN The input record type.
 * @typeParam OUT The output record type.
 * @param value The record.
 * @param ctx Its timestamp, the current watermark and side outputs.
 * @param out Emits one output record; valid only during the call.
 */
export type ProcessFunction<IN, OUT> = (
  value: IN,
  ctx: ProcessContext,
  out: (value: OUT) => void,
) => void;

/** The reused context: re-pointed at each record, so records allocate nothing. */
class Context implements ProcessContext {
  timestamp = -Infinity;
  currentWatermark = -Infinity;
  readonly #target: () => OperatorOutput<unknown>;

  constructor(target: () => OperatorOutput<unknown>) {
    this.#target = target;
  }

  // An arrow, so `const { output } = ctx` still works.
  output = <X>(tag: OutputTag<X> | string, value: X): void => {
    this.#target().emitSideOutput(
      typeof tag === "string" ? tag : tag.id,
      value,
      this.timestamp,
    );
  };
}

/**
 * Runs a {@linkcode ProcessFunction} over every record (Flink's
 * `ProcessOperator`, without timers).
 *
 * Outputs keep the input record's timestamp; everything one input batch
 * produces goes out as one output batch (none when it produced nothing).
 * Side outputs go out as they are emitted. Watermarks are recorded as the
 * current watermark and forwarded unchanged; statuses are forwarded. The
 * snapshot holds the current watermark. Cost: one call of `fn` per record.
 *
 * A record for which `fn` throws goes to the subtask's error policy
 * (`OperatorContext.reject`); what it collected before the throw is
 * dropped, its side outputs are not.
 *
 * @typeParam IN The input record type.
 * @typeParam OUT The output record type.
 */
export class ProcessOperator<IN, OUT> implements StreamOperator<IN, OUT> {
  /** How a rescale splits its state: each new subtask takes the lowest watermark. */
  static readonly stateKind: StateKind = "watermark";

  readonly #fn: ProcessFunction<IN, OUT>;
  readonly #context: Context;
  #output: OperatorOutput<OUT> | null = null;
  #reject: RejectRecord = rethrowRecord;

  /**
   * Creates the operator.
   *
   * @param fn Processes one record.
   * @throws {TypeError} If `fn` is not a function.
   */
  constructor(fn: ProcessFunction<IN, OUT>) {
    requireFunction(fn, { action: "create ProcessOperator", param: "fn" });
    this.#fn = fn;
    this.#context = new Context(() => this.#output!);
  }

  /** The last watermark received; `-Infinity` before the first. */
  get currentWatermark(): number {
    return this.#context.currentWatermark;
  }

  /**
   * Keeps the output and the context's `reject`.
   *
   * @param context Where rejected records go.
   * @param output Where outputs and side outputs go.
   */
  open(context: OperatorContext, output: OperatorOutput<OUT>): void {
    this.#output = output;
    this.#reject = context.reject ?? rethrowRecord;
  }

  /**
   * Runs `fn` over a batch and emits its outputs as one batch.
   *
   * @param values The records.
   * @param timestamps Their timestamps, given to their outputs.
   */
  processBatch(values: readonly IN[], timestamps: readonly number[]): void {
    const fn = this.#fn;
    const context = this.#context;
    const produced: OUT[] = [];
    const producedTimestamps: number[] = [];
    const out = function collect(value: OUT): void {
      produced.push(value);
      producedTimestamps.push(context.timestamp);
    };
    // A record whose fn throws is set aside with what it collected before
    // the throw (its side outputs are already out), and the loop resumes.
    const n = values.length;
    let i = 0;
    let before = 0;
    while (i < n) {
      try {
        for (; i < n; i++) {
          context.timestamp = timestamps[i];
          before = produced.length;
          fn(values[i], context, out);
        }
      } catch (error) {
        produced.length = producedTimestamps.length = before;
        this.#reject(values[i], timestamps[i], error, i);
        i++;
      }
    }
    context.timestamp = -Infinity;
    if (produced.length > 0) {
      this.#output!.emitBatch(produced, producedTimestamps);
    }
  }

  /**
   * Records the watermark as the current one and forwards it.
   *
   * @param watermark The input watermark.
   */
  processWatermark(watermark: number): void {
    this.#context.currentWatermark = watermark;
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
   * Returns the current watermark (`-Infinity` in replay mode).
   *
   * @returns `{ currentWatermark }`.
   */
  snapshotState(
    _checkpointId?: number,
    options?: SnapshotOptions,
  ): { currentWatermark: number } {
    const watermarks = options?.watermarks !== false;
    return {
      currentWatermark: watermarks ? this.#context.currentWatermark : -Infinity,
    };
  }

  /**
   * Puts back the current watermark; emits nothing.
   *
   * @param state A snapshot of a process operator.
   */
  restoreState(state: unknown): void {
    this.#context.currentWatermark =
      (state as { currentWatermark: number }).currentWatermark;
  }
}
