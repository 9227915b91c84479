/**
 * The window operator: assigns records to windows per key, keeps their
 * contents, and emits them when the trigger says so.
 *
 * @module
 */

import { type GroupedItem, SnapshotGroups } from "./_snapshot_groups.ts";
import type { Clock } from "../time/mod.ts";
import { requireNonNegativeInteger } from "../time/_validate.ts";
import { cleanupTime, isElementLate, isWindowLate } from "./lateness.ts";
import type { OutputTag } from "./output_tag.ts";
import { mergeWindows, TimeWindow } from "./time_window.ts";
import { TimerService, type TimerServiceSnapshot } from "./timer_service.ts";
import type { OnMergeContext, Trigger, TriggerResult } from "./trigger.ts";
import type {
  ProcessWindowContext,
  WindowFunction,
} from "./window_function.ts";
import type {
  WindowAssigner,
  WindowAssignerContext,
} from "./window_assigner.ts";

/** Where a window operator sends what it produces. */
export interface WindowOutput<OUT> {
  /** A window result, with the window's `maxTimestamp()` as its timestamp. */
  collect(value: OUT, timestamp: number): void;
  /** A late record (original timestamp) or a process function's side output. */
  sideOutput(tag: OutputTag<unknown>, value: unknown, timestamp: number): void;
  /** The watermark, after everything it caused was emitted. */
  emitWatermark(watermark: number): void;
  /**
   * A record of `processBatch` (its index in the batch) whose key selector,
   * window assignment, trigger (`onElement`; `onMerge` or `clear` while
   * its windows merge) or window function (`add`: an aggregate, a reduce;
   * `merge`) threw, and the batch goes on. The record has no effect on the
   * window it threw for: a window it created is gone, and an existing one
   * keeps its contents, trigger state and timers. Its earlier windows (a
   * sliding record's first ones) keep it, and windows it merged stay
   * merged. One limit: an `add` that changed the accumulator it was given
   * before it threw keeps that change, as the operator does not copy
   * accumulators per record; return a new accumulator, or throw before
   * changing it. Absent: the error propagates.
   */
  rejectRecord?(
    value: unknown,
    timestamp: number,
    error: unknown,
    index: number,
  ): void;
  /**
   * A window whose function threw when it fired: the window counts as
   * fired (a purge or cleanup still happens). `emitted` results were
   * collected before the throw; the receiver drops them. Also a window
   * whose trigger threw on one of its timers (`onEventTime`,
   * `onProcessingTime`) or at its cleanup (`clear`), with `emitted` 0: its
   * trigger state is then unknown, so the window is dropped as at its
   * cleanup (contents, trigger state and timers) and its trigger is not
   * called again; a trigger that throws on every timer costs one dead
   * letter per window, never a crash loop. Absent: the error propagates.
   */
  rejectFire?(
    key: unknown,
    window: TimeWindow,
    error: unknown,
    emitted: number,
  ): void;
}

/** Options of a {@linkcode WindowOperator}. */
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
   * that {@linkcode WindowOperator.slotGroups} can hand out unchanged groups
   * as they were: an incremental checkpoint re-encodes only changed groups.
   * Called once per (key, window), not per record.
   * @default {() => 0} (one group)
   */
  partitionOf?: (key: K) => number;
}

/** One (key, window) and what it holds, as plain data. */
export interface WindowSlotSnapshot<K, ACC> {
  /** The id timers refer to. */
  id: number;
  /** The key. */
  key: K;
  /** Window start in milliseconds. */
  start: number;
  /** Window end in milliseconds. */
  end: number;
  /** The contents, absent when empty (e.g. after a purge). */
  contents?: ACC;
  /** The trigger's state, if any. */
  triggerState?: number;
}

/** A window operator's state as plain data, for checkpoints. */
export interface WindowOperatorSnapshot<K, ACC> {
  /** Every live (key, window). */
  slots: WindowSlotSnapshot<K, ACC>[];
  /** The next id to hand out. */
  nextId: number;
  /** Timers and the current watermark. */
  timers: TimerServiceSnapshot;
  /** Records dropped as late so far. */
  numLateRecordsDropped: number;
}

// How many window starts' inner maps #find remembers (a sliding window's
// record has size/slide windows; more than this only costs the Map lookup).
const RECENT = 8;

