// printable() and cut(): values as text for dead letters, on the failure
// path, that never throw and stay within a bound.

import assert from "node:assert/strict";
import { cut, printable } from "../../src/runtime/printable_text.ts";

Deno.test("printable() gives String() of a value", () => {
  assert.equal(printable(42), "42");
  assert.equal(printable(undefined), "undefined");
  assert.equal(printable(Symbol("s")), "Symbol(s)");
  assert.equal(printable({ a: 1 }), "[object Object]");
});

Deno.test("printable() names the type when String() throws", () => {
  assert.equal(
    printable(Object.create(null)),
    "(a object that cannot be printed)",
  );
  const throwing = {
    toString(): string {
      throw new Error("no");
    },
  };
  assert.equal(printable(throwing), "(a object that cannot be printed)");
});

Deno.test("cut() keeps text up to the bound and says how long a longer one was", () => {
  assert.equal(cut("abc", 3), "abc");
  assert.equal(cut("", 0), "");
  assert.equal(cut("abcdef", 3), "abc… (cut: 6 characters)");
});
