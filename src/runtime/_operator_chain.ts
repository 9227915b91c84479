// The operators of one subtask as a chain (Flink's `OperatorChain`): each
// operator's output is the next one's input, gated for event-time replay,
// and the tail's output is the subtask's edges. The subtask drives the
// chain from its input channels; what concerns every operator at once
// (opening, finishing, mail, processing time, back-pressure, checkpoint
// completion) is here.

import { StatusWatermarkValve } from "../time/mod.ts";
import type { StreamElement } from "./stream_element.ts";
import type {
  OperatorContext,
  OperatorOutput,
  StreamOperator,
} from "./stream_operator.ts";
import { type ChainOutput, inputOf } from "./_chain_output.ts";
import type { RecordGuard } from "./_record_guard.ts";
import type { SubtaskMetrics } from "./subtask_metrics.ts";
import type { SubtaskOptions } from "./subtask_options.ts";
import { ReplayGate } from "./_replay_gate.ts";

/** A subtask's operators, wired head to tail. */
export class OperatorChain {
  /** The operators, head first. */
  readonly operators: readonly StreamOperator<unknown, unknown>[];
  /**
   * Where each operator's input comes from (the valve for the head, the
   * tail last), each gated for replay.
   */
  readonly inputs: OperatorOutput<unknown>[] = [];
  /** How far replayed records and watermarks go, and what reached that boundary. */
  readonly replay: ReplayGate;
  readonly #pending: Promise<unknown>[] = [];
  // The operators that can be full (asynchronous ones): asked before
  // every element, so the others are left out. Listed again once opened,
  // as an operator may set isBackPressured in open().
  #pressured: readonly StreamOperator<unknown, unknown>[];

  /**
   * @param operators The operators, head first.
   * @param output The subtask's edges, which the tail's output feeds.
   * @param guard The subtask's guard.
   */
  constructor(
    operators: readonly StreamOperator<unknown, unknown>[],
    output: ChainOutput,
    guard: RecordGuard,
  ) {
    this.operators = operators;
    this.#pressured = pressurable(operators);
    this.replay = new ReplayGate(operators);
    const tail = this.replay.gate(operators.length, output.tail);
    for (let i = 0; i < operators.length; i++) {
      this.inputs.push(
        this.replay.gate(i, inputOf(operators[i], tail, guard, i)),
      );
    }
    this.inputs.push(tail);
  }

  /**
   * A valve over the subtask's input channels that feeds the head operator
   * and keeps `metrics.inputWatermark`.
   */
  valve(
    options: Pick<SubtaskOptions, "numInputChannels" | "inputPolicy">,
    metrics: SubtaskMetrics,
  ): StatusWatermarkValve {
    const head = this.inputs[0];
    const policy = options.inputPolicy ?? "min";
    return new StatusWatermarkValve(options.numInputChannels, {
      emitWatermark(watermark) {
        metrics.inputWatermark = watermark;
        head.emitWatermark(watermark);
      },
      emitWatermarkStatus(status) {
        head.emitWatermarkStatus(status);
      },
    }, { policy });
  }

  /**
   * Takes an element again during a replay (see `Subtask.beginReplay`):
   * records go as far as the replay lets them, watermarks and statuses
   * rebuild `valve`; barriers and ends are skipped.
   */
  replayElement(
    valve: StatusWatermarkValve,
    channel: number,
    element: StreamElement,
  ): void {
    switch (element.kind) {
      case "records":
        this.inputs[0].emitBatch(element.values, element.timestamps);
        break;
      case "watermark":
        valve.inputWatermark(element.watermark, channel);
        break;
      case "status":
        valve.inputWatermarkStatus(element.status, channel);
        break;
    }
  }

  /** Opens every operator, each with its own context. */
  open(contexts: readonly OperatorContext[]): void {
    const operators = this.operators;
    for (let i = 0; i < operators.length; i++) {
      operators[i].open(contexts[i], this.inputs[i + 1]);
    }
    this.#pressured = pressurable(operators);
  }

  /** Finishes the operators head to tail, keeping the work they start. */
  finish(): void {
    for (const operator of this.operators) {
      const work = (operator.finish as () => unknown)();
      if (work instanceof Promise) this.#pending.push(work);
    }
  }

  /** Waits for the work the operators started when they finished. */
  async settle(): Promise<void> {
    await Promise.all(this.#pending.splice(0));
  }

  /** Tells every operator a checkpoint is complete; waits for their work. */
  async notifyCheckpointComplete(checkpointId: number): Promise<void> {
    await Promise.all(
      this.operators.map((op) => op.notifyCheckpointComplete?.(checkpointId)),
    );
  }

  /** Lets every operator emit what completed asynchronously. */
  processMail(): void {
    for (const operator of this.operators) operator.processMail?.();
  }

  /** Runs every operator's processing-time work due at `now`. */
  onProcessingTime(now: number): void {
    for (const operator of this.operators) {
      if (operator.nextProcessingTime() <= now) operator.onProcessingTime(now);
    }
  }

  /** The earliest processing time at which an operator has work, or `Infinity`. */
  nextProcessingTime(): number {
    let next = Infinity;
    for (const operator of this.operators) {
      const due = operator.nextProcessingTime();
      if (due < next) next = due;
    }
    return next;
  }

  /** Whether an operator is full. */
  get backPressured(): boolean {
    const pressured = this.#pressured;
    for (let i = 0; i < pressured.length; i++) {
      if (pressured[i].isBackPressured?.()) return true;
    }
    return false;
  }

  /** Asynchronous calls in flight in the operators. */
  get inFlight(): number {
    let count = 0;
    for (const operator of this.operators) count += operator.inFlight?.() ?? 0;
    return count;
  }
}

// The operators that have an isBackPressured: as `?.()` skips null and
// undefined (and throws for any other value that is not a function).
function pressurable(
  operators: readonly StreamOperator<unknown, unknown>[],
): StreamOperator<unknown, unknown>[] {
  return operators.filter((op) => op.isBackPressured != null);
}
