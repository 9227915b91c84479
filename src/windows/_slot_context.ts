// The trigger context of a window operator, re-pointed at one slot per
// call, and the log that takes back what a failed onElement changed
// (issue 16).

import type { Clock } from "../time/mod.ts";
import type { Slot } from "./_window_slots.ts";
import type { TimerService } from "./timer_service.ts";
import type { OnMergeContext } from "./trigger.ts";

// What the undo log records.
const LOG_ADDED_EVENT = 0;
const LOG_DELETED_EVENT = 1;
const LOG_ADDED_PROCESSING = 2;
const LOG_DELETED_PROCESSING = 3;

/**
 * The trigger context, re-pointed at one slot per call so the per-record
 * path allocates nothing. Between {@linkcode record} and
 * {@linkcode stopRecording} it logs the timer changes of the slot, so that
 * {@linkcode takeBack} can undo them with the slot's trigger state.
 */
export class SlotContext<K, ACC> implements OnMergeContext {
  readonly #timers: TimerService;
  readonly #clock: Clock;
  #slot: Slot<K, ACC> | null = null;
  mergedStates: readonly number[] = [];
  // Whether timer changes are logged. Only changes that reach the timer
  // service are logged, after one lookup: the repeats are skipped before.
  #recording = false;
  // Pairs of (change, timestamp): see the LOG_* constants.
  readonly #log: number[] = [];
  // The recorded slot's fields as they were before.
  #triggerState: number | undefined = undefined;
  #knownEventTimer = NaN;
  #knownProcessingTimer = NaN;

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

  /**
   * Starts logging what the trigger changes of `slot` (an existing
   * window's `onElement`; a new window's timers all go with it).
   */
  record(slot: Slot<K, ACC>): void {
    this.#triggerState = slot.triggerState;
    this.#knownEventTimer = slot.knownEventTimer;
    this.#knownProcessingTimer = slot.knownProcessingTimer;
    this.#recording = true;
  }

  /** Takes back the logged changes of `slot`, newest first. */
  takeBack(slot: Slot<K, ACC>): void {
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
    slot.triggerState = this.#triggerState;
    slot.knownEventTimer = this.#knownEventTimer;
    slot.knownProcessingTimer = this.#knownProcessingTimer;
  }

  /** Stops logging and empties the log. */
  stopRecording(): void {
    this.#recording = false;
    if (this.#log.length > 0) this.#log.length = 0;
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
    if (this.#recording && !timers.hasEventTimeTimer(slot.id, timestamp)) {
      this.#log.push(LOG_ADDED_EVENT, timestamp);
    }
    timers.registerEventTimeTimer(slot.id, timestamp);
    slot.knownEventTimer = timestamp;
  }

  deleteEventTimeTimer(timestamp: number): void {
    const slot = this.#slot!;
    if (slot.knownEventTimer === timestamp) slot.knownEventTimer = NaN;
    const timers = this.#timers;
    if (this.#recording && timers.hasEventTimeTimer(slot.id, timestamp)) {
      this.#log.push(LOG_DELETED_EVENT, timestamp);
    }
    timers.deleteEventTimeTimer(slot.id, timestamp);
  }

  registerProcessingTimeTimer(timestamp: number): void {
    const slot = this.#slot!;
    if (slot.knownProcessingTimer === timestamp) return;
    const timers = this.#timers;
    if (this.#recording && !timers.hasProcessingTimeTimer(slot.id, timestamp)) {
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
    if (this.#recording && timers.hasProcessingTimeTimer(slot.id, timestamp)) {
      this.#log.push(LOG_DELETED_PROCESSING, timestamp);
    }
    timers.deleteProcessingTimeTimer(slot.id, timestamp);
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
