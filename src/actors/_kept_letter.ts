// A dead letter as it can be kept (the dead-letter log, the KV runtime's
// outbox): whatever the record held, the letter must be writable, or the
// record that was set aside would stop the job after all. Only letters come
// here, so the work is on the failure path only.

import superjson from "superjson";
import type { DeadLetter } from "../runtime/dead_letter.ts";
import { cut, printable } from "../runtime/printable_text.ts";

// A value over this many characters is cut in what is kept: a dead letter
// must fit a storage value whatever the record held.
const MAX_KEPT_CHARS = 16_384;
// An error's name or message over this many characters is cut.
const MAX_ERROR_CHARS = 2_048;

/**
 * The letter with a value storage can encode and small enough to keep,
 * and an error of bounded length.
 *
 * A value superjson cannot serialise (an object whose getter throws, a
 * proxy) is kept as text: `"<unencodable: TypeError: …> "` and what
 * `String()` gives of it; a function or a symbol (which superjson would
 * drop) as `"<unencodable: function> …"`. A value whose JSON is over
 * 16,384 characters is kept cut short, as text.
 *
 * @param letter The letter as the runtime set it aside.
 * @returns The letter to write (the same object when nothing changes).
 */
export function keptLetter(letter: DeadLetter): DeadLetter {
  const value = encodable(letter.value);
  const error = {
    name: cut(letter.error.name, MAX_ERROR_CHARS),
    message: cut(letter.error.message, MAX_ERROR_CHARS),
  };
  let text: string;
  try {
    text = JSON.stringify(value) ?? printable(value);
  } catch {
    text = printable(value);
  }
  const kept = text.length <= MAX_KEPT_CHARS
    ? value
    : `${text.slice(0, MAX_KEPT_CHARS)}… (cut: ${text.length} characters)`;
  if (
    kept === letter.value && error.name === letter.error.name &&
    error.message === letter.error.message
  ) return letter;
  return { ...letter, value: kept, error };
}

function encodable(value: unknown): unknown {
  if (typeof value === "function" || typeof value === "symbol") {
    return `<unencodable: ${typeof value}> ${printable(value)}`;
  }
  try {
    superjson.stringify(value);
    return value;
  } catch (error) {
    const why = error instanceof Error
      ? `${error.name}: ${error.message}`
      : printable(error);
    return `<unencodable: ${cut(why, MAX_ERROR_CHARS)}> ${
      cut(printable(value), MAX_KEPT_CHARS)
    }`;
  }
}
