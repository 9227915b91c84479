// Merging windows (sessions): a record's window merges with the windows of
// its key that it touches, with their contents and trigger state, as
// Flink's MergingWindowSet does with the operator's merge function.

import { LazySessions } from "./_session_lazy.ts";
import type { SlotContext } from "./_slot_context.ts";
import type { Slot, WindowSlots } from "./_window_slots.ts";
import { cleanupTime, isWindowLate } from "./lateness.ts";
import { mergeWindows, type TimeWindow } from "./time_window.ts";
import type { TimerService } from "./timer_service.ts";
import type { Trigger } from "./trigger.ts";
import type { WindowAssigner } from "./window_assigner.ts";

/** What a {@linkcode WindowMerger} works on: its operator's parts. */
export interface WindowMergerParts<T, K, ACC> {
  /** The operator's slots, indexed key -> start. */
  slots: WindowSlots<K, ACC>;
  /** The operator's timers (for the current watermark). */
  timers: TimerService;
  /** The assigner (sessions of a fixed gap take the lazy path). */
  assigner: WindowAssigner<T>;
  /** The trigger; it must support merging. */
  trigger: Trigger<T>;
  /** The trigger context. */
  context: SlotContext<K, ACC>;
  /** Creates, adds to and merges windows' contents. */
  windowFunction: {
    create(): ACC;
    add(contents: ACC, value: T): ACC;
    merge(a: ACC, b: ACC): ACC;
  };
  /** Whether the windows are in event time. */
  eventTime: boolean;
  /** Allowed lateness in milliseconds. */
  allowedLatenessMs: number;
}

/** Adds windows to a merging operator's slots, merging what they touch. */
export class WindowMerger<T, K, ACC> {
  readonly #slots: WindowSlots<K, ACC>;
  readonly #timers: TimerService;
  readonly #trigger: Trigger<T>;
  readonly #context: SlotContext<K, ACC>;
  readonly #fn: { merge(a: ACC, b: ACC): ACC };
  readonly #eventTime: boolean;
  readonly #lateness: number;
  readonly #lazy: LazySessions<T, K, ACC> | null;

  constructor(parts: WindowMergerParts<T, K, ACC>) {
    this.#slots = parts.slots;
    this.#timers = parts.timers;
    this.#trigger = parts.trigger;
    this.#context = parts.context;
    this.#fn = parts.windowFunction;
    this.#eventTime = parts.eventTime;
    this.#lateness = parts.allowedLatenessMs;
    this.#lazy = parts.eventTime
      ? LazySessions.for(parts.assigner, parts.trigger, parts)
      : null;
  }

  /**
   * Adds a record to its key's newest session on the lazy path, if it can
   * take it (see LazySessions); `false` if the record must go through
   * {@linkcode add}.
   */
  addRecord(key: K, value: T, timestamp: number): boolean {
    return this.#lazy !== null && this.#lazy.add(key, value, timestamp);
  }

  /** Brings lazy sessions up to date: before a snapshot. */
  settle(): void {
    this.#lazy?.settle();
  }

  /**
   * Adds `added` to the windows of `key`, merging what it touches (Flink's
   * `MergingWindowSet.addWindow` with the operator's merge function), and
   * returns the window the record belongs to. A slot for it exists only if
   * it merged; the caller creates one otherwise. If that window is late,
   * its slot goes and the result is `undefined`: the record skips it.
   *
   * @throws {RangeError} If merging would make a window end before the watermark.
   */
  add(key: K, added: TimeWindow): TimeWindow | undefined {
    const window = this.#add(key, added);
    const watermark = this.#timers.currentWatermark;
    if (!this.#eventTime || !isWindowLate(window, this.#lateness, watermark)) {
      return window;
    }
    this.#slots.retire(key, window);
    return undefined;
  }

  #add(key: K, added: TimeWindow): TimeWindow {
    const newest = this.#slots.newestOf(key);
    if (newest === undefined) return added;
    if (newest.older === null) {
      // One open session (the common case): it and the new window either
      // do not touch, or one covers the other, or they merge into their
      // cover; mergeWindows() would find the same without sorting.
      const window = newest.window;
      if (!window.intersects(added)) return added;
      const cover = window.cover(added);
      if (cover.equals(window)) return window;
      this.#merge(key, cover, [window]);
      return cover;
    }
    // The order does not matter: mergeWindows() sorts by start, stably,
    // and the sessions' starts differ.
    const windows = [added];
    for (let slot: Slot<K, ACC> | null = newest; slot !== null;) {
      windows.push(slot.window);
      slot = slot.older;
    }
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
    const slots = this.#slots;
    if (mergedWindows.length === 1) {
      this.#extend(slots.find(key, mergedWindows[0])!, cover);
      return;
    }
    const merged: Slot<K, ACC>[] = [];
    for (const window of mergedWindows) merged.push(slots.find(key, window)!);
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
    const target = slots.allocate(key, cover, contents);
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
      slots.remove(slot);
    }
    slots.insert(target);
    if (failure !== null) {
      slots.registerCleanupTimer(target);
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
  #extend(slot: Slot<K, ACC>, cover: TimeWindow): void {
    const states = slot.triggerState === undefined ? [] : [slot.triggerState];
    // As in #merge: a trigger that throws fails the record once the
    // window has grown and has its cleanup timer.
    let failure: { error: unknown } | null = null;
    try {
      this.#trigger.clear(slot.window, this.#context.on(slot));
    } catch (error) {
      failure = { error };
    }
    this.#slots.grow(slot, cover);
    try {
      this.#trigger.onMerge(cover, this.#context.onMerge(slot, states));
    } catch (error) {
      failure ??= { error };
    }
    if (failure !== null) {
      this.#slots.registerCleanupTimer(slot);
      throw failure.error;
    }
  }
}
