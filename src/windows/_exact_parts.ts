// Whether an operator's trigger and assigner are exactly the built-ins the
// pane and session engines (and the lazy sessions path) decide for
// themselves, without calling them.

import { EventTimeTrigger } from "./event_time_trigger.ts";
import { EventTimeSessionWindows } from "./session.ts";
import type { Trigger } from "./trigger.ts";

// Whether `value` is of exactly the class of `prototype` (not a subclass,
// which may decide otherwise) with nothing set on the instance but its own
// `fields` (e.g. no spy on a method, which the engines would never call).
function isExactInstance(
  value: unknown,
  prototype: object,
  fields: readonly string[],
): boolean {
  return Object.getPrototypeOf(value) === prototype &&
    Object.getOwnPropertySymbols(value).length === 0 &&
    Object.getOwnPropertyNames(value).every((name) => fields.includes(name));
}

/**
 * Whether `trigger` (undefined: the assigner's default) is exactly
 * EventTimeTrigger. Its one own field, `canMerge`, is allowed.
 */
export function isExactEventTimeTrigger<T>(
  trigger: Trigger<T> | undefined,
): boolean {
  return trigger === undefined ||
    isExactInstance(trigger, EventTimeTrigger.prototype, ["canMerge"]);
}

/**
 * Whether `assigner` is exactly an EventTimeSessionWindows, its two fields
 * as made (e.g. no `assignWindows` patched on it: such an assigner takes
 * the general merging path, which calls it).
 */
export function isExactSessionAssigner(assigner: unknown): boolean {
  const own = assigner as { isEventTime?: unknown; isMerging?: unknown };
  return isExactInstance(assigner, EventTimeSessionWindows.prototype, [
    "isEventTime",
    "isMerging",
  ]) && own.isEventTime === true && own.isMerging === true;
}
