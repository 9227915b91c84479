import assert from "node:assert/strict";
import {
  allowedHostsFor,
  exposureWarning,
  probeStore,
  tokenFromEnv,
} from "../../src/cli/serve_guards.ts";

Deno.test("tokenFromEnv() refuses WEIR_TOKEN set but empty or blank, naming it", () => {
  assert.equal(tokenFromEnv(undefined), undefined);
  assert.equal(tokenFromEnv("s3cret"), "s3cret");
  for (const value of ["", "  ", "\t"]) {
    assert.throws(() => tokenFromEnv(value), {
      name: "RangeError",
      message: /'WEIR_TOKEN' must be a non-empty token.*unset WEIR_TOKEN/,
    });
  }
});

Deno.test("exposureWarning() warns about any non-loopback host without a token, only then", () => {
  for (const host of ["0.0.0.0", "::", "192.168.1.20", "example.com"]) {
    assert.match(exposureWarning(host, undefined) ?? "", /WITHOUT A TOKEN/);
    assert.equal(exposureWarning(host, "s3cret"), null);
  }
  for (const host of ["127.0.0.1", "localhost", "::1"]) {
    assert.equal(exposureWarning(host, undefined), null);
  }
});

Deno.test("allowedHostsFor() guards a loopback host without a token only", () => {
  assert.deepEqual(allowedHostsFor("127.0.0.1", 8000, undefined), [
    "localhost:8000",
    "127.0.0.1:8000",
    "[::1]:8000",
  ]);
  assert.equal(allowedHostsFor("127.0.0.1", 8000, "s3cret"), undefined);
  assert.equal(allowedHostsFor("0.0.0.0", 8000, undefined), undefined);
});

Deno.test("allowedHostsFor() also allows the loopback address the service is bound to", () => {
  const loopback = ["localhost:8000", "127.0.0.1:8000", "[::1]:8000"];
  assert.deepEqual(allowedHostsFor("127.0.0.2", 8000, undefined), [
    ...loopback,
    "127.0.0.2:8000",
  ]);
  assert.deepEqual(allowedHostsFor("::1", 8000, undefined), loopback);
  assert.deepEqual(allowedHostsFor("LocalHost", 8000, undefined), loopback);
  assert.deepEqual(allowedHostsFor("127.0.0.1", 80, undefined), [
    "localhost",
    "127.0.0.1",
    "[::1]",
  ]);
});

Deno.test("probeStore() passes on a writable store and leaves nothing behind", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    await probeStore(kv, ":memory:");
    const left = await Array.fromAsync(kv.list({ prefix: [] }));
    assert.deepEqual(left, []);
  } finally {
    kv.close();
  }
});

Deno.test("probeStore() fails on a store that cannot be written, naming it and the cause", async () => {
  const kv = await Deno.openKv(":memory:");
  kv.close(); // reads and writes now fail, as on a read-only file
  await assert.rejects(probeStore(kv, "./.weir/weir.sqlite"), {
    name: "Error",
    message:
      /Cannot use the store '\.\/\.weir\/weir\.sqlite' as it must be writable: .+; check/,
  });
});
