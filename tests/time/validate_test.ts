// The argument checks every public boundary shares: the message names the
// action, the parameter and the value, and the error's type says whether
// the value had the wrong type.

import assert from "node:assert/strict";
import {
  requireArray,
  requireBoolean,
  requireObject,
} from "../../src/time/validate.ts";

const subject = { action: "open the thing", param: "options.flag" };

Deno.test("requireBoolean takes a boolean and names anything else", () => {
  assert.equal(requireBoolean(false, subject), false);
  assert.throws(() => requireBoolean("yes", subject), {
    name: "TypeError",
    message:
      `Cannot open the thing as 'options.flag' must be a boolean: current value is "yes"`,
  });
  assert.throws(() => requireBoolean(1, subject), { name: "TypeError" });
});

Deno.test("requireObject takes an object and names null or a primitive", () => {
  const options = { a: 1 };
  assert.equal(requireObject(options, subject), options);
  assert.throws(() => requireObject(null, subject), {
    name: "TypeError",
    message: /'options.flag' must be an object: current value is null/,
  });
  assert.throws(() => requireObject("x", subject), { name: "TypeError" });
});

Deno.test("requireArray takes an array and names what it must hold", () => {
  assert.deepEqual(requireArray([1], subject), [1]);
  assert.throws(() => requireArray(7, subject, "an array of keys"), {
    name: "TypeError",
    message: /'options.flag' must be an array of keys: current value is 7/,
  });
});
