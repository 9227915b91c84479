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

import type { Clock } from "../time/mod.ts";
import { requireWatermark } from "../time/validate.ts";
import { WATERMARK } from "./_timer_checks.ts";
import { PaneFireContext } from "./_pane_fire_context.ts";
import {
  countTimers,
  PaneGroups,
  restorePanes,
  timerPairs,
} from "./_pane_snapshot.ts";
import {
  CHANGED,
  CLEAN,
  FIRE,
  GONE,
  PaneWindow,
  REGISTERED,
} from "./_pane_window.ts";
import { EventTimeTrigger } from "./event_time_trigger.ts";
import type { OutputTag } from "./output_tag.ts";
import { SlidingEventTimeWindows } from "./sliding.ts";
import type { TimeWindow } from "./time_window.ts";
import type { Trigger } from "./trigger.ts";
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
import type { WindowOutput } from "./window_output.ts";

/** What a {@linkcode PaneEngine} is built from: its operator's options. */
export interface PaneEngineOptions<T, K, ACC, OUT> {
  assigner: WindowAssigner<T>;
  assignerContext: WindowAssignerContext;
  keySelector: (value: T) => K;
  windowFunction: WindowFunction<T, ACC, OUT, K>;
  allowedLatenessMs: number;
  lateDataTag: OutputTag<T> | null;
  clock: Clock;
  partitionOf?: (key: K) => number;
}

// The index key of a window: its start, which tells fixed-size windows
// apart except where starts are clipped to the safe range (see
// _window_slots.ts); those are keyed by their end, as a string.
function boundsKey(window: TimeWindow): number | string {
  const start = window.start;
  return start === Number.MIN_SAFE_INTEGER ? `end ${window.end}` : start;
}

