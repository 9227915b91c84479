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
   * window assignment or window function (`add`: an aggregate, a reduce)
   * threw: it is in no window, and the batch goes on. Absent: the error
   * propagates.
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
   * collected before the throw; the receiver drops them. Absent: the error
   * propagates.
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
      // The function runs before a new slot exists: if it throws, the
      // record leaves no empty window behind (issue 16).
      const found = this.#find(key, window.start);
      const contents = this.#fn.add(
        found?.contents ?? this.#fn.create(),
        value,
      );
      const slot = found ?? this.#slot(key, window);
      slot.contents = contents;
      slot.changed = true;
      const result = this.#trigger.onElement(
        value,
        timestamp,
        slot.window,
        this.#context.on(slot),
      );
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

  readonly #onEventTime = (id: number, time: number): void => {
    const slot = this.#byId.get(id);
    if (slot === undefined) return;
    if (slot.knownEventTimer === time) slot.knownEventTimer = NaN;
    this.#apply(
      this.#trigger.onEventTime(time, slot.window, this.#context.on(slot)),
      slot,
    );
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
    this.#apply(
      this.#trigger.onProcessingTime(time, slot.window, this.#context.on(slot)),
      slot,
    );
    if (
      !this.#eventTime &&
      time === cleanupTime(slot.window, this.#lateness, false)
    ) {
      this.#clearAll(slot);
    }
  };

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
    this.#trigger.clear(slot.window, this.#context.on(slot));
    this.#remove(slot);
  }

  #find(key: K, start: number): Slot<K, ACC> | undefined {
    if (this.#merging) return this.#index.get(key)?.get(start);
    // The inner maps of the last few window starts, looked up by comparing
    // numbers: a record's windows are nearly always among them, and hashing
    // an epoch-millisecond start (not a small integer) costs more.
    if (this.#skipRecent) return this.#index.get(start)?.get(key);
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

  #slot(key: K, window: TimeWindow): Slot<K, ACC> {
    const slot = this.#find(key, window.start);
    if (slot !== undefined) return slot;
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
    const outer = merging ? slot.key : slot.window.start;
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
    const outer = merging ? slot.key : slot.window.start;
    const inner = this.#index.get(outer);
    if (inner === undefined) return;
    inner.delete(merging ? slot.window.start : slot.key);
    if (inner.size === 0) {
      this.#index.delete(outer);
      if (!merging) this.#forgetRecent();
    }
  }

  #retire(key: K, window: TimeWindow): void {
    const slot = this.#find(key, window.start);
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
    this.#trigger.onMerge(cover, this.#context.onMerge(target, states));
    for (const slot of merged) {
      this.#trigger.clear(slot.window, this.#context.on(slot));
      this.#remove(slot);
    }
    this.#insert(target);
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
    this.#trigger.clear(slot.window, this.#context.on(slot));
    this.#timers.deleteAllTimers(slot.id);
    windows.delete(slot.window.start);
    slot.window = cover;
    slot.triggerState = undefined;
    slot.cleanupRegistered = false;
    slot.knownEventTimer = NaN;
    slot.knownProcessingTimer = NaN;
    slot.changed = true;
    windows.set(cover.start, slot);
    this.#trigger.onMerge(cover, this.#context.onMerge(slot, states));
  }
}

/**
 * The trigger context, re-pointed at one slot per call so the per-record
 * path allocates nothing.
 */
class SlotContext<K, ACC> implements OnMergeContext {
  readonly #timers: TimerService;
  readonly #clock: Clock;
  #slot: Slot<K, ACC> | null = null;
  mergedStates: readonly number[] = [];

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
    this.#timers.registerEventTimeTimer(slot.id, timestamp);
    slot.knownEventTimer = timestamp;
  }

  deleteEventTimeTimer(timestamp: number): void {
    const slot = this.#slot!;
    if (slot.knownEventTimer === timestamp) slot.knownEventTimer = NaN;
    this.#timers.deleteEventTimeTimer(slot.id, timestamp);
  }

  registerProcessingTimeTimer(timestamp: number): void {
    const slot = this.#slot!;
    if (slot.knownProcessingTimer === timestamp) return;
    this.#timers.registerProcessingTimeTimer(slot.id, timestamp);
    slot.knownProcessingTimer = timestamp;
  }

  deleteProcessingTimeTimer(timestamp: number): void {
    const slot = this.#slot!;
    if (slot.knownProcessingTimer === timestamp) {
      slot.knownProcessingTimer = NaN;
    }
    this.#timers.deleteProcessingTimeTimer(slot.id, timestamp);
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
