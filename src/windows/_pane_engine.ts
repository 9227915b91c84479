// The window operator's engine for fixed event-time windows (tumbling and
// sliding) with the default trigger: what the general engine does with
// EventTimeTrigger, without a slot object, index entry or timer per
// (key, window).
//
// With EventTimeTrigger a pane's fire timer is pending from its first
// record while the watermark is below maxTimestamp, and its cleanup timer
// at maxTimestamp + allowedLateness from its first record on. So a window
// keeps its panes as columns (see PaneWindow) with their timers as bits, the
// windows are kept in end order, and a watermark fires every due window's
// panes in one loop, in the general engine's order: by timestamp, then id
// (pane creation order). Snapshots are in the general engine's format.

import { requireWatermark } from "../time/validate.ts";
import { resumeBatch } from "./_batch_resume.ts";
import { type EngineOptions, engineOptionsOf } from "./_engine_options.ts";
import { lateRecord } from "./_late_record.ts";
import { PaneIndex } from "./_pane_index.ts";
import {
  countTimers,
  PaneGroups,
  panesHold,
  restorePanes,
  timerPairs,
} from "./_pane_snapshot.ts";
import { PaneSweep } from "./_pane_sweep.ts";
import type { WindowEngine } from "./_window_engine.ts";
import { CHANGED, FIRE, type PaneWindow, REGISTERED } from "./_pane_window.ts";
import { checkTimer, REGISTER_EVENT, WATERMARK } from "./_timer_checks.ts";
import { isExactEventTimeTrigger } from "./_exact_parts.ts";
import type { OutputTag } from "./output_tag.ts";
import { SlidingEventTimeWindows } from "./sliding.ts";
import { TumblingEventTimeWindows } from "./tumbling.ts";
import type {
  WindowAssigner,
  WindowAssignerContext,
} from "./window_assigner.ts";
import type { WindowFunction } from "./window_function.ts";
import type {
  WindowOperatorSnapshot,
  WindowSlotSnapshot,
} from "./window_operator_snapshot.ts";
import type { WindowOperatorOptions } from "./window_operator_options.ts";
import type { WindowOutput } from "./window_output.ts";

/** What a {@linkcode PaneEngine} is built from: its operator's options. */
export interface PaneEngineOptions<T, K, ACC, OUT>
  extends EngineOptions<T, K, ACC, OUT> {
  assigner: WindowAssigner<T>;
  assignerContext: WindowAssignerContext;
}

/**
 * The engine of a window operator with fixed event-time windows and the
 * default trigger; WindowOperator's methods of the same names delegate here.
 */
export class PaneEngine<T, K, ACC, OUT> implements WindowEngine<T, K, ACC> {
  readonly #assigner: WindowAssigner<T>;
  readonly #assignerContext: WindowAssignerContext;
  readonly #keyOf: (value: T) => K;
  readonly #fn: WindowFunction<T, ACC, OUT, K>;
  readonly #lateness: number;
  readonly #lateTag: OutputTag<T> | null;
  readonly #output: WindowOutput<OUT>;
  readonly #groups: PaneGroups<K, ACC>;
  readonly #windows: PaneIndex<K, ACC>;
  readonly #sweep: PaneSweep<T, K, ACC, OUT>;
  #watermark = -Infinity;
  #nextId = 0;
  #numLateRecordsDropped = 0;
  // Panes created (or restored); the sweep counts those dropped.
  #numCreated = 0;

