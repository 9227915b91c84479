// Subtask.beginReplay / endReplay: event time rebuilt from input applied
// once already (the KV runtime's watermarkRecovery "replay" after a
// take-over) changes no state of records and emits nothing but the rebuilt
// watermark, once, at the end.

import assert from "node:assert/strict";
import { MapOperator } from "../../src/runtime/operators/map.ts";
import { TimestampsAndWatermarksOperator } from "../../src/runtime/operators/timestamps_and_watermarks.ts";
import {
  recordBatch,
  type StreamElement,
} from "../../src/runtime/stream_element.ts";
import type {
  OperatorContext,
  OperatorOutput,
  StreamOperator,
} from "../../src/runtime/stream_operator.ts";
import { WatermarkStrategy } from "../../src/time/watermark_strategy.ts";
import type { WatermarkStatus } from "../../src/time/watermark_output.ts";
import { forwardSubtask } from "../_support/forward_subtask.ts";

/** Keeps every record it gets (state of records) and forwards watermarks. */
class KeepingOperator implements StreamOperator<unknown, unknown> {
  readonly kept: unknown[] = [];
  readonly watermarks: number[] = [];
  #output: OperatorOutput<unknown> | null = null;
  open(_context: OperatorContext, output: OperatorOutput<unknown>): void {
    this.#output = output;
  }
  processBatch(values: readonly unknown[]): void {
    this.kept.push(...values);
  }
  processWatermark(watermark: number): void {
    this.watermarks.push(watermark);
    this.#output!.emitWatermark(watermark);
  }
  processWatermarkStatus(status: WatermarkStatus): void {
    this.#output!.emitWatermarkStatus(status);
  }
  onProcessingTime(): void {}
  nextProcessingTime(): number {
    return Infinity;
  }
  finish(): void {}
  snapshotState(): unknown {
    return this.kept;
  }
  restoreState(): void {}
}

function subtask(
  operators: StreamOperator<unknown, unknown>[],
  numInputChannels: number,
) {
  const sent: string[] = [];
  const built = forwardSubtask(
    operators,
    numInputChannels,
    (_edge, _channel, element) => sent.push(describe(element)),
  );

  return { subtask: built, sent };
}

function describe(element: StreamElement): string {
  switch (element.kind) {
    case "records":
      return `R(${element.values.join(",")})`;
    case "watermark":
      return `W${element.watermark}`;
    case "status":
      return element.status;
    default:
      return element.kind;
  }
}

const watermark = (w: number): StreamElement => ({
  kind: "watermark",
  watermark: w,
});

Deno.test("Subtask.beginReplay() rebuilds the valve from replayed watermarks, keeps no record and emits nothing until endReplay()", () => {
  const keeping = new KeepingOperator();
  const { subtask: s, sent } = subtask([keeping], 2);
  s.beginReplay();
  s.receive(0, recordBatch(["a", "b"], [1, 2]));
  s.receive(0, watermark(10));
  s.receive(1, watermark(7));
  s.receive(1, { kind: "barrier", checkpointId: 3 });
  s.receive(1, watermark(12));
  assert.deepEqual(sent, [], "nothing is emitted during a replay");
  assert.deepEqual(keeping.kept, [], "replayed records change no state");
  assert.deepEqual(
    keeping.watermarks,
    [],
    "nor reach an operator that keeps records",
  );
  assert.equal(s.metrics.recordsIn, 0);
  s.endReplay();
  assert.deepEqual(keeping.watermarks, [10], "the rebuilt watermark, once");
  assert.deepEqual(sent, ["W10"]);
  assert.equal(s.metrics.inputWatermark, 10);
  assert.equal(s.metrics.outputWatermark, 10);
  assert.deepEqual(s.inputChannels().map((c) => c.watermark), [10, 12]);
  // After the replay, input is processed as usual.
  s.receive(0, recordBatch(["c"], [20]));
  assert.deepEqual(keeping.kept, ["c"]);
});

Deno.test("Subtask.beginReplay() runs replayed records through stateless operators into a timestamps-and-watermarks operator, whose generator is rebuilt", () => {
  const keeping = new KeepingOperator();
  const mapped: number[] = [];
  const strategy = WatermarkStrategy.forBoundedOutOfOrderness<number>(5)
    .withTimestampAssigner((n) => n);
  const { subtask: s, sent } = subtask([
    new MapOperator<number, number>((n) => {
      mapped.push(n);
      return n * 10;
    }) as StreamOperator<unknown, unknown>,
    new TimestampsAndWatermarksOperator(strategy, {
      autoWatermarkIntervalMs: 100,
    }) as StreamOperator<unknown, unknown>,
    keeping,
  ], 1);
  s.beginReplay();
  s.receive(0, recordBatch([3, 9, 4], [0, 0, 0]));
  s.endReplay();
  assert.deepEqual(mapped, [3, 9, 4]);
  assert.deepEqual(
    keeping.kept,
    [],
    "records stop before the operator that keeps them",
  );
  assert.deepEqual(sent, []);
  // The generator saw 90 as its highest timestamp: the next periodic emit
  // says 90 - 5 - 1.
  s.onProcessingTime(100);
  assert.deepEqual(keeping.watermarks, [84]);
  assert.deepEqual(sent, ["W84"]);
});

Deno.test("Subtask.endReplay() hands an idle status on after the watermark", () => {
  const keeping = new KeepingOperator();
  const { subtask: s, sent } = subtask([keeping], 1);
  s.beginReplay();
  s.receive(0, watermark(4));
  s.receive(0, { kind: "status", status: "idle" });
  s.endReplay();
  assert.deepEqual(sent, ["W4", "idle"]);
  assert.equal(s.metrics.idle, true);
});
