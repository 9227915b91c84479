/**
 * The options of the window operator: what it windows by, what each window
 * keeps, when windows fire, and how late records may come.
 *
 * @module
 */

import type { Clock } from "../time/mod.ts";
import type { OutputTag } from "./output_tag.ts";
import type { Trigger } from "./trigger.ts";
import type { WindowAssigner } from "./window_assigner.ts";
import type { WindowFunction } from "./window_function.ts";

/** Options of a `WindowOperator`. */
export interface WindowOperatorOptions<T, K, ACC, OUT> {
  /** Assigns each record to its windows. */
  assigner: WindowAssigner<T>;
  /** Extracts the key of a record; keys are compared with `===` (strings, numbers). */
  keySelector: (value: T) => K;
  /** What each window keeps and emits. */
  windowFunction: WindowFunction<T, ACC, OUT, K>;
  /**
   * When windows emit.
   * @default {assigner.defaultTrigger()}
   */
  trigger?: Trigger<T>;
  /**
   * How long after its end an event-time window still accepts records (each
   * fires again), in milliseconds.
   * @default {0}
   */
  allowedLatenessMs?: number;
  /**
   * Where records too late for all their windows go; counted as dropped when unset.
   * @default {null}
   */
  lateDataTag?: OutputTag<T> | null;
  /** Processing time, for processing-time windows and triggers. */
  clock: Clock;
  /**
   * Puts each key's windows in a numbered group (e.g. its key group), so
   * that `WindowOperator.slotGroups` can hand out unchanged groups
   * as they were: an incremental checkpoint re-encodes only changed groups.
   * Called once per (key, window), not per record.
   * @default {() => 0} (one group)
   */
  partitionOf?: (key: K) => number;
}
