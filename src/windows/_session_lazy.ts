// Sessions whose end moves lazily: the record path of event-time session
// windows with a fixed gap and the default EventTimeTrigger. A record that
// falls in or extends its key's newest session costs one lookup and the
// window function's add; its window and timers catch up later, with the
// same observable results as the merging path (see LazySessions).

import {
  isExactEventTimeTrigger,
  isExactSessionAssigner,
} from "./_exact_parts.ts";
import { MAX_WINDOW_END } from "./_window_bounds.ts";
import type { Slot, WindowSlots } from "./_window_slots.ts";
import type { EventTimeSessionWindows } from "./session.ts";
import { TimeWindow } from "./time_window.ts";
import type { TimerService } from "./timer_service.ts";
import type { Trigger } from "./trigger.ts";
import type { WindowAssigner } from "./window_assigner.ts";

/** What a {@linkcode LazySessions} works on: its operator's parts. */
export interface LazySessionsParts<T, K, ACC> {
  /** The operator's slots. */
  slots: WindowSlots<K, ACC>;
  /** The operator's timers. */
  timers: TimerService;
  /** Creates and adds to a window's contents. */
  windowFunction: { create(): ACC; add(contents: ACC, value: T): ACC };
  /** Allowed lateness in milliseconds. */
  allowedLatenessMs: number;
}

/**
 * The lazy record path of one operator's sessions.
 *
 * A session grown here is *lazy*: `slot.end` is its end, while its window
 * and timers are still those of the end it had when it became lazy. The
 * merging path would have moved its timer to the new end on every record
 * (EventTimeTrigger's clear and onMerge, and the cleanup timer); here the
 * timers stay where they were, each one standing for the timer of the same
 * role at the true end, which is never earlier. So the count of timers is
 * the same, and when a stale timer comes due the session is settled
 * ({@linkcode settleSlot}, as firing reads the slot): its window and timers
 * move to its end, the trigger ignores the stale timer, and a timer that is
 * due by then fires later in the same watermark, in (timestamp, id) order,
 * as it would have. Snapshots settle every session first, so they hold
 * exactly what the merging path would.
 *
 * Only the newest session of a key grows here, and only while the merging
 * path would just move its timers: its end is ahead of the watermark, its
 * timers are known to be pending, it holds no trigger state. Any other
 * record settles the key's sessions and goes the merging path.
 */
export class LazySessions<T, K, ACC> {
  readonly #slots: WindowSlots<K, ACC>;
  readonly #timers: TimerService;
  readonly #fn: { create(): ACC; add(contents: ACC, value: T): ACC };
  readonly #lateness: number;
  readonly #gap: number;
  #lazyCount = 0;

  private constructor(parts: LazySessionsParts<T, K, ACC>, gap: number) {
    this.#slots = parts.slots;
    this.#timers = parts.timers;
    this.#fn = parts.windowFunction;
    this.#lateness = parts.allowedLatenessMs;
    this.#gap = gap;
    // A lazy session is settled before firing reads it by id, and before
    // the slots are snapshot.
    parts.slots.settleWith(this);
  }

  /**
   * The lazy path for an operator with this assigner and trigger, or `null`
   * when they are not exactly `EventTimeSessionWindows` with a fixed gap
   * and `EventTimeTrigger` (a subclass, or either patched on the instance,
   * may behave otherwise: see isExactSessionAssigner and
   * isExactEventTimeTrigger).
   */
  static for<T, K, ACC>(
    assigner: WindowAssigner<T>,
    trigger: Trigger<T>,
    parts: LazySessionsParts<T, K, ACC>,
  ): LazySessions<T, K, ACC> | null {
    if (
      !isExactSessionAssigner(assigner) || !isExactEventTimeTrigger(trigger)
    ) return null;
    const gap = (assigner as EventTimeSessionWindows<T>).gapMs;
    return gap === null ? null : new LazySessions(parts, gap);
  }

  /**
   * Adds a record of `key` if it opens a new newest session of its key or
   * falls in or extends the newest one, as the merging path would.
   * Otherwise settles the key's sessions and returns `false`: the caller
   * takes the merging path.
   */
  add(key: K, value: T, timestamp: number): boolean {
    const newest = this.#slots.newestOf(key);
    if (Number.isSafeInteger(timestamp)) {
      let end = timestamp + this.#gap;
      if (end > MAX_WINDOW_END) end = MAX_WINDOW_END;
      const watermark = this.#timers.currentWatermark;
      if (newest === undefined || timestamp > newest.end) {
        // The record's window touches no session: it opens one, unless it
        // would fire at once (a late record within allowed lateness).
        if (end - 1 > watermark) {
          this.#open(key, value, timestamp, end);
          return true;
        }
      } else if (
        timestamp >= newest.window.start && this.#canGrow(newest, watermark)
      ) {
        if (end <= newest.end) {
          this.#addTo(newest, value);
          return true;
        }
        if (this.#grow(newest, end)) {
          if (this.#lateness === 0) this.#addTo(newest, value);
          else this.#addGrown(newest, value);
          return true;
        }
      }
    }
    if (newest !== undefined) this.settleKey(newest);
    return false;
  }

  // Whether the merging path would only move `slot`'s timers for a record
  // in or after it: its fire timer is pending (and stays so: the end is
  // ahead of the watermark), and so is its cleanup timer.
  #canGrow(slot: Slot<K, ACC>, watermark: number): boolean {
    const last = slot.end - 1;
    if (!(last > watermark && slot.triggerState === undefined)) return false;
    if (slot.end !== slot.window.end) return true;
    return slot.knownEventTimer === last && slot.cleanupRegistered &&
      (this.#lateness === 0 || this.#hasCleanupTimer(slot));
  }

  // Whether a session about to become lazy has its cleanup timer (once per
  // lazy spell): a restored one may have none, if its snapshot was taken
  // after an add that threw as it grew (see takeBack).
  #hasCleanupTimer(slot: Slot<K, ACC>): boolean {
    const cleanup = slot.end - 1 + this.#lateness;
    return cleanup > Number.MAX_SAFE_INTEGER ||
      this.#timers.hasEventTimeTimer(slot.id, cleanup);
  }

