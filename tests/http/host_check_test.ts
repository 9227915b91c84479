// The DNS-rebinding guard: with allowedHosts set, a request for
// another host gets 403 before any route runs.

import assert from "node:assert/strict";
import { createApp } from "../../src/http/app.ts";
import { isLoopbackHost, loopbackHosts } from "../../src/http/host_check.ts";
import { ManualClock } from "../../src/time/clock.ts";

function app(allowedHosts?: readonly string[]) {
  return createApp({
    jobs: new Map(),
    streams: new Map(),
    clock: new ManualClock(0),
    allowedHosts,
  });
}

Deno.test("createApp() with allowedHosts answers 403 to a request for another host, on every route", async () => {
  const guarded = app(loopbackHosts(8123));
  for (const url of ["/jobs", "/metrics", "/", "/ingest/clicks"]) {
    const res = await guarded.request(`http://evil.example:8123${url}`);
    assert.equal(res.status, 403, url);
    const { error } = await res.json();
    assert.equal(error.code, "FORBIDDEN");
    assert.match(
      error.message,
      /host 'evil\.example:8123'.*only to localhost:8123, 127\.0\.0\.1:8123, \[::1\]:8123.*DNS rebinding.*WEIR_TOKEN/,
    );
  }
  // The right name on another port is another origin too.
  assert.equal(
    (await guarded.request("http://127.0.0.1:9999/jobs")).status,
    403,
  );
});

Deno.test("createApp() with allowedHosts serves localhost, 127.0.0.1 and [::1] at the port, in any case", async () => {
  const guarded = app(loopbackHosts(8123));
  for (
    const host of [
      "localhost:8123",
      "LOCALHOST:8123",
      "127.0.0.1:8123",
      "[::1]:8123",
    ]
  ) {
    const res = await guarded.request(`http://${host}/jobs`);
    assert.equal(res.status, 200, host);
    await res.body?.cancel();
  }
  // Port 80 is dropped from URLs: a bare name is that port.
  const onDefault = app(loopbackHosts(80));
  const res = await onDefault.request("http://localhost/jobs");
  assert.equal(res.status, 200);
  await res.body?.cancel();
});

Deno.test("createApp() without allowedHosts serves any host", async () => {
  const res = await app().request("http://evil.example:8123/jobs");
  assert.equal(res.status, 200);
  await res.body?.cancel();
});

Deno.test("isLoopbackHost() knows localhost, 127.0.0.0/8 and ::1, and nothing else", () => {
  for (const host of ["localhost", "127.0.0.1", "127.1.2.3", "::1", "[::1]"]) {
    assert.equal(isLoopbackHost(host), true, host);
  }
  for (
    const host of [
      "0.0.0.0",
      "::",
      "192.168.1.2",
      "example.com",
      "127.0.0.1.evil.example",
    ]
  ) {
    assert.equal(isLoopbackHost(host), false, host);
  }
});

Deno.test("createApp() refuses an empty allowedHosts", () => {
  assert.throws(() => app([]), { name: "RangeError", message: /'allowed'/ });
});
