import assert from "node:assert/strict";
import { Hono } from "hono";
import { createApp } from "../../src/http/app.ts";
import { requireToken } from "../../src/http/auth.ts";
import { HttpError, notFound, onError } from "../../src/http/errors.ts";
import { AtomicConflictError } from "../../src/actors/kv/kv_storage.ts";
import { PersistentKvError } from "../../src/kv/retry.ts";
import { CheckpointMismatchError } from "../../src/runtime/fingerprint.ts";
import { ManualClock } from "../../src/time/clock.ts";

/** An app whose `GET /boom` throws `error`, with the service's handlers. */
function throwing(error: unknown): Hono {
  const app = new Hono();
  app.onError(onError);
  app.notFound(notFound);
  app.get("/boom", function boom() {
    throw error;
  });
  return app;
}

/**
 * Runs `fn` with `console.error` recording its calls instead of printing
 * them; returns the calls.
 */
async function capturingConsoleError(
  fn: () => Promise<void>,
): Promise<unknown[][]> {
  const calls: unknown[][] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => calls.push(args);
  try {
    await fn();
  } finally {
    console.error = original;
  }
  return calls;
}

async function bodyOf(res: Response) {
  assert.equal(res.headers.get("Content-Type"), "application/json");
  return await res.json();
}

Deno.test("onError() answers an HttpError with its status, code, message and details", async () => {
  const app = throwing(
    new HttpError("PAYLOAD_TOO_LARGE", "Cannot ingest as it is too big", {
      details: { maxBodyBytes: 10 },
      headers: { "X-Hint": "split" },
    }),
  );
  const res = await app.request("/boom");
  assert.equal(res.status, 413);
  assert.equal(res.headers.get("X-Hint"), "split");
  assert.deepEqual(await bodyOf(res), {
    error: {
      code: "PAYLOAD_TOO_LARGE",
      message: "Cannot ingest as it is too big",
      details: { maxBodyBytes: 10 },
    },
  });
});

Deno.test("HttpError takes its status from its code", () => {
  const cases = [
    ["BAD_REQUEST", 400],
    ["MALFORMED_BODY", 400],
    ["INVALID_RECORDS", 400],
    ["UNAUTHORIZED", 401],
    ["NOT_FOUND", 404],
    ["CONFLICT", 409],
    ["PAYLOAD_TOO_LARGE", 413],
    ["UNSUPPORTED_MEDIA_TYPE", 415],
    ["INTERNAL", 500],
  ] as const;
  for (const [code, status] of cases) {
    const error = new HttpError(code, "m");
    assert.equal(error.status, status, code);
    assert.equal(error.name, "HttpError");
    assert.ok(error instanceof Error);
  }
});

Deno.test("onError() answers a plain Error with 500 INTERNAL, logs it and never shows its message", async () => {
  const app = throwing(new Error("db password is hunter2"));
  let res: Response | undefined;
  const logged = await capturingConsoleError(async () => {
    res = await app.request("/boom");
  });
  assert.equal(res!.status, 500);
  const text = await res!.text();
  assert.doesNotMatch(text, /hunter2/);
  assert.deepEqual(JSON.parse(text), {
    error: { code: "INTERNAL", message: "Internal error" },
  });
  assert.equal(logged.length, 1);
  assert.match(String(logged[0][0]), /GET \/boom/);
  assert.match((logged[0][1] as Error).message, /hunter2/);
});

Deno.test("onError() answers TypeError and RangeError with 500 INTERNAL", async () => {
  for (
    const thrown of [new TypeError("x.y is undefined"), new RangeError("r")]
  ) {
    const app = throwing(thrown);
    let res: Response | undefined;
    await capturingConsoleError(async () => {
      res = await app.request("/boom");
    });
    assert.equal(res!.status, 500);
    assert.equal((await bodyOf(res!)).error.code, "INTERNAL");
  }
});