// The outer index key of a non-merging window: its start, which tells
// fixed-size windows apart, except at the start of the safe range. Sliding
// windows that would begin before it are clipped to start there (see
// TimeWindow) and differ only in their end; they are keyed by the end, as
// a string, which no start can equal. Only records within one window size
// of Number.MIN_SAFE_INTEGER build such a key.
function startKey(window: TimeWindow): number | string {
  const start = window.start;
  return start === Number.MIN_SAFE_INTEGER ? `end ${window.end}` : start;
}

interface Slot<K, ACC> extends GroupedItem {
  readonly id: number;
  readonly key: K;
  // Replaced when a session grows in place (see #extend).
  window: TimeWindow;
  contents: ACC | undefined;
  triggerState: number | undefined;
  // The cleanup time is fixed per window, so its timer is registered once
  // instead of on every record (Flink re-registers and deduplicates).
  cleanupRegistered: boolean;
  // The event-time timer the trigger last registered and that is known to be
  // pending: triggers re-register the same timer on every record, and this
  // skips the timer service's lookup for the repeats. NaN when unknown.
  knownEventTimer: number;
  // The same for the trigger's processing-time timer.
  knownProcessingTimer: number;
}

/**
 * Flink's `WindowOperator` for one subtask: keyed windows with triggers,
 * allowed lateness, a late-data side output, cleanup and merging (sessions).
 *
 * Contract, in the order of Flink's rules (reference §4.4):
 * - A record is added to each of its windows that is not late
 *   (`maxTimestamp + allowedLateness <= watermark`); the trigger decides at
 *   once whether to fire. A record skipped by all its windows that is itself
 *   late (`timestamp + allowedLateness <= watermark`) goes to the late side
 *   output, or is counted in `numLateRecordsDropped`.
 * - Results carry the window's `maxTimestamp()`. A window with no contents
 *   (after a purge) emits nothing when it fires.
 * - Each window's state is dropped at `cleanupTime` (`maxTimestamp +
 *   allowedLateness`; no timer when that is beyond the safe range); with
 *   lateness 0 the firing and the cleanup are one timer.
 * - `processWatermark(w)` fires every timer with `timestamp <= w` in
 *   timestamp order, then forwards `w`: results come before the watermark
 *   that caused them. A watermark not above the current one is dropped.
 * - Merging assigners merge a record's window with the windows of its key it
 *   touches; if the merged window would already be late the record is
 *   rejected with an error (Flink's "cannot become earlier than the
 *   current watermark by merging").
 *
 * Cost: per record, one key lookup and one window lookup per assigned window
 * plus the trigger's timer registration (deduplicated in O(1)). Memory is one
 * slot per live (key, window), released at cleanup. Not thread safe.
 *
 * @typeParam T The record type.
 * @typeParam K The key type.
 * @typeParam ACC What each window keeps.
 * @typeParam OUT The output type.
 */