/** The engine of a window operator with fixed event-time windows. */
export class PaneEngine<T, K, ACC, OUT> {
  readonly #assigner: WindowAssigner<T>;
  readonly #assignerContext: WindowAssignerContext;
  readonly #keyOf: (value: T) => K;
  readonly #fn: WindowFunction<T, ACC, OUT, K>;
  readonly #lateness: number;
  readonly #lateTag: OutputTag<T> | null;
  readonly #clock: Clock;
  readonly #output: WindowOutput<OUT>;
  readonly #groups: PaneGroups<K, ACC>;
  #watermark = -Infinity;
  #nextId = 0;
  #numLateRecordsDropped = 0;
  #numPanes = 0;
  /** The largest end of a window fired so far; `-Infinity` before the first. */
  lastFiredWindowEnd = -Infinity;
  #windows = new Map<number | string, PaneWindow<K, ACC>>();
  // The live windows by end (ties in creation order).
  #order: PaneWindow<K, ACC>[] = [];
  // The windows of the last two assigned arrays (null: late). Assigners
  // hand out the same array for the records of one slide, and the windows
  // of an array only change when the watermark moves, which clears these.
  #lastAssigned: TimeWindow[] | null = null;
  #lastResolved: (PaneWindow<K, ACC> | null)[] = [];
  #prevAssigned: TimeWindow[] | null = null;
  #prevResolved: (PaneWindow<K, ACC> | null)[] = [];
  // The timestamp of the results being emitted, and how many so far.
  #fireTimestamp = 0;
  #emitted = 0;
  readonly #collect: (value: OUT) => void;

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
    this.#clock = options.clock;
    this.#output = output;
    this.#groups = new PaneGroups(options.partitionOf);
    this.#collect = (value: OUT): void => {
      output.collect(value, this.#fireTimestamp);
      this.#emitted++;
    };
  }

  get currentWatermark(): number {
    return this.#watermark;
  }

  get numLateRecordsDropped(): number {
    return this.#numLateRecordsDropped;
  }

  get numWindows(): number {
    return this.#numPanes;
  }

  get numTimers(): number {
    return countTimers(this.#order, this.#lateness);
  }

  processBatch(values: readonly T[], timestamps: ArrayLike<number>): void {
    const n = values.length;
    let i = 0;
    try {
      for (; i < n; i++) this.#processRecord(values[i], timestamps[i]);
    } catch (error) {
      this.#resume(values, timestamps, i, error);
    }
  }

  // As WindowOperator's: the record at `failed` is rejected (it left
  // nothing behind, see #add), and the batch goes on after it.
  #resume(
    values: readonly T[],
    timestamps: ArrayLike<number>,
    failed: number,
    error: unknown,
  ): void {
    const reject = this.#output.rejectRecord;
    let i = failed;
    for (;;) {
      if (reject === undefined) throw error;
      reject(values[i], timestamps[i], error, i);
      try {
        for (i++; i < values.length; i++) {
          this.#processRecord(values[i], timestamps[i]);
        }
        return;
      } catch (thrown) {
        error = thrown;
      }
    }
  }

  processElement(value: T, timestamp: number): void {
    this.#processRecord(value, timestamp);
  }

  #processRecord(value: T, timestamp: number): void {
    const key = this.#keyOf(value);
    const assigned = this.#assigner.assignWindows(
      value,
      timestamp,
      this.#assignerContext,
    );
    const windows = assigned === this.#lastAssigned
      ? this.#lastResolved
      : this.#resolve(assigned);
    let skipped = true;
    for (let i = 0; i < windows.length; i++) {
      const w = windows[i];
      if (w === null) continue;
      skipped = false;
      this.#add(w, key, value);
    }
    if (skipped && timestamp + this.#lateness <= this.#watermark) {
      if (this.#lateTag !== null) {
        this.#output.sideOutput(
          this.#lateTag as OutputTag<unknown>,
          value,
          timestamp,
        );
      } else {
        this.#numLateRecordsDropped++;
      }
    }
  }

  // The live windows of `assigned`, created where missing; null for a late
  // one (past its cleanup time).
  #resolve(assigned: TimeWindow[]): (PaneWindow<K, ACC> | null)[] {
    let resolved: (PaneWindow<K, ACC> | null)[];
    if (assigned === this.#prevAssigned) {
      resolved = this.#prevResolved;
    } else {
      resolved = [];
      for (const window of assigned) resolved.push(this.#windowOf(window));
    }
    this.#prevAssigned = this.#lastAssigned;
    this.#prevResolved = this.#lastResolved;
    this.#lastAssigned = assigned;
    this.#lastResolved = resolved;
    return resolved;
  }

  #windowOf(window: TimeWindow): PaneWindow<K, ACC> | null {
    const key = boundsKey(window);
    const found = this.#windows.get(key);
    if (found !== undefined) {
      return found.cleanup <= this.#watermark ? null : found;
    }
    const created = new PaneWindow<K, ACC>(window, this.#lateness);
    if (created.cleanup <= this.#watermark) return null;
    this.#windows.set(key, created);
    const order = this.#order;
    let at = order.length;
    while (at > 0 && order[at - 1].window.end > window.end) at--;
    if (at === order.length) order.push(created);
    else order.splice(at, 0, created);
    return created;
  }

  // EventTimeTrigger.onElement (a fire now, or the fire timer), the
  // function's add, then the fire asked for and the cleanup timer, as the
  // general engine does. The timer is set once add returned: if add throws,
  // the general engine takes back the timer (and a new pane) again, so the
  // record leaves nothing behind either way.
  #add(w: PaneWindow<K, ACC>, key: K, value: T): void {
    const fn = this.#fn;
    const fireNow = w.maxTimestamp <= this.#watermark;
    const p = w.index.get(key);
    if (p === undefined) {
      // The id is taken before add, as the general engine takes it.
      const id = this.#nextId++;
      const contents = fn.add(fn.create(), value);
      this.#numPanes++;
      if (!fireNow) {
        w.add(key, contents, id, FIRE | CHANGED | w.registered);
        w.due = true;
        return;
      }
      this.#fireNow(w, w.add(key, contents, id, CHANGED));
      return;
    }
    const contents = w.contents;
    contents[p] = fn.add(contents[p] ?? fn.create(), value);
    const bits = w.bits;
    const b = bits[p];
    if (!fireNow) {
      if (b !== (b | FIRE | CHANGED)) {
        bits[p] = b | FIRE | CHANGED;
        w.due = true;
      }
      return;
    }
    bits[p] = b | CHANGED;
    this.#fireNow(w, p);
  }

  // A record for a window the watermark passed (within the allowed
  // lateness): EventTimeTrigger fires it at once; then the cleanup timer
  // is registered if it never was (not when the fire threw).
  #fireNow(w: PaneWindow<K, ACC>, p: number): void {
    this.#fireTimestamp = w.maxTimestamp;
    this.#emit(w, p, this.#context(w));
    const b = w.bits[p];
    if ((b & REGISTERED) === 0) w.bits[p] = b | w.registered;
  }

  #context(w: PaneWindow<K, ACC>): PaneFireContext {
    return new PaneFireContext(
      w.window,
      this.#watermark,
      this.#clock,
      this.#output as WindowOutput<unknown>,
    );
  }

  // Emits pane `p` of `w` (#fireTimestamp set to its maxTimestamp).
  #emit(w: PaneWindow<K, ACC>, p: number, context: PaneFireContext): void {
    const contents = w.contents[p];
    if (contents === undefined) return;
    const end = w.window.end;
    if (end > this.lastFiredWindowEnd) this.lastFiredWindowEnd = end;
    this.#emitted = 0;
    try {
      this.#fn.emit(w.keys[p], context, contents, this.#collect);
    } catch (error) {
      const reject = this.#output.rejectFire;
      if (reject === undefined) throw error;
      reject(w.keys[p], w.window, error, this.#emitted);
    }
  }

  processWatermark(watermark: number): void {
    if (!(watermark > this.#watermark)) return;
    requireWatermark(watermark, WATERMARK);
    this.#watermark = watermark;
    this.#lastAssigned = null;
    this.#prevAssigned = null;
    this.#sweep(watermark);
    this.#output.emitWatermark(watermark);
  }

  // Fires and cleans up every window due at `watermark`, in end order.
  #sweep(watermark: number): void {
    const order = this.#order;
    // The windows fired so far: if a window function throws (and there is
    // no rejectFire), those are cleaned up and the others stay due.
    let done = 0;
    try {
      for (let i = 0; i < order.length; i = done) {
        const w = order[i];
        if (w.maxTimestamp > watermark) break;
        let last = i;
        if (w.due) {
          last = i + 1 < order.length &&
              order[i + 1].maxTimestamp === w.maxTimestamp
            ? this.#fireTies(order, i)
            : i;
          if (last === i) this.#fire(w);
        }
        done = last + 1;
      }
    } finally {
      this.#dropGone(watermark, done);
    }
  }

  // Fires the panes of `w` whose fire timer is pending, in id order; with
  // lateness 0 that timer is also the cleanup, and the pane goes.
  #fire(w: PaneWindow<K, ACC>): void {
    const pending = this.#lateness === 0 ? FIRE | CLEAN : FIRE;
    const cleaned = this.#lateness === 0 ? GONE : 0;
    const bits = w.bits;
    const context = this.#context(w);
    this.#fireTimestamp = w.maxTimestamp;
    const n = bits.length;
    for (let p = 0; p < n; p++) {
      const b = bits[p];
      if ((b & pending) === 0) continue;
      bits[p] = b & ~pending;
      this.#emit(w, p, context);
      bits[p] |= cleaned;
    }
    w.due = false;
  }

  // Windows that share their maxTimestamp (only those clipped to the end
  // of the safe range): their panes fire in id order across windows.
  // Returns the index of the last of them.
  #fireTies(order: PaneWindow<K, ACC>[], first: number): number {
    const time = order[first].maxTimestamp;
    let last = first;
    while (last + 1 < order.length && order[last + 1].maxTimestamp === time) {
      last++;
    }
    const pending = this.#lateness === 0 ? FIRE | CLEAN : FIRE;
    const cleaned = this.#lateness === 0 ? GONE : 0;
    const due: [number, PaneWindow<K, ACC>, number][] = [];
    for (let i = first; i <= last; i++) {
      const w = order[i];
      for (let p = 0; p < w.bits.length; p++) {
        if ((w.bits[p] & pending) !== 0) due.push([w.ids[p], w, p]);
      }
    }
    due.sort((a, b) => a[0] - b[0]);
    this.#fireTimestamp = time;
    for (const [, w, p] of due) {
      w.bits[p] &= ~pending;
      this.#emit(w, p, this.#context(w));
      w.bits[p] |= cleaned;
    }
    for (let i = first; i <= last; i++) order[i].due = false;
    return last;
  }

  // Drops the panes cleaned up at `watermark` in the first `done` windows
  // (and those a throw left GONE in the next), and the windows left empty.
  #dropGone(watermark: number, done: number): void {
    const order = this.#order;
    let emptied = 0;
    for (let i = 0; i <= done && i < order.length; i++) {
      const w = order[i];
      if (w.maxTimestamp > watermark) break;
      const cleaning = i < done && w.cleanup <= watermark;
      // With lateness, only a cleanup marks panes GONE.
      if (!cleaning && this.#lateness > 0) continue;
      if (cleaning) {
        const bits = w.bits;
        for (let p = 0; p < bits.length; p++) {
          if ((bits[p] & CLEAN) !== 0) bits[p] = GONE;
        }
      }
      const before = w.size;
      w.sweepGone(this.#groups.removed);
      this.#numPanes -= before - w.size;
      if (cleaning && w.size === 0) {
        w.dropped = true;
        this.#windows.delete(boundsKey(w.window));
        emptied++;
      }
    }
    if (emptied > 0) this.#order = order.filter((w) => !w.dropped);
  }

  slotGroups(): WindowSlotSnapshot<K, ACC>[][] {
    return this.#groups.groups(this.#order);
  }

  snapshotWithoutSlots(): Omit<WindowOperatorSnapshot<K, ACC>, "slots"> {
    return {
      nextId: this.#nextId,
      timers: {
        currentWatermark: this.#watermark,
        eventTime: timerPairs(this.#order, this.#lateness),
        processingTime: [],
      },
      numLateRecordsDropped: this.#numLateRecordsDropped,
    };
  }

  restore(snapshot: WindowOperatorSnapshot<K, ACC>): void {
    const restored = restorePanes(
      snapshot.slots,
      snapshot.timers,
      this.#lateness,
    );
    this.#windows = new Map();
    restored.windows.sort((a, b) => a.window.end - b.window.end);
    let panes = 0;
    for (const w of restored.windows) {
      this.#windows.set(boundsKey(w.window), w);
      panes += w.size;
    }
    this.#order = restored.windows;
    this.#numPanes = panes;
    this.#watermark = restored.watermark;
    this.#nextId = snapshot.nextId;
    this.#numLateRecordsDropped = snapshot.numLateRecordsDropped;
    this.#groups.clear();
    this.#lastAssigned = null;
    this.#prevAssigned = null;
  }
}

/**
 * Whether a window operator with `assigner` and `trigger` (undefined: the
 * assigner's default) runs on the pane engine: tumbling or sliding event-time
 * windows with EventTimeTrigger itself (not a subclass, which may change
 * what it decides).
 */
export function fitsPaneEngine<T>(
  assigner: WindowAssigner<T>,
  trigger: Trigger<T> | undefined,
): boolean {
  const proto = Object.getPrototypeOf(assigner);
  if (
    proto !== TumblingEventTimeWindows.prototype &&
    proto !== SlidingEventTimeWindows.prototype
  ) {
    return false;
  }
  return trigger === undefined ||
    Object.getPrototypeOf(trigger) === EventTimeTrigger.prototype;
}