Deno.test("onError() answers an HttpError of a code not safe to show with the code's own message", async () => {
  const app = throwing(new HttpError("INTERNAL", "invariant broken at key x"));
  let res: Response | undefined;
  const logged = await capturingConsoleError(async () => {
    res = await app.request("/boom");
  });
  assert.equal(res!.status, 500);
  assert.deepEqual(await bodyOf(res!), {
    error: { code: "INTERNAL", message: "Internal error" },
  });
  assert.equal(logged.length, 1);
});

Deno.test("onError() answers CheckpointMismatchError with 409 and its code", async () => {
  const app = throwing(
    new CheckpointMismatchError(7, "clicks", ["jobName differs"]),
  );
  const res = await app.request("/boom");
  assert.equal(res.status, 409);
  const { error } = await bodyOf(res);
  assert.equal(error.code, "CHECKPOINT_MISMATCH");
  assert.match(error.message, /checkpoint 7 of job 'clicks'/);
  assert.deepEqual(error.details, {
    checkpointId: 7,
    differences: ["jobName differs"],
  });
});

Deno.test("onError() answers AtomicConflictError with a retryable 503 and no internal keys", async () => {
  const app = throwing(
    new AtomicConflictError("Cannot append to KvLog 'secret-log' partition 3"),
  );
  let res: Response | undefined;
  const logged = await capturingConsoleError(async () => {
    res = await app.request("/boom");
  });
  assert.equal(res!.status, 503);
  assert.equal(res!.headers.get("Retry-After"), "1");
  const text = await res!.text();
  assert.doesNotMatch(text, /secret-log/);
  assert.equal(JSON.parse(text).error.code, "ATOMIC_CONFLICT");
  assert.equal(logged.length, 1);
});

Deno.test("onError() answers PersistentKvError with a retryable 503 that names no internal keys", async () => {
  const app = throwing(
    new PersistentKvError(
      "Cannot recall an append of KvLog 'secret-log' as the database must answer",
      new Error("database is locked"),
    ),
  );
  let res: Response | undefined;
  const logged = await capturingConsoleError(async () => {
    res = await app.request("/boom");
  });
  assert.equal(res!.status, 503);
  assert.equal(res!.headers.get("Retry-After"), "1");
  const text = await res!.text();
  assert.doesNotMatch(text, /secret-log/);
  const { error } = JSON.parse(text);
  assert.equal(error.code, "UNAVAILABLE");
  assert.match(error.message, /same Idempotency-Key/);
  assert.equal(logged.length, 1);
});

Deno.test("onError() answers an HTTPException-shaped error with its status", async () => {
  class FakeHttpException extends Error {
    status = 401;
    getResponse(): Response {
      return new Response(null, { status: this.status });
    }
  }
  const res = await throwing(new FakeHttpException("go away")).request(
    "/boom",
  );
  assert.equal(res.status, 401);
  assert.deepEqual(await bodyOf(res), {
    error: { code: "UNAUTHORIZED", message: "go away" },
  });
});

Deno.test("notFound() answers an unknown route of the app with 404 JSON", async () => {
  const app = createApp({
    jobs: new Map(),
    streams: new Map(),
    clock: new ManualClock(0),
  });
  for (const [method, path] of [["GET", "/nope"], ["DELETE", "/ingest"]]) {
    const res = await app.request(path, { method });
    assert.equal(res.status, 404, path);
    assert.deepEqual(await bodyOf(res), {
      error: {
        code: "NOT_FOUND",
        message: `Cannot ${method} ${path} as no route matches it`,
      },
    });
  }
});

Deno.test("requireToken() lets every request through without a token", async () => {
  const app = new Hono();
  app.onError(onError);
  app.post("/x", requireToken(), (c) => c.text("ok"));
  const res = await app.request("/x", { method: "POST" });
  assert.equal(res.status, 200);
  assert.equal(await res.text(), "ok");
});

Deno.test("requireToken() refuses an empty token, one with whitespace, and a non-string", () => {
  assert.throws(() => requireToken(""), {
    name: "RangeError",
    message: /'token' must be a non-empty string/,
  });
  assert.throws(() => requireToken("a b"), {
    name: "RangeError",
    message: /'token'/,
  });
  assert.throws(() => requireToken(42 as unknown as string), {
    name: "TypeError",
    message: /'token'/,
  });
});
