// Whether an operator's assigner is exactly EventTimeSessionWindows, which
// the session engine and the lazy sessions path decide for themselves
// without calling it.

import { EventTimeSessionWindows } from "./session.ts";

/**
 * Whether `assigner` is exactly an EventTimeSessionWindows: its class, not
 * a subclass, with nothing set on the instance but its two fields as made
 * (e.g. no `assignWindows` patched on it, which the fast paths would never
 * call: such an assigner takes the general merging path, which does).
 */
export function isExactSessionAssigner(assigner: unknown): boolean {
  if (Object.getPrototypeOf(assigner) !== EventTimeSessionWindows.prototype) {
    return false;
  }
  const own = assigner as Record<string, unknown>;
  const names = Object.getOwnPropertyNames(own);
  return Object.getOwnPropertySymbols(own).length === 0 &&
    names.every((name) => name === "isEventTime" || name === "isMerging") &&
    own.isEventTime === true && own.isMerging === true;
}
