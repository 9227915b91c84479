// Firing windows: what a window operator does when one of its timers is
// due (the trigger's verdict, the window function's emit, the cleanup at
// the window's cleanup time), and setting aside a window whose trigger or
// function threw.

import type { Clock } from "../time/mod.ts";
import { emitWindow } from "./_emit_window.ts";
import type { SlotContext } from "./_slot_context.ts";
import type { Slot, WindowSlots } from "./_window_slots.ts";
import { cleanupTime } from "./lateness.ts";
import type { TimerService } from "./timer_service.ts";
import type { Trigger, TriggerResult } from "./trigger.ts";
import type { WindowFunction } from "./window_function.ts";
import type { WindowOutput } from "./window_output.ts";

/** What a {@linkcode WindowFiring} works on: its operator's parts. */
export interface WindowFiringParts<T, K, ACC, OUT> {
  /** The operator's slots. */
  slots: WindowSlots<K, ACC>;
  /** The operator's timers (for the current watermark). */
  timers: TimerService;
  /** The trigger. */
  trigger: Trigger<T>;
  /** The trigger context. */
  context: SlotContext<K, ACC>;
  /** Emits a window's contents. */
  windowFunction: WindowFunction<T, ACC, OUT, K>;
  /** Receives results, side outputs and rejected windows. */
  output: WindowOutput<OUT>;
  /** Processing time, for the window function's context. */
  clock: Clock;
  /** Whether the windows are in event time. */
  eventTime: boolean;
  /** Allowed lateness in milliseconds. */
  allowedLatenessMs: number;
}

/** Fires and cleans up a window operator's windows. */
export class WindowFiring<T, K, ACC, OUT> {
  readonly #slots: WindowSlots<K, ACC>;
  readonly #timers: TimerService;
  readonly #trigger: Trigger<T>;
  readonly #context: SlotContext<K, ACC>;
  readonly #fn: WindowFunction<T, ACC, OUT, K>;
  readonly #output: WindowOutput<OUT>;
  readonly #clock: Clock;
  readonly #eventTime: boolean;
  readonly #lateness: number;
  /** The largest end of a window fired so far; `-Infinity` before the first. */
  lastFiredWindowEnd = -Infinity;

  constructor(parts: WindowFiringParts<T, K, ACC, OUT>) {
    this.#slots = parts.slots;
    this.#timers = parts.timers;
    this.#trigger = parts.trigger;
    this.#context = parts.context;
    this.#fn = parts.windowFunction;
    this.#output = parts.output;
    this.#clock = parts.clock;
    this.#eventTime = parts.eventTime;
    this.#lateness = parts.allowedLatenessMs;
  }

  /** The timer service's callback for a due event-time timer. */
  readonly onEventTime = (id: number, time: number): void => {
    this.#onTimer(id, time, true);
  };

  /** The timer service's callback for a due processing-time timer. */
  readonly onProcessingTime = (id: number, time: number): void => {
    this.#onTimer(id, time, false);
  };

  /** Does what the trigger said of `slot`: fire, purge, both or nothing. */
  apply(result: TriggerResult, slot: Slot<K, ACC>): void {
    if (result === "continue") return;
    if (result === "fire" || result === "fire_and_purge") this.#emit(slot);
    if (result === "purge" || result === "fire_and_purge") {
      slot.contents = undefined;
      slot.changed = true;
    }
  }

  /**
   * A window whose trigger threw on a timer or at its cleanup: its state
   * (contents, trigger state, timers) is unknown to be sound, so it is
   * dropped as at its cleanup, without calling the trigger again, and set
   * aside as `{ key, window }`. Without `rejectFire`, the error
   * propagates and the window stays.
   */
  #dropFailed(slot: Slot<K, ACC>, error: unknown): void {
    const reject = this.#output.rejectFire;
    if (reject === undefined) throw error;
    this.#slots.remove(slot);
    reject(slot.key, slot.window, error, 0);
  }

  // A due timer: the trigger's verdict, then the window's cleanup if this
  // is its cleanup timer (a timer in the windows' own time domain).
  #onTimer(id: number, time: number, eventTimer: boolean): void {
    const slot = this.#slots.get(id);
    if (slot === undefined) return;
    if (eventTimer) {
      if (slot.knownEventTimer === time) slot.knownEventTimer = NaN;
    } else if (slot.knownProcessingTimer === time) {
      slot.knownProcessingTimer = NaN;
    }
    let result: TriggerResult;
    try {
      const context = this.#context.on(slot);
      result = eventTimer
        ? this.#trigger.onEventTime(time, slot.window, context)
        : this.#trigger.onProcessingTime(time, slot.window, context);
    } catch (error) {
      return this.#dropFailed(slot, error);
    }
    this.apply(result, slot);
    if (
      eventTimer === this.#eventTime &&
      time === cleanupTime(slot.window, this.#lateness, eventTimer)
    ) {
      this.#clearAll(slot);
    }
  }

  #emit(slot: Slot<K, ACC>): void {
    if (slot.contents === undefined) return;
    // One compare per fired window: the dashboard's timeline samples it.
    if (slot.window.end > this.lastFiredWindowEnd) {
      this.lastFiredWindowEnd = slot.window.end;
    }
    emitWindow(
      this.#fn,
      this.#output,
      slot.key,
      slot.window,
      slot.contents,
      this.#timers.currentWatermark,
      this.#clock.now(),
    );
  }

  #clearAll(slot: Slot<K, ACC>): void {
    try {
      this.#trigger.clear(slot.window, this.#context.on(slot));
    } catch (error) {
      return this.#dropFailed(slot, error);
    }
    this.#slots.remove(slot);
  }
}
