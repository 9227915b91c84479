// Argument checks of the async queues, at their boundary: constructors,
// `put` and `restore`. Each caller passes its action, e.g.
// "restore OrderedQueue", so that a message names the class it came from.

import type { QueueEntry, QueueSnapshot } from "./stream_element_queue.ts";
import { copyEntry } from "./_queue_entries.ts";

// Strings stay quoted and arrays are summarised by length, so that a wrong
// snapshot does not flood the message.
function show(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (Array.isArray(value)) return `an array of length ${value.length}`;
  return String(value);
}

/**
 * Throws `ErrorClass` with std's message shape: "Cannot *action* as
 * '*param*' must be *rule*: current value is *value*".
 */
export function fail(
  ErrorClass: typeof RangeError | typeof TypeError,
  action: string,
  param: string,
  rule: string,
  value: unknown,
): never {
  throw new ErrorClass(
    `Cannot ${action} as '${param}' must be ${rule}: current value is ${
      show(value)
    }`,
  );
}

/** Checks a timestamp or watermark: a safe integer or one of the two infinities. */
export function requireTime(
  value: unknown,
  action: string,
  param: string,
): void {
  if (typeof value !== "number") {
    fail(TypeError, action, param, "a number", value);
  }
  if (!Number.isSafeInteger(value) && Math.abs(value) !== Infinity) {
    fail(
      RangeError,
      action,
      param,
      "a safe integer, -Infinity or Infinity",
      value,
    );
  }
}

/** Checks an element queue's capacity: a positive safe integer. */
export function requireCapacity(capacity: unknown, className: string): number {
  const action = `create ${className}`;
  if (typeof capacity !== "number") {
    fail(TypeError, action, "capacity", "a number", capacity);
  }
  if (!Number.isSafeInteger(capacity) || capacity < 1) {
    fail(RangeError, action, "capacity", "a positive safe integer", capacity);
  }
  return capacity;
}

/** Checks that no record in `queued` has `id` yet. */
export function requireUnqueued(
  queued: ReadonlyMap<number, unknown>,
  id: number,
  action: string,
): void {
  if (queued.has(id)) {
    fail(RangeError, action, "entry.id", "unique among queued records", id);
  }
}

/**
 * Checks a queue snapshot's shape and values, and that record ids are
 * unique; returns fresh copies of its entries.
 */
export function checkSnapshot<IN>(
  snapshot: QueueSnapshot<IN>,
  action: string,
): QueueEntry<IN>[] {
  if (typeof snapshot !== "object" || snapshot === null) {
    fail(TypeError, action, "snapshot", "an object", snapshot);
  }
  const { entries } = snapshot;
  if (!Array.isArray(entries)) {
    fail(TypeError, action, "snapshot.entries", "an array", entries);
  }
  const ids = new Set<number>();
  return entries.map((entry, i) => {
    const param = `snapshot.entries[${i}]`;
    if (typeof entry !== "object" || entry === null) {
      fail(TypeError, action, param, "an object", entry);
    }
    if ("watermark" in entry) {
      requireTime(entry.watermark, action, `${param}.watermark`);
    } else {
      if (typeof entry.id !== "number") {
        fail(TypeError, action, `${param}.id`, "a number", entry.id);
      }
      if (!Number.isSafeInteger(entry.id)) {
        fail(RangeError, action, `${param}.id`, "a safe integer", entry.id);
      }
      if (ids.has(entry.id)) {
        fail(RangeError, action, `${param}.id`, "unique", entry.id);
      }
      ids.add(entry.id);
      requireTime(entry.timestamp, action, `${param}.timestamp`);
    }
    return copyEntry(entry);
  });
}
