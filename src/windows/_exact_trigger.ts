// Whether an operator's trigger is exactly EventTimeTrigger, which the
// pane and session engines decide for themselves without calling it.

import { EventTimeTrigger } from "./event_time_trigger.ts";
import type { Trigger } from "./trigger.ts";

/**
 * Whether `trigger` (undefined: the assigner's default) is exactly
 * EventTimeTrigger: its class, not a subclass, which may decide otherwise,
 * and nothing set on the instance (e.g. a spy on `onElement`), which the
 * engines would never call. Its one own field, `canMerge`, is allowed.
 */
export function isExactEventTimeTrigger<T>(
  trigger: Trigger<T> | undefined,
): boolean {
  if (trigger === undefined) return true;
  if (Object.getPrototypeOf(trigger) !== EventTimeTrigger.prototype) {
    return false;
  }
  const names = Object.getOwnPropertyNames(trigger);
  return Object.getOwnPropertySymbols(trigger).length === 0 &&
    names.every((name) => name === "canMerge");
}
