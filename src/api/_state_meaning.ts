// What an operator's state means, as the fingerprint records it: a restore
// whose operator of the same id means something else is refused rather
// than misread (a window of 1 minute reading the contents of 10-second
// windows, a keyed process function reading a window's accumulators).

import type { Trigger, WindowAssigner } from "../windows/mod.ts";

/** Flat plain data, compared field by field (see `requireMatchingFingerprint`). */
export type StateMeaning = Readonly<Record<string, string | number | boolean>>;

/** The assigner fields that decide which windows hold a record. */
const ASSIGNER_FIELDS = ["sizeMs", "slideMs", "offsetMs", "gapMs"] as const;

/**
 * A window operator's state: its windows depend on the assigner (kind,
 * size, slide, offset, gap), its contents on the window function (a reduced
 * record, an accumulator, or every record), its trigger state on the
 * trigger.
 */
export function windowMeaning<T>(
  assigner: WindowAssigner<T>,
  fn: "reduce" | "aggregate" | "process",
  trigger: Trigger<T> | undefined,
): StateMeaning {
  const state: Record<string, string | number | boolean> = {
    operator: "window",
    keyed: true,
    assigner: classOf(assigner),
  };
  for (const field of ASSIGNER_FIELDS) {
    const value = (assigner as unknown as Record<string, unknown>)[field];
    if (typeof value === "number") state[field] = value;
    // A session gap chosen per record by a function.
    else if (value === null) state[field] = "dynamic";
  }
  state.function = fn;
  state.trigger = trigger === undefined ? "default" : classOf(trigger);
  return state;
}

/**
 * A connector's state (a source reader's positions) is read by the same
 * connector only: its class, when it has one.
 */
export function connectorMeaning(
  operator: string,
  connector: object,
): StateMeaning {
  const name = classOf(connector);
  return name === "custom" ? { operator } : { operator, connector: name };
}

/** The class name of an object, or "custom" for a plain object. */
function classOf(value: object): string {
  const name = (value as { constructor?: { name?: unknown } }).constructor
    ?.name;
  return typeof name === "string" && name !== "" && name !== "Object"
    ? name
    : "custom";
}
