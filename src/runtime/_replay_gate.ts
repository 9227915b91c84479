// What passes an operator chain while a subtask rebuilds its event time by
// replay (Subtask.beginReplay): records only through operators that keep
// no state of them, up to the last one that generates watermarks;
// watermarks and statuses up to the first operator that keeps records,
// where the last of each waits for the end of the replay.

import type { WatermarkStatus } from "../time/mod.ts";
import type { OperatorOutput, StreamOperator } from "./stream_operator.ts";

/**
 * The gates of one chain: one per operator input (the head's first) and
 * one on the chain's output. Open (everything passes) unless replaying;
 * one boolean test per batch, watermark or status.
 */
export class ReplayGate {
  /** Operator inputs up to here take replayed records. */
  readonly #recordsTo: number;
  /** Operator inputs up to here take replayed watermarks and statuses. */
  readonly #eventTimeTo: number;
  #replaying = false;
  #watermark: number | null = null;
  #status: WatermarkStatus | null = null;

  /** Finds how far replayed records and watermarks go in `operators`. */
  constructor(operators: readonly StreamOperator<unknown, unknown>[]) {
    let eventTimeTo = 0;
    let recordsTo = 0;
    while (eventTimeTo < operators.length) {
      const role = operators[eventTimeTo].replayRole;
      if (role !== "pass" && role !== "generate") break;
      eventTimeTo++;
      if (role === "generate") recordsTo = eventTimeTo;
    }
    this.#eventTimeTo = eventTimeTo;
    this.#recordsTo = recordsTo;
  }

  /** Whether a replay is under way. */
  get replaying(): boolean {
    return this.#replaying;
  }

  /**
   * Starts a replay. `seed` is what reached the chain's head before the
   * replayed input (the valve's output); it reaches the boundary unchanged
   * unless an operator before it generates watermarks of its own.
   */
  begin(seed?: { watermark: number; status: WatermarkStatus }): void {
    this.#replaying = true;
    this.#watermark = null;
    this.#status = null;
    if (seed === undefined || this.#recordsTo > 0) return;
    if (seed.watermark > -Infinity) this.#watermark = seed.watermark;
    this.#status = seed.status;
  }

  /**
   * Ends a replay: the watermark and status kept at the boundary go on for
   * real, once, through `inputs` (the gated inputs {@linkcode ReplayGate.gate}
   * made, in chain order, the output last).
   */
  end(inputs: readonly OperatorOutput<unknown>[]): void {
    if (!this.#replaying) return;
    this.#replaying = false;
    const at = inputs[this.#eventTimeTo];
    const watermark = this.#watermark;
    const status = this.#status;
    if (status === "active") at.emitWatermarkStatus(status);
    if (watermark !== null) at.emitWatermark(watermark);
    if (status === "idle") at.emitWatermarkStatus(status);
  }

  /**
   * Gates `target`, the input of operator `index` (the chain's output when
   * `index` is the number of operators): while replaying, side outputs
   * and the records past the last generator are dropped, and watermarks
   * and statuses past the boundary are kept for `end`.
   */
  gate(
    index: number,
    target: OperatorOutput<unknown>,
  ): OperatorOutput<unknown> {
    // deno-lint-ignore no-this-alias
    const gate = this;
    return {
      emitBatch(values, timestamps) {
        if (gate.#replaying && index >= gate.#recordsTo) return;
        target.emitBatch(values, timestamps);
      },
      emitWatermark(watermark) {
        if (gate.#replaying && index >= gate.#eventTimeTo) {
          gate.#watermark = watermark;
        } else target.emitWatermark(watermark);
      },
      emitWatermarkStatus(status) {
        if (gate.#replaying && index >= gate.#eventTimeTo) {
          gate.#status = status;
        } else target.emitWatermarkStatus(status);
      },
      emitSideOutput(tag, value, timestamp) {
        if (!gate.#replaying) target.emitSideOutput(tag, value, timestamp);
      },
    };
  }
}
