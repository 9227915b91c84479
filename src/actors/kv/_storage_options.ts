// The options of a KvStorage and of its commits, checked at the door with
// messages that name the option and the value: a wrong one is a mistake of
// the caller's, caught before any I/O. Imported as `check`.

import { describeValue } from "../../time/validate.ts";

function typeError(
  action: string,
  param: string,
  rule: string,
  value: unknown,
): TypeError {
  return new TypeError(
    `Cannot ${action} as '${param}' must be ${rule}: current value is ${
      describeValue(value)
    }`,
  );
}

/** An options object as given (none: `{}`); anything else is a TypeError. */
export function options<T extends object>(
  value: T | undefined,
  action: string,
): Partial<T> {
  if (value === undefined) return {};
  if (value === null || typeof value !== "object") {
    throw typeError(action, "options", "an object", value);
  }
  return value;
}

/** `options.soleWriter`: a boolean, `false` if not given. */
export function soleWriter(value: unknown, action: string): boolean {
  if (value === undefined) return false;
  if (typeof value !== "boolean") {
    throw typeError(action, "options.soleWriter", "a boolean", value);
  }
  return value;
}

/**
 * `options.absent`: an array of keys (none: `[]`), each key checked by
 * `check` under the name `options.absent[i]`.
 */
export function absent<K>(
  value: unknown,
  action: string,
  check: (key: unknown, param: string) => K,
): K[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    throw typeError(action, "options.absent", "an array of keys", value);
  }
  return value.map((key, i) => check(key, `options.absent[${i}]`));
}
