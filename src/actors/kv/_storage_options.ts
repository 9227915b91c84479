// The options of a KvStorage and of its commits, checked at the door with
// messages that name the option and the value: a wrong one is a mistake of
// the caller's, caught before any I/O. Imported as `check`.

import {
  requireArray,
  requireBoolean,
  requireObject,
} from "../../time/validate.ts";

/** An options object as given (none: `{}`); anything else is a TypeError. */
export function options<T extends object>(
  value: T | undefined,
  action: string,
): Partial<T> {
  if (value === undefined) return {};
  return requireObject<Partial<T>>(value, { action, param: "options" });
}

/** `options.soleWriter`: a boolean, `false` if not given. */
export function soleWriter(value: unknown, action: string): boolean {
  if (value === undefined) return false;
  return requireBoolean(value, { action, param: "options.soleWriter" });
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
  const keys = requireArray(
    value,
    { action, param: "options.absent" },
    "an array of keys",
  );
  return keys.map((key, i) => check(key, `options.absent[${i}]`));
}
