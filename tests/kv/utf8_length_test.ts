import assert from "node:assert/strict";
import { utf8Length } from "../../src/kv/utf8_length.ts";

Deno.test("utf8Length() equals TextEncoder's length, lone surrogates included", () => {
  const encoder = new TextEncoder();
  for (
    const text of [
      "",
      "ascii",
      "é",
      "€",
      "😀",
      "a😀b",
      "\ud800",
      "\udc00",
      "\ud800x",
      "x\ud800",
      "\udc00\ud800",
      "\0",
    ]
  ) {
    assert.equal(utf8Length(text), encoder.encode(text).length, text);
  }
});