export class WindowOperator<T, K, ACC, OUT> {
  readonly #assigner: WindowAssigner<T>;
  // Read once: the assigner's flags are fixed, and these are read per record.
  readonly #merging: boolean;
  readonly #eventTime: boolean;
  readonly #keyOf: (value: T) => K;
  readonly #fn: WindowFunction<T, ACC, OUT, K>;
  readonly #trigger: Trigger<T>;
  readonly #lateness: number;
  readonly #lateTag: OutputTag<T> | null;
  readonly #clock: Clock;
  readonly #output: WindowOutput<OUT>;
  readonly #assignerContext: WindowAssignerContext;
  #batchTime: number | null = null;
  readonly #timers = new TimerService();
  readonly #context: SlotContext<K, ACC>;
  // Two-level index of the live slots. The window start identifies a window
  // of one key: fixed-size windows differ in start, and merged sessions never
  // overlap. Merging assigners index key -> start (they need the windows of a
  // key); the others start -> key, since few windows are live at a time and
  // the inner maps are then keyed by small keys, which hash fast.
  #index = new Map<unknown, Map<unknown, Slot<K, ACC>>>();
  #byId = new Map<number, Slot<K, ACC>>();
  readonly #recentStarts = new Float64Array(RECENT).fill(NaN);
  readonly #recentInner = new Array<Map<unknown, Slot<K, ACC>> | undefined>(
    RECENT,
  ).fill(undefined);
  #recentNext = 0;
  // A record with more windows than RECENT would evict each start before
  // its next use (the starts come round in the same order): no caching then.
  #skipRecent = false;
  readonly #groups: SnapshotGroups<Slot<K, ACC>, WindowSlotSnapshot<K, ACC>>;
  #nextId = 0;
  #numLateRecordsDropped = 0;

  /**
   * Creates an operator with no windows.
   *
   * @param options Assigner, key, function, trigger, lateness, late tag, clock.
   * @param output Receives results, side outputs and watermarks.
   * @throws {RangeError} If `allowedLatenessMs` is negative or not a safe integer.
   * @throws {TypeError} If the trigger cannot merge but the assigner merges.
   */
  constructor(
    options: WindowOperatorOptions<T, K, ACC, OUT>,
    output: WindowOutput<OUT>,
  ) {
    this.#assigner = options.assigner;
    this.#merging = options.assigner.isMerging;
    this.#eventTime = options.assigner.isEventTime;
    this.#keyOf = options.keySelector;
    this.#fn = options.windowFunction;
    this.#trigger = options.trigger ?? options.assigner.defaultTrigger();
    this.#lateness = requireNonNegativeInteger(options.allowedLatenessMs ?? 0, {
      action: "create WindowOperator",
      param: "allowedLatenessMs",
    });
    if (this.#merging && !this.#trigger.canMerge) {
      throw new TypeError(
        "Cannot create WindowOperator as 'trigger' must support merging for a merging assigner: current value cannot merge",
      );
    }
    this.#lateTag = options.lateDataTag ?? null;
    this.#clock = options.clock;
    this.#output = output;
    const clock = options.clock;
    this.#assignerContext = {
      clock: { now: () => this.#batchTime ?? clock.now() },
    };
    const partitionOf = options.partitionOf;
    this.#groups = new SnapshotGroups(
      partitionOf === undefined ? () => 0 : (slot) => partitionOf(slot.key),
      slotSnapshot,
    );
    this.#context = new SlotContext(this.#timers, options.clock);
  }

  /** The current watermark; `-Infinity` before the first. */
  get currentWatermark(): number {
    return this.#timers.currentWatermark;
  }

  /** Records dropped as late because no late-data tag was set. */
  get numLateRecordsDropped(): number {
    return this.#numLateRecordsDropped;
  }

  /** The number of live (key, window) pairs. */
  get numWindows(): number {
    return this.#byId.size;
  }

  /** The number of pending event-time and processing-time timers. */
  get numTimers(): number {
    return this.#timers.numEventTimeTimers() +
      this.#timers.numProcessingTimeTimers();
  }

  /**
   * Processes a batch of records, each with its event timestamp. A
   * processing-time assigner sees the clock read once for the batch.
   *
   * @param values The records.
   * @param timestamps Their timestamps in milliseconds, same length.
   */
  processBatch(values: readonly T[], timestamps: ArrayLike<number>): void {
    // Processing-time assigners see one time per batch, as a batch is
    // processed at one instant: reading the clock per record cost more than
    // the rest of the record's work.
    if (!this.#eventTime) this.#batchTime = this.#clock.now();
    // A record whose user code throws goes to rejectRecord and the loop
    // resumes after it (issue 16); processElement runs user code before it
    // changes anything.
    const n = values.length;
    let i = 0;
    try {
      while (i < n) {
        try {
          for (; i < n; i++) this.processElement(values[i], timestamps[i]);
        } catch (error) {
          const reject = this.#output.rejectRecord;
          if (reject === undefined) throw error;
          reject(values[i], timestamps[i], error, i);
          i++;
        }
      }
    } finally {
      this.#batchTime = null;
    }
  }

  /**
   * Processes one record.
   *
   * @param value The record.
   * @param timestamp Its event timestamp in milliseconds.
   * @throws {RangeError} If merging would make a window end before the watermark.
   */
  processElement(value: T, timestamp: number): void {
    const key = this.#keyOf(value);
    const windows = this.#assigner.assignWindows(
      value,
      timestamp,
      this.#assignerContext,
    );
    const watermark = this.#timers.currentWatermark;
    const eventTime = this.#eventTime;
    this.#skipRecent = windows.length > RECENT;
    let skipped = true;
    for (const assigned of windows) {
      let window = assigned;
      if (this.#merging) {
        window = this.#addMergingWindow(key, assigned);
        if (eventTime && isWindowLate(window, this.#lateness, watermark)) {
          this.#retire(key, window);
          continue;
        }
      } else if (
        eventTime && isWindowLate(assigned, this.#lateness, watermark)
      ) {
        continue;
      }
      skipped = false;
      const found = this.#find(key, window);
      const slot = found ?? this.#create(key, window);
      const result = this.#addElement(value, timestamp, slot, found === slot);
      this.#apply(result, slot);
      if (!slot.cleanupRegistered) this.#registerCleanupTimer(slot);
    }
    if (
      skipped && eventTime &&
      isElementLate(timestamp, this.#lateness, watermark)
    ) {
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

  /**
   * Advances event time: fires every timer at or before `watermark`, then
   * forwards it. A watermark not above the current one is dropped.
   *
   * @param watermark The new watermark in milliseconds.
   */
  processWatermark(watermark: number): void {
    if (!(watermark > this.#timers.currentWatermark)) return;
    this.#timers.advanceWatermark(watermark, this.#onEventTime);
    this.#output.emitWatermark(watermark);
  }

  /**
   * Fires the processing-time timers due at the clock's current time.
   * The runtime calls this when `nextProcessingTimeTimer` is due.
   */
  onProcessingTime(): void {
    this.#timers.advanceProcessingTime(
      this.#clock.now(),
      this.#onProcessingTime,
    );
  }

  /** The earliest pending processing-time timer, or `Infinity`. */
  get nextProcessingTimeTimer(): number {
    return this.#timers.nextProcessingTimeTimer();
  }

  /**
   * Returns the state as plain data: window contents, trigger state, timers
   * and the watermark. Contents are shared, not copied: serialise the
   * snapshot before processing more records.
   */
  snapshot(): WindowOperatorSnapshot<K, ACC> {
    return { ...this.snapshotWithoutSlots(), slots: this.slotGroups().flat() };
  }

  /**
   * The live slots as plain data, in groups (see
   * {@linkcode WindowOperatorOptions.partitionOf}). A group's array is the
   * very array of the previous call while nothing in the group changed, so
   * a checkpoint can reuse what it encoded then; a changed group gets a new
   * array. Contents are shared, not copied: serialise before processing more
   * records, and do not modify the arrays.
   */
  slotGroups(): WindowSlotSnapshot<K, ACC>[][] {
    return this.#groups.groups(this.#byId.values());
  }

  /** The snapshot's fields other than `slots`: see {@linkcode slotGroups}. */
  snapshotWithoutSlots(): Omit<WindowOperatorSnapshot<K, ACC>, "slots"> {
    return {
      nextId: this.#nextId,
      timers: this.#timers.snapshot(),
      numLateRecordsDropped: this.#numLateRecordsDropped,
    };
  }

  /**
   * Replaces the state with a snapshot; emits nothing. Restored timers fire
   * on the next watermark (or processing time) that reaches them.
   *
   * @param snapshot A snapshot of an operator with the same configuration.
   */
  restore(snapshot: WindowOperatorSnapshot<K, ACC>): void {
    this.#index = new Map();
    this.#forgetRecent();
    this.#byId = new Map();
    this.#groups.clear();
    for (const entry of snapshot.slots) {
      const slot: Slot<K, ACC> = {
        id: entry.id,
        key: entry.key,
        window: new TimeWindow(entry.start, entry.end),
        contents: entry.contents,
        triggerState: entry.triggerState,
        cleanupRegistered: true,
        knownEventTimer: NaN,
        knownProcessingTimer: NaN,
        part: -1,
        changed: true,
      };
      this.#insert(slot);
    }
    this.#nextId = snapshot.nextId;
    this.#timers.restore(snapshot.timers);
    this.#numLateRecordsDropped = snapshot.numLateRecordsDropped;
  }

  /**
   * Adds a record to one of its windows: the trigger's `onElement`, then
   * the function's `add`. The trigger sees only its own state, never the
   * contents, so asking it first changes nothing it decides, and lets a
   * record whose trigger or `add` throws be taken back whole (issue 16): a
   * new slot goes, an existing one gets its trigger state and the timers
   * of this call back, and its contents are replaced only once `add`
   * returned (an `add` that changed its accumulator before it threw keeps
   * that change; see `WindowOutput.rejectRecord`).
   */
  #addElement(
    value: T,
    timestamp: number,
    slot: Slot<K, ACC>,
    existed: boolean,
  ): TriggerResult {
    const context = this.#context;
    const triggerState = slot.triggerState;
    const knownEventTimer = slot.knownEventTimer;
    const knownProcessingTimer = slot.knownProcessingTimer;
    // A new slot's timers all go with it; only an old one's are logged.
    context.recording = existed;
    try {
      const result = this.#trigger.onElement(
        value,
        timestamp,
        slot.window,
        context.on(slot),
      );
      slot.contents = this.#fn.add(slot.contents ?? this.#fn.create(), value);
      slot.changed = true;
      return result;
    } catch (error) {
      if (!existed) {
        this.#remove(slot);
      } else {
        context.undo(slot);
        slot.triggerState = triggerState;
        slot.knownEventTimer = knownEventTimer;
        slot.knownProcessingTimer = knownProcessingTimer;
      }
      throw error;
    } finally {
      context.recording = false;
      context.forget();
    }
  }

  readonly #onEventTime = (id: number, time: number): void => {
    const slot = this.#byId.get(id);
    if (slot === undefined) return;
    if (slot.knownEventTimer === time) slot.knownEventTimer = NaN;
    let result: TriggerResult;
    try {
      result = this.#trigger.onEventTime(
        time,
        slot.window,
        this.#context.on(slot),
      );
    } catch (error) {
      return this.#dropFailed(slot, error);
    }
    this.#apply(result, slot);
    if (
      this.#eventTime &&
      time === cleanupTime(slot.window, this.#lateness, true)
    ) {
      this.#clearAll(slot);
    }
  };

  readonly #onProcessingTime = (id: number, time: number): void => {
    const slot = this.#byId.get(id);
    if (slot === undefined) return;
    if (slot.knownProcessingTimer === time) slot.knownProcessingTimer = NaN;
    let result: TriggerResult;
    try {
      result = this.#trigger.onProcessingTime(
        time,
        slot.window,
        this.#context.on(slot),
      );
    } catch (error) {
      return this.#dropFailed(slot, error);
    }
    this.#apply(result, slot);
    if (
      !this.#eventTime &&
      time === cleanupTime(slot.window, this.#lateness, false)
    ) {
      this.#clearAll(slot);
    }
  };

  /**
   * A window whose trigger threw on a timer or at its cleanup: its state
   * (contents, trigger state, timers) is unknown to be sound, so it is
   * dropped as at its cleanup, without calling the trigger again, and set
   * aside as `{ key, window }` (issue 16). Without `rejectFire`, the error
   * propagates and the window stays.
   */
  #dropFailed(slot: Slot<K, ACC>, error: unknown): void {
    const reject = this.#output.rejectFire;
    if (reject === undefined) throw error;
    this.#remove(slot);
    reject(slot.key, slot.window, error, 0);
  }

  #apply(result: TriggerResult, slot: Slot<K, ACC>): void {
    if (result === "continue") return;
    if (result === "fire" || result === "fire_and_purge") this.#emit(slot);
    if (result === "purge" || result === "fire_and_purge") {
      slot.contents = undefined;
      slot.changed = true;
    }
  }

  #emit(slot: Slot<K, ACC>): void {
    if (slot.contents === undefined) return;
    const timestamp = slot.window.maxTimestamp();
    const output = this.#output;
    const context: ProcessWindowContext = {
      window: slot.window,
      currentWatermark: this.#timers.currentWatermark,
      currentProcessingTime: this.#clock.now(),
      output(tag, value) {
        output.sideOutput(tag as OutputTag<unknown>, value, timestamp);
      },
    };
    let emitted = 0;
    try {
      this.#fn.emit(slot.key, context, slot.contents, function collect(value) {
        output.collect(value, timestamp);
        emitted++;
      });
    } catch (error) {
      // One try per fired window, not per record (issue 16).
      if (output.rejectFire === undefined) throw error;
      output.rejectFire(slot.key, slot.window, error, emitted);
    }
  }

  #registerCleanupTimer(slot: Slot<K, ACC>): void {
    slot.cleanupRegistered = true;
    const eventTime = this.#eventTime;
    const time = cleanupTime(slot.window, this.#lateness, eventTime);
    if (time === Infinity) return;
    if (eventTime) this.#timers.registerEventTimeTimer(slot.id, time);
    else this.#timers.registerProcessingTimeTimer(slot.id, time);
  }

  #clearAll(slot: Slot<K, ACC>): void {
    try {
      this.#trigger.clear(slot.window, this.#context.on(slot));
    } catch (error) {
      return this.#dropFailed(slot, error);
    }
    this.#remove(slot);
  }

  #find(key: K, window: TimeWindow): Slot<K, ACC> | undefined {
    if (this.#merging) return this.#index.get(key)?.get(window.start);
    const start = startKey(window);
    // The inner maps of the last few window starts, looked up by comparing
    // numbers: a record's windows are nearly always among them, and hashing
    // an epoch-millisecond start (not a small integer) costs more.
    if (this.#skipRecent || typeof start === "string") {
      return this.#index.get(start)?.get(key);
    }
    const starts = this.#recentStarts;
    for (let i = 0; i < RECENT; i++) {
      if (starts[i] === start) return this.#recentInner[i]!.get(key);
    }
    const inner = this.#index.get(start);
    if (inner === undefined) return undefined;
    const at = this.#recentNext;
    this.#recentNext = (at + 1) % RECENT;
    starts[at] = start;
    this.#recentInner[at] = inner;
    return inner.get(key);
  }

  // An inner map appeared or went away: forget the recent ones.
  #forgetRecent(): void {
    this.#recentStarts.fill(NaN);
    this.#recentInner.fill(undefined);
  }

  // A new slot for a window #find did not find.
  #create(key: K, window: TimeWindow): Slot<K, ACC> {
    const created: Slot<K, ACC> = {
      id: this.#nextId++,
      key,
      window,
      contents: undefined,
      triggerState: undefined,
      cleanupRegistered: false,
      knownEventTimer: NaN,
      knownProcessingTimer: NaN,
      part: -1,
      changed: true,
    };
    this.#insert(created);
    return created;
  }

  #insert(slot: Slot<K, ACC>): void {
    const merging = this.#merging;
    const outer = merging ? slot.key : startKey(slot.window);
    let inner = this.#index.get(outer);
    if (inner === undefined) {
      inner = new Map();
      this.#index.set(outer, inner);
      if (!merging) this.#forgetRecent();
    }
    inner.set(merging ? slot.window.start : slot.key, slot);
    this.#byId.set(slot.id, slot);
  }

  #remove(slot: Slot<K, ACC>): void {
    this.#timers.deleteAllTimers(slot.id);
    this.#byId.delete(slot.id);
    this.#groups.removed(slot);
    const merging = this.#merging;
    const outer = merging ? slot.key : startKey(slot.window);
    const inner = this.#index.get(outer);
    if (inner === undefined) return;
    inner.delete(merging ? slot.window.start : slot.key);
    if (inner.size === 0) {
      this.#index.delete(outer);
      if (!merging) this.#forgetRecent();
    }
  }

  #retire(key: K, window: TimeWindow): void {
    const slot = this.#find(key, window);
    if (slot !== undefined && slot.window.equals(window)) this.#remove(slot);
  }

  /**
   * Adds `added` to the windows of `key`, merging what it touches (Flink's
   * `MergingWindowSet.addWindow` with the operator's merge function), and
   * returns the window the record belongs to.
   */
  #addMergingWindow(key: K, added: TimeWindow): TimeWindow {
    const existing = this.#index.get(key);
    if (existing === undefined || existing.size === 0) return added;
    if (existing.size === 1) {
      // One open session (the common case): it and the new window either
      // do not touch, or one covers the other, or they merge into their
      // cover; mergeWindows() would find the same without sorting.
      const window = existing.values().next().value!.window;
      if (!window.intersects(added)) return added;
      const cover = window.cover(added);
      if (cover.equals(window)) return window;
      this.#merge(key, cover, [window]);
      return cover;
    }
    const windows = [added];
    for (const slot of existing.values()) windows.push(slot.window);
    let result = added;
    const merges: Array<[TimeWindow[], TimeWindow]> = [];
    mergeWindows(windows, (merged, cover) => merges.push([merged, cover]));
    for (const [group, cover] of merges) {
      const mergedWindows = group.filter((window) => window !== added);
      if (mergedWindows.length < group.length) result = cover;
      // The new window fell inside one existing window: nothing merges.
      if (mergedWindows.length === 1 && mergedWindows[0].equals(cover)) {
        continue;
      }
      this.#merge(key, cover, mergedWindows);
    }
    return result;
  }

  #merge(key: K, cover: TimeWindow, mergedWindows: TimeWindow[]): void {
    if (
      this.#eventTime &&
      cleanupTime(cover, this.#lateness, true) <= this.#timers.currentWatermark
    ) {
      throw new RangeError(
        `Cannot merge windows as the end timestamp of an event-time window cannot become earlier than the current watermark by merging: current watermark is ${this.#timers.currentWatermark}, merged window is ${cover}`,
      );
    }
    const windows = this.#index.get(key)!;
    if (mergedWindows.length === 1) {
      this.#extend(windows, windows.get(mergedWindows[0].start)!, cover);
      return;
    }
    const merged: Slot<K, ACC>[] = [];
    for (const window of mergedWindows) merged.push(windows.get(window.start)!);
    let contents: ACC | undefined;
    const states: number[] = [];
    for (const slot of merged) {
      if (slot.contents !== undefined) {
        contents = contents === undefined
          ? slot.contents
          : this.#fn.merge(contents, slot.contents);
      }
      if (slot.triggerState !== undefined) states.push(slot.triggerState);
    }
    const target: Slot<K, ACC> = {
      id: this.#nextId++,
      key,
      window: cover,
      contents,
      triggerState: undefined,
      cleanupRegistered: false,
      knownEventTimer: NaN,
      knownProcessingTimer: NaN,
      part: -1,
      changed: true,
    };
    // A trigger that throws here fails the record that caused the merge,
    // but only once the merge is whole, with the merged window's cleanup
    // timer registered: no window is lost or left without a timer.
    const trigger = this.#trigger;
    let failure: { error: unknown } | null = null;
    try {
      trigger.onMerge(cover, this.#context.onMerge(target, states));
    } catch (error) {
      failure = { error };
    }
    for (const slot of merged) {
      try {
        trigger.clear(slot.window, this.#context.on(slot));
      } catch (error) {
        failure ??= { error };
      }
      this.#remove(slot);
    }
    this.#insert(target);
    if (failure !== null) {
      this.#registerCleanupTimer(target);
      throw failure.error;
    }
  }

  /**
   * Grows one existing window to `cover` in place: the common merge (a
   * record extends its key's session), done as Flink's merging window set
   * keeps its state window. The slot keeps its id and contents; its timers
   * and trigger state are those of a merge of that one window into
   * `cover`: the old window's are cleared, then the trigger's onMerge runs
   * for `cover` and the cleanup timer is registered again.
   */
  #extend(
    windows: Map<unknown, Slot<K, ACC>>,
    slot: Slot<K, ACC>,
    cover: TimeWindow,
  ): void {
    const states = slot.triggerState === undefined ? [] : [slot.triggerState];
    // As in #merge: a trigger that throws fails the record once the
    // window has grown and has its cleanup timer.
    let failure: { error: unknown } | null = null;
    try {
      this.#trigger.clear(slot.window, this.#context.on(slot));
    } catch (error) {
      failure = { error };
    }
    this.#timers.deleteAllTimers(slot.id);
    windows.delete(slot.window.start);
    slot.window = cover;
    slot.triggerState = undefined;
    slot.cleanupRegistered = false;
    slot.knownEventTimer = NaN;
    slot.knownProcessingTimer = NaN;
    slot.changed = true;
    windows.set(cover.start, slot);
    try {
      this.#trigger.onMerge(cover, this.#context.onMerge(slot, states));
    } catch (error) {
      failure ??= { error };
    }
    if (failure !== null) {
      this.#registerCleanupTimer(slot);
      throw failure.error;
    }
  }
}