  // Moves the end of `slot` to `end`, lazily; `false` if its cleanup time
  // would then pass the safe range (the merging path drops that timer).
  #grow(slot: Slot<K, ACC>, end: number): boolean {
    if (end - 1 + this.#lateness > Number.MAX_SAFE_INTEGER) return false;
    if (slot.end === slot.window.end) this.#lazyCount++;
    slot.end = end;
    // The merging path marks it changed even if the add then throws.
    slot.changed = true;
    return true;
  }

  #addTo(slot: Slot<K, ACC>, value: T): void {
    slot.contents = this.#fn.add(slot.contents ?? this.#fn.create(), value);
    slot.changed = true;
  }

  // With allowed lateness, an add that throws after its session grew
  // leaves the session as the merging path does: grown, with its fire
  // timer at the new end but no cleanup timer (a separate one then) until
  // its next record registers it. Without lateness, the two timers are one
  // and the lazy session stands for it already.
  #addGrown(slot: Slot<K, ACC>, value: T): void {
    try {
      this.#addTo(slot, value);
    } catch (error) {
      this.settleSlot(slot);
      this.#timers.deleteEventTimeTimer(slot.id, slot.end - 1 + this.#lateness);
      slot.cleanupRegistered = false;
      throw error;
    }
  }

  // A new session, as the merging path makes it: the id is taken before
  // the add, so an add that throws uses one up, and the timers are those
  // EventTimeTrigger and the cleanup register.
  #open(key: K, value: T, timestamp: number, end: number): void {
    const slots = this.#slots;
    const slot = slots.allocate(key, new TimeWindow(timestamp, end), undefined);
    slot.contents = this.#fn.add(this.#fn.create(), value);
    slots.insert(slot);
    const last = end - 1;
    const timers = this.#timers;
    timers.registerEventTimeTimer(slot.id, last);
    slot.knownEventTimer = last;
    slot.cleanupRegistered = true;
    const cleanup = last + this.#lateness;
    if (cleanup !== last && cleanup <= Number.MAX_SAFE_INTEGER) {
      timers.registerEventTimeTimer(slot.id, cleanup);
    }
  }

  /** Settles every lazy session: before a snapshot. */
  settle(): void {
    if (this.#lazyCount === 0) return;
    for (const slot of this.#slots.all()) {
      if (slot.end !== slot.window.end) this.settleSlot(slot);
    }
    // Also forgets the sessions a restore replaced while lazy.
    this.#lazyCount = 0;
  }

  /** Settles the lazy sessions of the key whose newest session is `newest`. */
  settleKey(newest: Slot<K, ACC>): void {
    for (let slot: Slot<K, ACC> | null = newest; slot !== null;) {
      if (slot.end !== slot.window.end) this.settleSlot(slot);
      slot = slot.older;
    }
  }

  /**
   * Moves a lazy session's window and timers to its end: the fire timer
   * (pending, as the session's end was ahead of the watermark at its last
   * record) and the cleanup timer, as the merging path would have left them.
   * When one of its stale timers came due (firing reads the slot by id),
   * that one is gone already, and the trigger then ignores it: its time is
   * neither the session's last timestamp nor its cleanup time any more.
   */
  settleSlot(slot: Slot<K, ACC>): void {
    const timers = this.#timers;
    const id = slot.id;
    // The stale timers: at the old window's last timestamp, and its
    // cleanup time with allowed lateness.
    const stale = slot.window.end - 1;
    timers.deleteEventTimeTimer(id, stale);
    const lateness = this.#lateness;
    if (lateness > 0) timers.deleteEventTimeTimer(id, stale + lateness);
    const end = slot.end;
    slot.window = new TimeWindow(slot.window.start, end);
    const last = end - 1;
    timers.registerEventTimeTimer(id, last);
    slot.knownEventTimer = last;
    if (lateness > 0) timers.registerEventTimeTimer(id, last + lateness);
    this.#lazyCount--;
  }
}