  constructor(
    options: PaneEngineOptions<T, K, ACC, OUT>,
    output: WindowOutput<OUT>,
  ) {
    this.#assigner = options.assigner;
    this.#assignerContext = options.assignerContext;
    this.#keyOf = options.keySelector;
    this.#fn = options.windowFunction;
    this.#lateness = options.allowedLatenessMs;
    this.#lateTag = options.lateDataTag;
    this.#output = output;
    this.#groups = new PaneGroups(options.partitionOf);
    this.#windows = new PaneIndex(options.allowedLatenessMs);
    this.#sweep = new PaneSweep({
      windows: this.#windows,
      windowFunction: options.windowFunction,
      output,
      clock: options.clock,
      allowedLatenessMs: options.allowedLatenessMs,
      removed: this.#groups.removed,
    });
  }

  get currentWatermark(): number {
    return this.#watermark;
  }

  get numLateRecordsDropped(): number {
    return this.#numLateRecordsDropped;
  }

  get numWindows(): number {
    return this.#numCreated - this.#sweep.numDropped;
  }

  get numTimers(): number {
    return countTimers(this.#windows.order, this.#lateness);
  }

  get lastFiredWindowEnd(): number {
    return this.#sweep.lastFiredWindowEnd;
  }

  processBatch(values: readonly T[], timestamps: ArrayLike<number>): number {
    const n = values.length;
    let i = 0;
    try {
      for (; i < n; i++) this.#processRecord(values[i], timestamps[i]);
    } catch (error) {
      // The record left nothing behind (see #add): nothing to take back.
      resumeBatch(values, timestamps, i, error, {
        process: (value, timestamp) => this.#processRecord(value, timestamp),
        takeBack() {},
      }, this.#output as WindowOutput<unknown>);
    }
    return n;
  }

  processElement(value: T, timestamp: number): boolean {
    this.#processRecord(value, timestamp);
    return true;
  }

  #processRecord(value: T, timestamp: number): void {
    const key = this.#keyOf(value);
    const assigned = this.#assigner.assignWindows(
      value,
      timestamp,
      this.#assignerContext,
    );
    const watermark = this.#watermark;
    const windows = this.#windows.resolve(assigned, watermark);
    const fn = this.#fn;
    let skipped = true;
    for (let i = 0; i < windows.length; i++) {
      const w = windows[i];
      if (w === null) continue;
      skipped = false;
      const p = w.index.get(key);
      if (p === undefined || w.maxTimestamp <= watermark) {
        this.#add(w, key, value, p);
        continue;
      }
      // #add's path for an existing pane of a window not fired yet, the
      // path of most records, written out here: a call per window a
      // record lands in was a measurable part of its cost.
      const contents = w.contents;
      contents[p] = fn.add(contents[p] ?? fn.create(), value);
      if (w.marked) continue;
      const bits = w.bits;
      const b = bits[p];
      if (b !== (b | FIRE | CHANGED)) {
        bits[p] = b | FIRE | CHANGED;
        w.due = true;
      }
    }
    if (skipped) this.#skipped(value, timestamp);
  }

  // A record in no live window: kept apart from #processRecord, as few
  // records take it.
  #skipped(value: T, timestamp: number): void {
    if (!(timestamp + this.#lateness <= this.#watermark)) return;
    this.#numLateRecordsDropped += lateRecord(
      this.#output,
      this.#lateTag,
      value,
      timestamp,
    );
  }

  // EventTimeTrigger.onElement (a fire now, or the fire timer), the
  // function's add, then the fire asked for and the cleanup timer, as the
  // general engine does. The timer is set once add returned: if add throws,
  // the general engine takes back the timer (and a new pane) again, so the
  // record leaves nothing behind either way.
  // `p` is the pane of `key` in `w`, if it has one.
  #add(w: PaneWindow<K, ACC>, key: K, value: T, p: number | undefined): void {
    const fireNow = w.maxTimestamp <= this.#watermark;
    if (p === undefined) {
      this.#addPane(w, key, value, fireNow);
      return;
    }
    const fn = this.#fn;
    const contents = w.contents;
    contents[p] = fn.add(contents[p] ?? fn.create(), value);
    const bits = w.bits;
    const b = bits[p];
    if (!fireNow) {
      if (w.marked) return;
      if (b !== (b | FIRE | CHANGED)) {
        bits[p] = b | FIRE | CHANGED;
        w.due = true;
      }
      return;
    }
    w.marked = false;
    bits[p] = b | CHANGED;
    this.#fireNow(w, p);
  }

  // A record's first pane in `w`: kept apart from #add, the path of most
  // records, so that #add stays small enough to inline.
  #addPane(w: PaneWindow<K, ACC>, key: K, value: T, fireNow: boolean): void {
    // The id is taken before add, as the general engine takes it; then
    // its trigger registers the fire timer, which the timer service
    // refuses beyond the safe range (a window clipped at its start), and
    // the record leaves nothing behind but the id. An existing pane's
    // timer passed this check when it was made.
    const fn = this.#fn;
    const id = this.#nextId++;
    if (!fireNow) checkTimer(id, w.maxTimestamp, REGISTER_EVENT);
    const contents = fn.add(fn.create(), value);
    this.#numCreated++;
    if (!fireNow) {
      w.add(key, contents, id, FIRE | CHANGED | w.registered);
      w.due = true;
      return;
    }
    this.#fireNow(w, w.add(key, contents, id, CHANGED));
  }

  // A record for a window the watermark passed (within the allowed
  // lateness): EventTimeTrigger fires it at once; then the cleanup timer
  // is registered if it never was (not when the fire threw).
  #fireNow(w: PaneWindow<K, ACC>, p: number): void {
    this.#sweep.fireNow(w, p, this.#watermark);
    const b = w.bits[p];
    if ((b & REGISTERED) === 0) w.bits[p] = b | w.registered;
  }

  processWatermark(watermark: number): void {
    if (!(watermark > this.#watermark)) return;
    requireWatermark(watermark, WATERMARK);
    this.#watermark = watermark;
    this.#windows.forget();
    this.#sweep.sweep(watermark);
    this.#output.emitWatermark(watermark);
  }

  slotGroups(): WindowSlotSnapshot<K, ACC>[][] {
    return this.#groups.groups(this.#windows.order);
  }

  snapshotWithoutSlots(): Omit<WindowOperatorSnapshot<K, ACC>, "slots"> {
    return {
      nextId: this.#nextId,
      timers: {
        currentWatermark: this.#watermark,
        eventTime: timerPairs(this.#windows.order, this.#lateness),
        processingTime: [],
      },
      numLateRecordsDropped: this.#numLateRecordsDropped,
    };
  }

  /**
   * Restores `snapshot`; false (and nothing changed) if it holds what panes
   * cannot (see panesHold): the operator then goes on on its general engine.
   */
  restore(
    snapshot: WindowOperatorSnapshot<K, ACC>,
    lastFiredWindowEnd: number,
  ): boolean {
    if (!panesHold(snapshot.slots, snapshot.timers, this.#lateness)) {
      return false;
    }
    const restored = restorePanes(
      snapshot.slots,
      snapshot.timers,
      this.#lateness,
    );
    this.#windows.reset(restored.windows);
    this.#numCreated = snapshot.slots.length;
    this.#sweep.numDropped = 0;
    // The operator's, which it had from the general engine if it ran there.
    this.#sweep.lastFiredWindowEnd = lastFiredWindowEnd;
    this.#watermark = restored.watermark;
    this.#nextId = snapshot.nextId;
    this.#numLateRecordsDropped = snapshot.numLateRecordsDropped;
    this.#groups.clear();
    return true;
  }
}

/**
 * The pane engine of a window operator with these options, or null when
 * its windows need the general engine: the pane engine takes tumbling or
 * sliding event-time windows with EventTimeTrigger itself (not a subclass,
 * which may decide otherwise, nor one patched on the instance: see
 * isExactEventTimeTrigger).
 *
 * @param options The operator's options.
 * @param assignerContext The operator's context for its assigner.
 * @param output Receives results, side outputs and watermarks.
 */
export function paneEngineOf<T, K, ACC, OUT>(
  options: WindowOperatorOptions<T, K, ACC, OUT>,
  assignerContext: WindowAssignerContext,
  output: WindowOutput<OUT>,
): PaneEngine<T, K, ACC, OUT> | null {
  const assigner = Object.getPrototypeOf(options.assigner);
  if (
    (assigner !== TumblingEventTimeWindows.prototype &&
      assigner !== SlidingEventTimeWindows.prototype) ||
    !isExactEventTimeTrigger(options.trigger)
  ) {
    return null;
  }
  return new PaneEngine({
    ...engineOptionsOf(options),
    assigner: options.assigner,
    assignerContext,
  }, output);
}
