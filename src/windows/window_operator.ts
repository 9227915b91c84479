/**
 * The window operator: assigns records to windows per key, keeps their
 * contents, and emits them when the trigger says so.
 *
 * @module
 */

import type { Clock } from "../time/mod.ts";
import { resumeBatch } from "./_batch_resume.ts";
import { checkGeneralSnapshot, generalPartsOf } from "./_general_parts.ts";
import { lateRecord } from "./_late_record.ts";
import { reentryError } from "./_reentry.ts";
import type { SlotAdds } from "./_slot_adds.ts";
import {
  type HandOver,
  type WindowEngine,
  windowEngineOf,
} from "./_window_engine.ts";
import type { WindowFiring } from "./_window_firing.ts";
import type { WindowMerger } from "./_window_merging.ts";
import type { WindowSlots } from "./_window_slots.ts";
import { isElementLate, isWindowLate } from "./lateness.ts";
import type { OutputTag } from "./output_tag.ts";
import { TimerService } from "./timer_service.ts";
import type {
  WindowAssigner,
  WindowAssignerContext,
} from "./window_assigner.ts";
import type {
  WindowOperatorSnapshot,
  WindowSlotSnapshot,
} from "./window_operator_snapshot.ts";
import type { WindowOperatorOptions } from "./window_operator_options.ts";
import type { WindowOutput } from "./window_output.ts";

export type {
  WindowOperatorSnapshot,
  WindowSlotSnapshot,
} from "./window_operator_snapshot.ts";
export type { WindowOperatorOptions } from "./window_operator_options.ts";
export type { WindowOutput } from "./window_output.ts";

