// Which operators a subtask asks whether it is back-pressured: those with
// an isBackPressured once opened, tolerating one that is null.

import assert from "node:assert/strict";
import type {
  OperatorContext,
  OperatorOutput,
  StreamOperator,
} from "../../src/runtime/stream_operator.ts";
import type { Subtask } from "../../src/runtime/subtask.ts";
import type { WatermarkStatus } from "../../src/time/watermark_output.ts";
import { forwardSubtask } from "../_support/forward_subtask.ts";

// A pass-through operator whose isBackPressured is whatever `pressure` gives
// it in open() (e.g. once its client is configured).
// Not declared a StreamOperator, whose type does not allow null (a plain-JS
// operator may still give it).
class PressureOperator {
  isBackPressured?: (() => boolean) | null;
  #output?: OperatorOutput<unknown>;
  constructor(readonly pressure: () => (() => boolean) | null | undefined) {}
  open(_context: OperatorContext, output: OperatorOutput<unknown>): void {
    this.#output = output;
    this.isBackPressured = this.pressure();
  }
  processBatch(values: readonly unknown[], timestamps: readonly number[]) {
    this.#output!.emitBatch(values as unknown[], timestamps as number[]);
  }
  processWatermark(watermark: number): void {
    this.#output!.emitWatermark(watermark);
  }
  processWatermarkStatus(status: WatermarkStatus): void {
    this.#output!.emitWatermarkStatus(status);
  }
  nextProcessingTime(): number {
    return Infinity;
  }
  onProcessingTime(): void {}
  finish(): void {}
  snapshotState(): unknown {
    return null;
  }
  restoreState(): void {}
}

function subtaskOf(...operators: PressureOperator[]): Subtask {
  return forwardSubtask(
    operators as unknown as StreamOperator<unknown, unknown>[],
    1,
    () => {},
  );
}

Deno.test("Subtask.backPressured asks an operator whose isBackPressured is set in open()", () => {
  let full = true;
  const subtask = subtaskOf(new PressureOperator(() => () => full));
  assert.equal(subtask.backPressured, true);
  full = false;
  assert.equal(subtask.backPressured, false);
});

Deno.test("Subtask.backPressured skips an operator whose isBackPressured is null and asks the others", () => {
  let full = false;
  const subtask = subtaskOf(
    new PressureOperator(() => null),
    new PressureOperator(() => () => full),
  );
  assert.equal(subtask.backPressured, false);
  full = true;
  assert.equal(subtask.backPressured, true);
});
