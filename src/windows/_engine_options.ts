// What the pane and session engines share of their operator's options, with
// the defaults WindowOperator applies.

import type { Clock } from "../time/mod.ts";
import type { OutputTag } from "./output_tag.ts";
import type { WindowFunction } from "./window_function.ts";
import type { WindowOperatorOptions } from "./window_operator_options.ts";

/** The options every engine of a window operator is built from. */
export interface EngineOptions<T, K, ACC, OUT> {
  keySelector: (value: T) => K;
  windowFunction: WindowFunction<T, ACC, OUT, K>;
  allowedLatenessMs: number;
  lateDataTag: OutputTag<T> | null;
  clock: Clock;
  partitionOf?: (key: K) => number;
}

/**
 * The engine options of an operator's options, defaults applied.
 *
 * @param options The operator's options.
 */
export function engineOptionsOf<T, K, ACC, OUT>(
  options: WindowOperatorOptions<T, K, ACC, OUT>,
): EngineOptions<T, K, ACC, OUT> {
  return {
    keySelector: options.keySelector,
    windowFunction: options.windowFunction,
    // Checked by WindowOperator before.
    allowedLatenessMs: options.allowedLatenessMs ?? 0,
    lateDataTag: options.lateDataTag ?? null,
    clock: options.clock,
    partitionOf: options.partitionOf,
  };
}
