// A record's add to one window slot of the general engine, and its
// take-back when the record's user code threw.

import type { SlotContext } from "./_slot_context.ts";
import type { Slot, WindowSlots } from "./_window_slots.ts";
import type { Trigger, TriggerResult } from "./trigger.ts";
import type { WindowFunction } from "./window_function.ts";

/** What a {@linkcode SlotAdds} works on: its operator's parts. */
export interface SlotAddsParts<T, K, ACC, OUT> {
  slots: WindowSlots<K, ACC>;
  trigger: Trigger<T>;
  context: SlotContext<K, ACC>;
  windowFunction: WindowFunction<T, ACC, OUT, K>;
}

/**
 * Adds records to slots: the trigger's `onElement`, then the function's
 * `add`. The trigger sees only its own state, never the contents, so
 * asking it first changes nothing it decides, and lets a record whose
 * trigger or `add` throws be taken back whole ({@linkcode takeBack}): a new
 * slot goes, an existing one gets its trigger state and the timers of this
 * call back, and its contents are replaced only once `add` returned (an
 * `add` that changed its accumulator before it threw keeps that change; see
 * `WindowOutput.rejectRecord`).
 */
export class SlotAdds<T, K, ACC, OUT> {
  readonly #slots: WindowSlots<K, ACC>;
  readonly #trigger: Trigger<T>;
  readonly #context: SlotContext<K, ACC>;
  readonly #fn: WindowFunction<T, ACC, OUT, K>;

  constructor(parts: SlotAddsParts<T, K, ACC, OUT>) {
    this.#slots = parts.slots;
    this.#trigger = parts.trigger;
    this.#context = parts.context;
    this.#fn = parts.windowFunction;
  }

  /** Adds a record to `slot` (new unless `existed`); the trigger's verdict. */
  add(
    value: T,
    timestamp: number,
    slot: Slot<K, ACC>,
    existed: boolean,
  ): TriggerResult {
    const context = this.#context.onAdd(slot, existed);
    const result = this.#trigger.onElement(
      value,
      timestamp,
      slot.window,
      context,
    );
    slot.contents = this.#fn.add(slot.contents ?? this.#fn.create(), value);
    slot.changed = true;
    context.endAdd();
    return result;
  }

  /**
   * Takes back the add a record's user code threw in, if it threw in
   * {@linkcode add}: called by whatever caught the error, so the record
   * path needs no try of its own.
   */
  takeBack(): void {
    const created = this.#context.takeBack();
    if (created !== null) this.#slots.remove(created);
  }
}
