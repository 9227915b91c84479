// The trigger context of a window operator, re-pointed at one slot per
// call, and the log that takes back what a failed onElement changed.

import type { Clock } from "../time/mod.ts";
import type { Slot } from "./_window_slots.ts";
import type { TimerService } from "./timer_service.ts";
import type { OnMergeContext } from "./trigger.ts";

// What the undo log records.
const LOG_ADDED_EVENT = 0;
const LOG_DELETED_EVENT = 1;
const LOG_ADDED_PROCESSING = 2;
const LOG_DELETED_PROCESSING = 3;

// Whether a record is being added to the slot (see onAdd), and to which.
// Numbers, not the slot itself: a pointer stored per record into this
// long-lived object costs a write barrier.
const NOT_ADDING = 0;
const ADDING_NEW = 1;
const ADDING_EXISTING = 2;

/**
 * The trigger context, re-pointed at one slot per call so the per-record
 * path allocates nothing. Between {@linkcode onAdd} and {@linkcode endAdd}
 * it logs the timer changes of an existing slot, so that
 * {@linkcode takeBack} can undo them with the slot's trigger state.
 */
export class SlotContext<K, ACC> implements OnMergeContext {
  readonly #timers: TimerService;
  readonly #clock: Clock;
  #slot: Slot<K, ACC> | null = null;
  mergedStates: readonly number[] = [];
  // See the *ADDING* constants. Only an existing slot's changes are
  // logged, and only those that reach the timer service, after one
  // lookup: the repeats are skipped before.
  #adding = NOT_ADDING;
  // Whether the slot's fields below were saved. They are saved at its
  // first change, not when the add starts: most records change nothing (a
  // trigger re-registering its known timer).
  #saved = false;
  // Pairs of (change, timestamp): see the LOG_* constants. Empty unless
  // #saved.
  readonly #log: number[] = [];
  // The slot's fields as they were before the add.
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
   * Points at `slot` for a record's add (the trigger's `onElement`, then
   * the function's `add`), which {@linkcode takeBack} can undo until
   * {@linkcode endAdd}. A new window's timers all go with it; an existing
   * one's changes are logged.
   */
  onAdd(slot: Slot<K, ACC>, existed: boolean): this {
    this.#slot = slot;
    this.#adding = existed ? ADDING_EXISTING : ADDING_NEW;
    return this;
  }

  /** The add returned: nothing to take back. */
  endAdd(): void {
    this.#adding = NOT_ADDING;
    if (this.#saved) {
      this.#saved = false;
      this.#log.length = 0;
    }
  }

  /**
   * Takes back an add that threw, if one is under way: an existing slot
   * gets its trigger state and timers back (newest change undone first).
   *
   * @returns The new slot the add was for, for the caller to drop; `null`
   * otherwise.
   */
  takeBack(): Slot<K, ACC> | null {
    const adding = this.#adding;
    if (adding === NOT_ADDING) return null;
    const slot = this.#slot!;
    if (adding === ADDING_NEW) {
      this.endAdd();
      return slot;
    }
    if (this.#saved) this.#restore(slot);
    this.endAdd();
    return null;
  }

  #restore(slot: Slot<K, ACC>): void {
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

  // Whether the slot's changes are logged; saves its fields at its first
  // change.
  #recording(slot: Slot<K, ACC>): boolean {
    if (this.#adding !== ADDING_EXISTING) return false;
    if (!this.#saved) {
      this.#saved = true;
      this.#triggerState = slot.triggerState;
      this.#knownEventTimer = slot.knownEventTimer;
      this.#knownProcessingTimer = slot.knownProcessingTimer;
    }
    return true;
  }

  get currentWatermark(): number {
    return this.#timers.currentWatermark;
  }

  get currentProcessingTime(): number {
    return this.#clock.now();
  }

  registerEventTimeTimer(timestamp: number): void {
    const slot = this.#slot!;
    // Nearly every record re-registers its window's known timer: this
    // test is all the hot path runs, and what V8 inlines into it.
    if (slot.knownEventTimer !== timestamp) {
      this.#registerEventTimeTimer(slot, timestamp);
    }
  }

  #registerEventTimeTimer(slot: Slot<K, ACC>, timestamp: number): void {
    const timers = this.#timers;
    if (
      this.#recording(slot) && !timers.hasEventTimeTimer(slot.id, timestamp)
    ) {
      this.#log.push(LOG_ADDED_EVENT, timestamp);
    }
    timers.registerEventTimeTimer(slot.id, timestamp);
    slot.knownEventTimer = timestamp;
  }

  deleteEventTimeTimer(timestamp: number): void {
    const slot = this.#slot!;
    const recording = this.#recording(slot);
    if (slot.knownEventTimer === timestamp) slot.knownEventTimer = NaN;
    const timers = this.#timers;
    if (recording && timers.hasEventTimeTimer(slot.id, timestamp)) {
      this.#log.push(LOG_DELETED_EVENT, timestamp);
    }
    timers.deleteEventTimeTimer(slot.id, timestamp);
  }

  registerProcessingTimeTimer(timestamp: number): void {
    const slot = this.#slot!;
    // As for event time: the repeat is the hot path.
    if (slot.knownProcessingTimer !== timestamp) {
      this.#registerProcessingTimeTimer(slot, timestamp);
    }
  }

  #registerProcessingTimeTimer(slot: Slot<K, ACC>, timestamp: number): void {
    const timers = this.#timers;
    if (
      this.#recording(slot) &&
      !timers.hasProcessingTimeTimer(slot.id, timestamp)
    ) {
      this.#log.push(LOG_ADDED_PROCESSING, timestamp);
    }
    timers.registerProcessingTimeTimer(slot.id, timestamp);
    slot.knownProcessingTimer = timestamp;
  }

  deleteProcessingTimeTimer(timestamp: number): void {
    const slot = this.#slot!;
    const recording = this.#recording(slot);
    if (slot.knownProcessingTimer === timestamp) {
      slot.knownProcessingTimer = NaN;
    }
    const timers = this.#timers;
    if (recording && timers.hasProcessingTimeTimer(slot.id, timestamp)) {
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
    this.#recording(slot);
    slot.triggerState = value;
    slot.changed = true;
  }
}