// What SlotContext's undo log records.
const LOG_ADDED_EVENT = 0;
const LOG_DELETED_EVENT = 1;
const LOG_ADDED_PROCESSING = 2;
const LOG_DELETED_PROCESSING = 3;

/**
 * The trigger context, re-pointed at one slot per call so the per-record
 * path allocates nothing.
 */
class SlotContext<K, ACC> implements OnMergeContext {
  readonly #timers: TimerService;
  readonly #clock: Clock;
  #slot: Slot<K, ACC> | null = null;
  mergedStates: readonly number[] = [];
  /**
   * Whether timer changes are logged, so that `undo` can take them back
   * (an existing window's `onElement`). Only changes that reach the timer
   * service are logged, after one lookup: the repeats are skipped before.
   */
  recording = false;
  // Pairs of (change, timestamp): see the LOG_* constants.
  readonly #log: number[] = [];

  constructor(timers: TimerService, clock: Clock) {
    this.#timers = timers;
    this.#clock = clock;
  }

  on(slot: Slot<K, ACC>): this {
    this.#slot = slot;
    return this;
  }

  onMerge(slot: Slot<K, ACC>, states: readonly number[]): this {
    this.#slot = slot;
    this.mergedStates = states;
    return this;
  }

  get currentWatermark(): number {
    return this.#timers.currentWatermark;
  }

