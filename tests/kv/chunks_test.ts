import assert from "node:assert/strict";
import {
  chunkValue,
  fitsInline,
  inlineValue,
  markerValue,
  PART_BYTES,
  readChunks,
  readMarker,
  readStored,
  replacedManifest,
  sizingManifest,
} from "../../src/kv/chunks.ts";

const encoder = new TextEncoder();

/** A value as weir has stored it since chunking began: tag, then JSON. */
function stored(tag: number, json: string): Uint8Array {
  return new Uint8Array([tag, ...encoder.encode(json)]);
}

Deno.test("inlineValue() and chunkValue() write the layout existing databases hold: tag 1 and the payload, or tag 2 and {v, n, b} with parts of 60 KiB", () => {
  assert.deepEqual(
    inlineValue(new Uint8Array([7, 8])),
    new Uint8Array([1, 7, 8]),
  );
  const payload = new Uint8Array(2 * PART_BYTES + 5).map((_, i) => i % 251);
  const { version, parts, manifest } = chunkValue(payload);
  assert.match(version, /^[A-Za-z0-9_-]{22}$/);
  assert.deepEqual(parts.map((p) => p.length), [PART_BYTES, PART_BYTES, 5]);
  assert.deepEqual(
    manifest,
    stored(2, `{"v":"${version}","n":3,"b":${payload.length}}`),
  );
  assert.deepEqual(markerValue([["ab", 2]]), stored(3, '[["ab",2]]'));
});

Deno.test("readStored(), replacedManifest() and readMarker() read values in the stored layout, and refuse or skip others", () => {
  assert.deepEqual(readStored(new Uint8Array([1, 9]), "k"), {
    inline: new Uint8Array([9]),
  });
  const manifest = stored(2, '{"v":"abc","n":2,"b":70000}');
  assert.deepEqual(readStored(manifest, "k"), {
    manifest: { version: "abc", parts: 2, bytes: 70_000 },
  });
  assert.deepEqual(replacedManifest(manifest), {
    version: "abc",
    parts: 2,
    bytes: 70_000,
  });
  assert.throws(() => readStored("by hand", 'key ["x"]'), {
    name: "TypeError",
    message: /key \["x"\].*unknown format/,
  });
  // Not ours, or an inline value: no parts to delete.
  for (const raw of [new Uint8Array([1, 2]), stored(2, "{"), "x", 5]) {
    assert.equal(replacedManifest(raw), null);
  }
  assert.deepEqual(readMarker(stored(3, '[["v1",3],["v2",1]]')), [
    ["v1", 3],
    ["v2", 1],
  ]);
  assert.deepEqual(readMarker(new Uint8Array([1])), []);
});

Deno.test("readChunks() joins the parts of a version, and returns null if one is missing or they do not add up", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const prefix = ["weir", "job", "actor", "a"];
    await kv.set([...prefix, "p", "ver", 0], new Uint8Array([1, 2, 3]));
    await kv.set([...prefix, "p", "ver", 1], new Uint8Array([4]));
    const manifest = { version: "ver", parts: 2, bytes: 4 };
    assert.deepEqual(
      await readChunks(kv, prefix, manifest),
      new Uint8Array([1, 2, 3, 4]),
    );
    assert.equal(await readChunks(kv, prefix, { ...manifest, parts: 3 }), null);
    assert.equal(await readChunks(kv, prefix, { ...manifest, bytes: 3 }), null);
    await kv.delete([...prefix, "p", "ver", 0]);
    assert.equal(await readChunks(kv, prefix, manifest), null);
  } finally {
    kv.close();
  }
});

Deno.test("fitsInline() keeps a payload inline up to 64 KiB with its tag byte, and sizingManifest() counts the parts of a longer one", () => {
  assert.ok(fitsInline(65_535));
  assert.ok(!fitsInline(65_536));
  const manifest = sizingManifest(2 * PART_BYTES + 1);
  assert.equal(manifest.parts, 3);
  assert.equal(manifest.bytes, 2 * PART_BYTES + 1);
  assert.equal(
    manifest.version.length,
    chunkValue(new Uint8Array(1)).version.length,
  );
});
