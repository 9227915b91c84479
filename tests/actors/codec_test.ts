import assert from "node:assert/strict";
import superjson from "superjson";
import {
  decodeStored,
  Encoded,
  encodeStructured,
  encodeSuperjson,
} from "../../src/actors/_codec.ts";
import { partsPlaceholder } from "../../src/actors/_snapshot_parts.ts";
import { SHAPES } from "./_storage_contract.ts";

/** A window state of `records` records: compressible, like most state. */
function windowState(records: number) {
  return {
    watermark: -Infinity,
    windows: new Map(
      Array.from({ length: records }, (_, i) => [i, {
        key: `user-${i % 100}`,
        ts: 1_700_000_000_000 + i,
        seen: new Set([i % 7]),
      }]),
    ),
  };
}

Deno.test("encodeStructured round-trips every superjson shape, a shared reference and a cycle", () => {
  for (const [shape, value] of SHAPES) {
    assert.deepStrictEqual(
      decodeStored(encodeStructured(value).bytes),
      value,
      shape,
    );
  }
  const shared = { n: 1 };
  const both = decodeStored<{ a: object; b: object }>(
    encodeStructured({ a: shared, b: shared }).bytes,
  );
  assert.equal(both.a, both.b);
  const cycle: { self?: unknown } = {};
  cycle.self = cycle;
  const back = decodeStored<{ self: unknown }>(encodeStructured(cycle).bytes);
  assert.equal(back.self, back);
});

Deno.test("encodeStructured compresses a large compressible value, not an incompressible one", () => {
  const state = windowState(20_000);
  const encoded = encodeStructured(state);
  assert.equal(encoded.bytes[0], 0x78, "deflated in zlib's format");
  assert.deepStrictEqual(decodeStored(encoded.bytes), state);

  let x = 7; // xorshift32: bytes that do not compress
  const noise = new Uint8Array(200_000).map(() => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return x >>> 24;
  });
  const raw = encodeStructured({ noise });
  assert.equal(raw.bytes[0], 0xff, "left as V8's format");
  assert.deepStrictEqual(decodeStored(raw.bytes), { noise });

  assert.equal(encodeStructured(windowState(10)).bytes[0], 0xff, "small");
});

Deno.test("an encoded value is a copy: later changes of the value do not reach it", () => {
  const state = { list: [1, 2], map: new Map([["a", 1]]) };
  const encoded = encodeStructured(state);
  state.list.push(3);
  state.map.set("b", 2);
  assert.deepStrictEqual(encoded.decode(), {
    list: [1, 2],
    map: new Map([["a", 1]]),
  });
  // Each decode is a fresh copy.
  assert.notEqual(encoded.decode(), encoded.decode());
});

Deno.test("encodeStructured refuses functions and symbols", () => {
  assert.throws(() => encodeStructured({ f: () => 1 }), /could not be cloned/);
  assert.throws(() => encodeStructured(Symbol("s")), /could not be cloned/);
});

Deno.test("decodeStored still reads superjson text, as weir wrote every value before", () => {
  const value = { low: -Infinity, seen: new Map([["a", new Set([1])]]) };
  const bytes = new TextEncoder().encode(superjson.stringify(value));
  assert.deepStrictEqual(decodeStored(bytes), value);
  const encoded = encodeSuperjson(value)!;
  assert.deepStrictEqual(encoded.decode(), value);
  assert.deepStrictEqual(decodeStored(encoded.bytes), value);
  assert.equal(encodeSuperjson(() => 1), undefined);
});

Deno.test("an Encoded with parts decodes to its value with the placeholders filled, afresh each time", () => {
  const partA = encodeStructured([{ id: 1, key: "a" }, { id: 2, key: "b" }]);
  const partB = encodeStructured([{ id: 3, key: new Set(["c"]) }]);
  const main = encodeStructured({ slots: partsPlaceholder([0, 1]), other: 1 });
  const encoded = new Encoded(main.bytes, undefined, [partA, partB]);
  assert.deepStrictEqual(encoded.parts, [partA, partB]);
  const expected = {
    slots: [
      { id: 1, key: "a" },
      { id: 2, key: "b" },
      { id: 3, key: new Set(["c"]) },
    ],
    other: 1,
  };
  const first = encoded.decode();
  assert.deepStrictEqual(first, expected);
  assert.notEqual(encoded.decode(), first);
  // Without parts, the placeholder stays.
  assert.deepStrictEqual(main.decode(), {
    slots: partsPlaceholder([0, 1]),
    other: 1,
  });
  // A superjson payload gets its parts filled too.
  const text = encodeSuperjson({ slots: partsPlaceholder([1]) })!;
  assert.deepStrictEqual(
    new Encoded(text.bytes, text.text, [partA, partB]).decode(),
    { slots: [{ id: 3, key: new Set(["c"]) }] },
  );
  // A part that is missing fails the decode.
  assert.throws(() => new Encoded(main.bytes, undefined, [partA]).decode(), {
    name: "RangeError",
    message: /part 1 /,
  });
});
