// The engines a window operator runs on besides its general one (slots,
// a trigger, a timer service): one narrow interface, and the choice of the
// engine for an operator's options.

import type { SnapshotGroups } from "./snapshot_groups.ts";
import { engineOptionsOf } from "./_engine_options.ts";
import { paneEngineOf } from "./_pane_engine.ts";
import { SessionEngine } from "./_session_engine.ts";
import {
  isExactEventTimeTrigger,
  isExactSessionAssigner,
} from "./_exact_parts.ts";
import type { EventTimeSessionWindows } from "./session.ts";
import type { GroupedItem } from "./snapshot_groups.ts";
import type { WindowAssignerContext } from "./window_assigner.ts";
import type {
  WindowOperatorSnapshot,
  WindowSlotSnapshot,
} from "./window_operator_snapshot.ts";
import type { WindowOperatorOptions } from "./window_operator_options.ts";
import type { WindowOutput } from "./window_output.ts";

/**
 * A window operator's engine for one kind of windows with the default
 * trigger. WindowOperator's methods of the same names delegate here while
 * it runs; an engine that meets a record it does not take hands its state
 * over (see {@linkcode HandOver}) and the operator goes on on its general
 * engine.
 */
export interface WindowEngine<T, K, ACC> {
  readonly currentWatermark: number;
  readonly numLateRecordsDropped: number;
  readonly numWindows: number;
  readonly numTimers: number;
  readonly lastFiredWindowEnd: number;
  /**
   * Processes the batch from its first record on; returns the index of the
   * first record it did not process (the length when it took them all):
   * the engine handed over before it, and the general engine goes on there.
   */
  processBatch(values: readonly T[], timestamps: ArrayLike<number>): number;
  /** Processes a record; `false` if it handed over instead. */
  processElement(value: T, timestamp: number): boolean;
  processWatermark(watermark: number): void;
  slotGroups(): WindowSlotSnapshot<K, ACC>[][];
  snapshotWithoutSlots(): Omit<WindowOperatorSnapshot<K, ACC>, "slots">;
  /**
   * Restores `snapshot`; false (and nothing changed) if it holds what the
   * engine cannot. `lastFiredWindowEnd` is the operator's, which a restore
   * keeps.
   */
  restore(
    snapshot: WindowOperatorSnapshot<K, ACC>,
    lastFiredWindowEnd: number,
  ): boolean;
}

/**
 * An engine's state handed to the general engine, exactly what the general
 * engine would hold at that point.
 */
export interface HandOver<K, ACC> {
  /** The state in the general format, slots in id order. */
  snapshot: WindowOperatorSnapshot<K, ACC>;
  lastFiredWindowEnd: number;
  /** The snapshot groups as of the last `slotGroups()`, and each slot's flags. */
  groups: SnapshotGroups<never, WindowSlotSnapshot<K, ACC>>;
  flags: ReadonlyMap<number, GroupedItem>;
  /**
   * The slot whose add threw as it grew (with allowed lateness): it has no
   * cleanup timer until its next record registers one; -1 if none.
   */
  noCleanup: number;
  /** The key of the record to go on with, if it was computed. */
  key?: { key: K };
}

/** Takes over an engine's state (the operator's general engine). */
export type HandOverTo<K, ACC> = (state: HandOver<K, ACC>) => void;

/**
 * The engine of a window operator with these options, or null when it
 * runs on its general engine only: fixed event-time windows or sessions of
 * a fixed gap, with exactly EventTimeTrigger.
 */
export function windowEngineOf<T, K, ACC, OUT>(
  options: WindowOperatorOptions<T, K, ACC, OUT>,
  assignerContext: WindowAssignerContext,
  output: WindowOutput<OUT>,
  handOver: HandOverTo<K, ACC>,
): WindowEngine<T, K, ACC> | null {
  return paneEngineOf(options, assignerContext, output) ??
    sessionEngineOf(options, output, handOver);
}

/**
 * The session engine of a window operator with these options, or null:
 * it takes exactly EventTimeSessionWindows with a fixed gap and
 * EventTimeTrigger (not subclasses, which may decide otherwise, nor either
 * patched on the instance: see isExactEventTimeTrigger).
 *
 * @param options The operator's options.
 * @param output Receives results, side outputs and watermarks.
 * @param handOverTo Takes the engine's state when it hands over.
 */
export function sessionEngineOf<T, K, ACC, OUT>(
  options: WindowOperatorOptions<T, K, ACC, OUT>,
  output: WindowOutput<OUT>,
  handOverTo: HandOverTo<K, ACC>,
): SessionEngine<T, K, ACC, OUT> | null {
  if (
    !isExactSessionAssigner(options.assigner) ||
    !isExactEventTimeTrigger(options.trigger)
  ) return null;
  const gap = (options.assigner as EventTimeSessionWindows<T>).gapMs;
  if (gap === null) return null;
  return new SessionEngine(
    { ...engineOptionsOf(options), gap },
    output,
    handOverTo,
  );
}