  get currentProcessingTime(): number {
    return this.#clock.now();
  }

  registerEventTimeTimer(timestamp: number): void {
    const slot = this.#slot!;
    if (slot.knownEventTimer === timestamp) return;
    const timers = this.#timers;
    if (this.recording && !timers.hasEventTimeTimer(slot.id, timestamp)) {
      this.#log.push(LOG_ADDED_EVENT, timestamp);
    }
    timers.registerEventTimeTimer(slot.id, timestamp);
    slot.knownEventTimer = timestamp;
  }

  deleteEventTimeTimer(timestamp: number): void {
    const slot = this.#slot!;
    if (slot.knownEventTimer === timestamp) slot.knownEventTimer = NaN;
    const timers = this.#timers;
    if (this.recording && timers.hasEventTimeTimer(slot.id, timestamp)) {
      this.#log.push(LOG_DELETED_EVENT, timestamp);
    }
    timers.deleteEventTimeTimer(slot.id, timestamp);
  }

  registerProcessingTimeTimer(timestamp: number): void {
    const slot = this.#slot!;
    if (slot.knownProcessingTimer === timestamp) return;
    const timers = this.#timers;
    if (this.recording && !timers.hasProcessingTimeTimer(slot.id, timestamp)) {
      this.#log.push(LOG_ADDED_PROCESSING, timestamp);
    }
    timers.registerProcessingTimeTimer(slot.id, timestamp);
    slot.knownProcessingTimer = timestamp;
  }