/**
 * Flink's `WindowOperator` for one subtask: keyed windows with triggers,
 * allowed lateness, a late-data side output, cleanup and merging (sessions).
 *
 * Contract, in the order of Flink's rules:
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
 * Not reentrant, whatever the windows: `processBatch`, `processElement`,
 * `processWatermark`, `onProcessingTime` and `restore` called while one of
 * the first four runs on the same operator (from its window function,
 * trigger or output) throw an Error before changing anything. `snapshot()`, `slotGroups()`
 * and the counters may be read then.
 * Tumbling, sliding and fixed-gap session event-time windows with the
 * default trigger cost less, the same contract kept: per record one key
 * lookup per window, no timer object; a watermark fires in one sweep.
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
  readonly #lateness: number;
  readonly #lateTag: OutputTag<T> | null;
  readonly #clock: Clock;
  readonly #output: WindowOutput<OUT>;
  readonly #assignerContext: WindowAssignerContext;
  #batchTime: number | null = null;
  readonly #timers = new TimerService();
  readonly #adds: SlotAdds<T, K, ACC, OUT>;
  readonly #slots: WindowSlots<K, ACC>;
  readonly #merger: WindowMerger<T, K, ACC>;
  readonly #firing: WindowFiring<T, K, ACC, OUT>;
  // Fixed event-time windows and sessions with the default trigger run on
  // an engine of their own (see _window_engine.ts), #native, the rest on
  // the slots above; #engine is null once it handed over or refused a
  // restore.
  readonly #native: WindowEngine<T, K, ACC> | null;
  #engine: WindowEngine<T, K, ACC> | null;
  // The key of the record an engine handed over with, computed already.
  #carried: { key: K } | undefined = undefined;
  #numLateRecordsDropped = 0;
  // The public method running, for refusing reentry; null between calls.
  #running: string | null = null;

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
    const general = generalPartsOf(options, output, this.#timers);
    this.#lateness = general.allowedLatenessMs;
    this.#slots = general.slots;
    this.#merger = general.merger;
    this.#firing = general.firing;
    this.#adds = general.adds;
    this.#lateTag = options.lateDataTag ?? null;
    this.#clock = options.clock;
    this.#output = output;
    const clock = options.clock;
    this.#assignerContext = {
      clock: { now: () => this.#batchTime ?? clock.now() },
    };
    this.#engine = this.#native = windowEngineOf(
      options,
      this.#assignerContext,
      output,
      (state) => this.#handOver(state),
    );
  }

  /** The current watermark; `-Infinity` before the first. */
  get currentWatermark(): number {
    return this.#engine?.currentWatermark ?? this.#timers.currentWatermark;
  }

  /** Records dropped as late because no late-data tag was set. */
  get numLateRecordsDropped(): number {
    return this.#engine?.numLateRecordsDropped ?? this.#numLateRecordsDropped;
  }

  /** Live (key, window) pairs; unspecified inside a window function. */
  get numWindows(): number {
    return this.#engine?.numWindows ?? this.#slots.size;
  }

  /** The largest end of a window fired so far; `-Infinity` before the first. */
  get lastFiredWindowEnd(): number {
    return this.#engine?.lastFiredWindowEnd ?? this.#firing.lastFiredWindowEnd;
  }

  /** Pending timers of both kinds; unspecified inside a window function. */
  get numTimers(): number {
    return this.#engine?.numTimers ?? this.#timers.numEventTimeTimers() +
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
    this.#enter("processBatch");
    try {
      const from = this.#engine?.processBatch(values, timestamps) ?? 0;
      if (from < values.length) this.#generalBatch(values, timestamps, from);
    } finally {
      this.#running = null;
    }
  }

  // Refuses a call made while another runs (see the class doc); the
  // caller's finally clears #running, also when user code throws.
  #enter(method: string): void {
    if (this.#running !== null) throw reentryError(method, this.#running);
    this.#running = method;
  }

  // The batch from record `from` on, on the general engine.
  #generalBatch(
    values: readonly T[],
    timestamps: ArrayLike<number>,
    from: number,
  ): void {
    // One clock read per batch (a batch is processed at one instant): one
    // per record cost more than the rest of the record's work.
    if (!this.#eventTime) this.#batchTime = this.#clock.now();
    // A record whose user code throws goes to rejectRecord and the batch goes
    // on after it, in resumeBatch: no record pays for a try of its own.
    const n = values.length;
    let i = from;
    try {
      for (; i < n; i++) this.#processRecord(values[i], timestamps[i]);
    } catch (error) {
      resumeBatch(values, timestamps, i, error, {
        process: (value, timestamp) => this.#processRecord(value, timestamp),
        takeBack: () => this.#adds.takeBack(),
      }, this.#output);
    } finally {
      this.#batchTime = null;
    }
  }

  /**
   * Processes one record. If its user code throws, the record has no
   * effect on the window it threw for (see `WindowOutput.rejectRecord`).
   *
   * @param value The record.
   * @param timestamp Its event timestamp in milliseconds.
   * @throws {RangeError} If merging would make a window end before the watermark.
   */
  processElement(value: T, timestamp: number): void {
    this.#enter("processElement");
    try {
      if (this.#engine?.processElement(value, timestamp)) return;
      this.#processRecord(value, timestamp);
    } catch (error) {
      this.#adds.takeBack();
      throw error;
    } finally {
      this.#running = null;
    }
  }

  // processElement without its take-back: the caller takes back (see
  // SlotAdds). Batches catch once per failure, not once per record: a
  // try per record and window cost the record path about 10%.
  #processRecord(value: T, timestamp: number): void {
    const carried = this.#carried;
    this.#carried = undefined;
    const key = carried === undefined ? this.#keyOf(value) : carried.key;
    if (this.#merging && this.#merger.addRecord(key, value, timestamp)) return;
    const windows = this.#assigner.assignWindows(
      value,
      timestamp,
      this.#assignerContext,
    );
    const watermark = this.#timers.currentWatermark;
    const eventTime = this.#eventTime;
    const slots = this.#slots;
    slots.beginRecord(windows.length);
    let skipped = true;
    for (const assigned of windows) {
      let window: typeof assigned | undefined = assigned;
      if (this.#merging) {
        window = this.#merger.add(key, assigned);
        if (window === undefined) continue;
      } else if (
        eventTime && isWindowLate(assigned, this.#lateness, watermark)
      ) {
        continue;
      }
      skipped = false;
      const found = slots.find(key, window);
      const slot = found ?? slots.create(key, window);
      const result = this.#adds.add(value, timestamp, slot, found === slot);
      this.#firing.apply(result, slot);
      if (!slot.cleanupRegistered) slots.registerCleanupTimer(slot);
    }
    if (
      skipped && eventTime &&
      isElementLate(timestamp, this.#lateness, watermark)
    ) {
      this.#numLateRecordsDropped += lateRecord(
        this.#output,
        this.#lateTag,
        value,
        timestamp,
      );
    }
  }

  /**
   * Advances event time: fires every timer at or before `watermark`, then
   * forwards it. A watermark not above the current one is dropped.
   *
   * @param watermark The new watermark in milliseconds.
   */
  processWatermark(watermark: number): void {
    this.#enter("processWatermark");
    try {
      if (this.#engine) return this.#engine.processWatermark(watermark);
      if (!(watermark > this.#timers.currentWatermark)) return;
      this.#timers.advanceWatermark(watermark, this.#firing.onEventTime);
      this.#output.emitWatermark(watermark);
    } finally {
      this.#running = null;
    }
  }

  /**
   * Fires the processing-time timers due at the clock's current time.
   * The runtime calls this when `nextProcessingTimeTimer` is due.
   */
  onProcessingTime(): void {
    this.#enter("onProcessingTime");
    try {
      this.#timers.advanceProcessingTime(
        this.#clock.now(),
        this.#firing.onProcessingTime,
      );
    } finally {
      this.#running = null;
    }
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
    if (this.#engine) return this.#engine.slotGroups();
    return this.#slots.groups();
  }

  /** The snapshot's fields other than `slots`: see {@linkcode slotGroups}. */
  snapshotWithoutSlots(): Omit<WindowOperatorSnapshot<K, ACC>, "slots"> {
    if (this.#engine) return this.#engine.snapshotWithoutSlots();
    this.#merger.settle();
    return {
      nextId: this.#slots.nextId,
      timers: this.#timers.snapshot(),
      numLateRecordsDropped: this.#numLateRecordsDropped,
    };
  }

  /**
   * Replaces the state with a snapshot, or throws changing nothing if the
   * snapshot is malformed; emits nothing. Restored timers fire on the next
   * watermark (or processing time) that reaches them.
   *
   * @param snapshot A snapshot of an operator with the same configuration.
   * @throws {Error} If called from inside a call of the same operator.
   */
  restore(snapshot: WindowOperatorSnapshot<K, ACC>): void {
    // Runs no user code, so need not mark itself running.
    if (this.#running !== null) throw reentryError("restore", this.#running);
    checkGeneralSnapshot(snapshot);
    const lastFired = this.lastFiredWindowEnd;
    const held = this.#native?.restore(snapshot, lastFired) ?? false;
    if (!held) this.#restoreGeneral(snapshot, lastFired);
    this.#engine = held ? this.#native : null;
  }

  // An engine's state, for the general engine to go on with (see HandOver).
  #handOver(state: HandOver<K, ACC>): void {
    this.#engine = null;
    this.#restoreGeneral(state.snapshot, state.lastFiredWindowEnd);
    this.#slots.carry(state);
    this.#carried = state.key;
  }

  #restoreGeneral(state: WindowOperatorSnapshot<K, ACC>, last: number): void {
    this.#slots.restore(state.slots, state.nextId);
    this.#timers.restore(state.timers);
    this.#numLateRecordsDropped = state.numLateRecordsDropped;
    this.#firing.lastFiredWindowEnd = last;
  }
}
