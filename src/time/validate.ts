/**
 * Argument checks for every public boundary (constructors, factories,
 * builders, options), with messages that name the action, the parameter
 * and the value. Hot paths trust what passed here. Public, in the lowest
 * layer, because every layer above checks its arguments the same way.
 *
 * @module
 */

/** Names what was being done and which parameter was wrong, for the message. */
export interface Subject {
  /** The action in the message, e.g. "create BoundedOutOfOrdernessWatermarks". */
  action: string;
  /** The parameter's name as the caller wrote it, e.g. "maxOutOfOrdernessMs". */
  param: string;
}

/** Renders a bad value so that `-0`, `NaN`, strings and objects stay distinguishable. */
export function describeValue(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (Object.is(value, -0)) return "-0";
  if (typeof value === "bigint") return `${value}n`;
  if (value === null || typeof value !== "object") return String(value);
  try {
    return JSON.stringify(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}

// A value of the right type outside its range is a RangeError; a value of
// the wrong type is a TypeError.
function fail(
  subject: Subject,
  rule: string,
  value: unknown,
  rightType = typeof value === "number",
): never {
  const message =
    `Cannot ${subject.action} as '${subject.param}' must be ${rule}: current value is ${
      describeValue(value)
    }`;
  throw rightType ? new RangeError(message) : new TypeError(message);
}

/** Checks a safe integer of any sign (a timestamp, a clock reading); returns it typed. */
export function requireSafeInteger(value: unknown, subject: Subject): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value)) {
    fail(subject, "a safe integer", value);
  }
  return value;
}

/** Checks a duration or count that may be zero; returns it typed. */
export function requireNonNegativeInteger(
  value: unknown,
  subject: Subject,
): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    fail(subject, "a non-negative safe integer", value);
  }
  return value;
}

/** Checks a duration or count that must be at least 1; returns it typed. */
export function requirePositiveInteger(
  value: unknown,
  subject: Subject,
): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value <= 0) {
    fail(subject, "a positive safe integer", value);
  }
  return value;
}

/** Checks a finite number not below `min`; returns it typed. */
export function requireFiniteAtLeast(
  value: unknown,
  min: number,
  subject: Subject,
): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value < min) {
    fail(subject, `a finite number of at least ${min}`, value);
  }
  return value;
}

/** Checks a fraction strictly between 0 and 1 (a ratio); returns it typed. */
export function requireOpenFraction(value: unknown, subject: Subject): number {
  if (typeof value !== "number" || !(value > 0 && value < 1)) {
    fail(subject, "a number greater than 0 and less than 1", value);
  }
  return value;
}

/** Checks an index into `length` slots (a channel, an input); returns it typed. */
export function requireIndex(
  value: unknown,
  length: number,
  subject: Subject,
): number {
  if (
    typeof value !== "number" || !Number.isSafeInteger(value) || value < 0 ||
    value >= length
  ) {
    fail(subject, `an integer from 0 to ${length - 1}`, value);
  }
  return value;
}

/** Checks a timestamp or watermark: a safe integer or one of the two infinities. */
export function requireWatermark(value: unknown, subject: Subject): number {
  if (
    typeof value !== "number" ||
    !(Number.isSafeInteger(value) || value === Infinity || value === -Infinity)
  ) {
    fail(subject, "a safe integer, -Infinity or Infinity", value);
  }
  return value;
}

/** Checks a non-empty string; returns it typed. */
export function requireNonEmptyString(
  value: unknown,
  subject: Subject,
): string {
  if (typeof value !== "string" || value.length === 0) {
    fail(subject, "a non-empty string", value, typeof value === "string");
  }
  return value;
}

/** Checks a function argument; returns it typed. */
export function requireFunction<F>(value: F, subject: Subject): F {
  if (typeof value !== "function") {
    fail(subject, "a function", value, false);
  }
  return value;
}

/** Checks a boolean (an option's flag); returns it typed. */
export function requireBoolean(value: unknown, subject: Subject): boolean {
  if (typeof value !== "boolean") fail(subject, "a boolean", value, false);
  return value;
}

/** Checks an options object: not null, not a primitive; returns it typed. */
export function requireObject<T extends object>(
  value: T | unknown,
  subject: Subject,
): T {
  if (value === null || typeof value !== "object") {
    fail(subject, "an object", value, false);
  }
  return value as T;
}

/** Checks an array, `rule` naming what it holds; returns it typed. */
export function requireArray(
  value: unknown,
  subject: Subject,
  rule = "an array",
): unknown[] {
  if (!Array.isArray(value)) fail(subject, rule, value, false);
  return value;
}

/**
 * Checks a `watermarkRecovery` option, the same for every runtime and the
 * API; returns it typed.
 */
export function requireWatermarkRecovery(
  value: unknown,
  subject: Subject,
): "persist" | "replay" {
  if (value !== "persist" && value !== "replay") {
    fail(subject, '"persist" or "replay"', value, typeof value === "string");
  }
  return value;
}
