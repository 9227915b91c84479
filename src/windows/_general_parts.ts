// The parts of a window operator's general engine (slots, a trigger, a
// timer service), built from its options; the operator keeps the record
// path, which reads them per record.

import { describeValue, requireNonNegativeInteger } from "../time/validate.ts";
import { SlotAdds } from "./_slot_adds.ts";
import { SlotContext } from "./_slot_context.ts";
import { WindowFiring } from "./_window_firing.ts";
import { WindowMerger } from "./_window_merging.ts";
import { WindowSlots } from "./_window_slots.ts";
import { TimerService } from "./timer_service.ts";
import type { WindowOperatorOptions } from "./window_operator_options.ts";
import type { WindowOperatorSnapshot } from "./window_operator_snapshot.ts";
import type { WindowOutput } from "./window_output.ts";

/** The general engine's parts, and the checked allowed lateness. */
export interface GeneralParts<T, K, ACC, OUT> {
  allowedLatenessMs: number;
  slots: WindowSlots<K, ACC>;
  merger: WindowMerger<T, K, ACC>;
  firing: WindowFiring<T, K, ACC, OUT>;
  adds: SlotAdds<T, K, ACC, OUT>;
}

/**
 * The general engine's parts for an operator with these options, on
 * `timers`.
 *
 * @throws {RangeError} If `allowedLatenessMs` is negative or not a safe integer.
 * @throws {TypeError} If the trigger cannot merge but the assigner merges.
 */
export function generalPartsOf<T, K, ACC, OUT>(
  options: WindowOperatorOptions<T, K, ACC, OUT>,
  output: WindowOutput<OUT>,
  timers: TimerService,
): GeneralParts<T, K, ACC, OUT> {
  const { assigner, clock } = options;
  const trigger = options.trigger ?? assigner.defaultTrigger();
  const lateness = requireNonNegativeInteger(options.allowedLatenessMs ?? 0, {
    action: "create WindowOperator",
    param: "allowedLatenessMs",
  });
  if (assigner.isMerging && !trigger.canMerge) {
    throw new TypeError(
      "Cannot create WindowOperator as 'trigger' must support merging for a merging assigner: current value cannot merge",
    );
  }
  const slots = new WindowSlots<K, ACC>(timers, {
    merging: assigner.isMerging,
    eventTime: assigner.isEventTime,
    allowedLatenessMs: lateness,
    partitionOf: options.partitionOf,
  });
  // One set of parts for the two halves that act on the slots besides
  // the record path: merging (sessions) and firing (timers).
  const parts = {
    assigner,
    slots,
    timers,
    trigger,
    context: new SlotContext<K, ACC>(timers, clock),
    windowFunction: options.windowFunction,
    output,
    clock,
    eventTime: assigner.isEventTime,
    allowedLatenessMs: lateness,
  };
  return {
    allowedLatenessMs: lateness,
    slots,
    merger: new WindowMerger(parts),
    firing: new WindowFiring(parts),
    adds: new SlotAdds(parts),
  };
}

/**
 * Checks `snapshot` as the general engine's restore does, before that
 * restore changes anything: a restore that throws leaves the operator as
 * it was.
 *
 * @throws {TypeError} If the slots are not an array of objects.
 * @throws {RangeError | TypeError} If the timer service refuses the timers.
 */
export function checkGeneralSnapshot<K, ACC>(
  snapshot: WindowOperatorSnapshot<K, ACC>,
): void {
  new TimerService().restore(snapshot.timers);
  const slots: unknown = snapshot.slots;
  if (
    !Array.isArray(slots) ||
    !slots.every((slot) => typeof slot === "object" && slot !== null)
  ) {
    throw new TypeError(
      `Cannot restore WindowOperator as 'snapshot.slots' must be an array of slot objects: current value is ${
        describeValue(slots)
      }`,
    );
  }
}