  deleteProcessingTimeTimer(timestamp: number): void {
    const slot = this.#slot!;
    if (slot.knownProcessingTimer === timestamp) {
      slot.knownProcessingTimer = NaN;
    }
    const timers = this.#timers;
    if (this.recording && timers.hasProcessingTimeTimer(slot.id, timestamp)) {
      this.#log.push(LOG_DELETED_PROCESSING, timestamp);
    }
    timers.deleteProcessingTimeTimer(slot.id, timestamp);
  }

  /** Takes back the logged timer changes of `slot`, newest first. */
  undo(slot: Slot<K, ACC>): void {
    const log = this.#log;
    const timers = this.#timers;
    for (let i = log.length - 2; i >= 0; i -= 2) {
      const timestamp = log[i + 1];
      switch (log[i]) {
        case LOG_ADDED_EVENT:
          timers.deleteEventTimeTimer(slot.id, timestamp);
          break;
        case LOG_DELETED_EVENT:
          timers.registerEventTimeTimer(slot.id, timestamp);
          break;
        case LOG_ADDED_PROCESSING:
          timers.deleteProcessingTimeTimer(slot.id, timestamp);
          break;
        default:
          timers.registerProcessingTimeTimer(slot.id, timestamp);
      }
    }
  }

  /** Empties the log. */
  forget(): void {
    if (this.#log.length > 0) this.#log.length = 0;
  }

  getState(): number | undefined {
    return this.#slot!.triggerState;
  }

  setState(value: number | undefined): void {
    const slot = this.#slot!;
    if (slot.triggerState === value) return;
    slot.triggerState = value;
    slot.changed = true;
  }
}

function slotSnapshot<K, ACC>(slot: Slot<K, ACC>): WindowSlotSnapshot<K, ACC> {
  const entry: WindowSlotSnapshot<K, ACC> = {
    id: slot.id,
    key: slot.key,
    start: slot.window.start,
    end: slot.window.end,
  };
  if (slot.contents !== undefined) entry.contents = slot.contents;
  if (slot.triggerState !== undefined) entry.triggerState = slot.triggerState;
  return entry;
}
