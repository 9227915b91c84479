// Reading an ingest body: a body that stalls is timed out.
// Deterministic: the stalled bodies below never deliver again, so the
// configured deadline is always what ends the read; a safety net turns a
// read that never ends into a failure instead of a hang.

import assert from "node:assert/strict";
import { errorOf, ingestTest, readValues } from "./_ingest_support.ts";
import { createApp } from "../../src/http/app.ts";
import { ManualClock } from "../../src/time/clock.ts";

/** A body that sends `first` (if any), then nothing, ever. */
function stalled(first?: string): {
  body: ReadableStream<Uint8Array>;
  cancelled: Promise<void>;
} {
  let cancelled!: () => void;
  const done = new Promise<void>((resolve) => cancelled = resolve);
  let sent = false;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (first !== undefined && !sent) {
        sent = true;
        controller.enqueue(new TextEncoder().encode(first));
        return;
      }
      return new Promise<void>(() => {}); // stalls
    },
    cancel() {
      cancelled();
    },
  });
  return { body, cancelled: done };
}

/** `promise`, or a failure naming `what` if it never settles (a hang). */
async function settles<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const net = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what} never settled: the read hangs`)),
      20_000,
    );
  });
  try {
    return await Promise.race([promise, net]);
  } finally {
    clearTimeout(timer);
  }
}

ingestTest(
  "POST /ingest/:stream answers 408 and cancels a body that stalls past bodyTimeoutMs, appending nothing",
  async ({ app, log }) => {
    for (const first of [undefined, '[{"at":1767225600000},']) {
      const { body, cancelled } = stalled(first);
      const res = await settles(
        Promise.resolve(app.request("/ingest/clicks", {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body,
        })),
        "the request",
      );
      assert.equal(res.status, 408);
      assert.equal(res.headers.get("Connection"), "close");
      const error = await errorOf(res);
      assert.equal(error.code, "REQUEST_TIMEOUT");
      assert.match(
        error.message,
        new RegExp(
          `body must arrive within 5 ms: ${
            first?.length ?? 0
          } bytes came in time; nothing was appended`,
        ),
      );
      assert.deepEqual(error.details, { bodyTimeoutMs: 5 });
      await settles(cancelled, "the body's cancellation");
    }
    assert.deepEqual(await readValues(log), [[]]);
  },
  { bodyTimeoutMs: 5 },
);

ingestTest(
  "POST /ingest/:stream reads a body that completes, whatever bodyTimeoutMs",
  async ({ app }) => {
    // A body delivered in several chunks, each once asked for.
    const chunks = ['[{"at":1767225600000}', ",", '{"at":1767225600001}]'];
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = chunks.shift();
        if (next === undefined) controller.close();
        else controller.enqueue(new TextEncoder().encode(next));
      },
    });
    const res = await app.request("/ingest/clicks", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body,
    });
    assert.equal(res.status, 202);
    assert.equal((await res.json()).appended, 2);
  },
  { bodyTimeoutMs: 60_000 },
);

Deno.test("createApp() refuses a bodyTimeoutMs or idempotencyTtlMs that is not a positive safe integer", () => {
  const base = {
    jobs: new Map(),
    streams: new Map(),
    clock: new ManualClock(),
  };
  for (const value of [0, -1, 1.5, NaN]) {
    assert.throws(() => createApp({ ...base, bodyTimeoutMs: value }), {
      name: "RangeError",
      message: /'bodyTimeoutMs'/,
    });
    assert.throws(() => createApp({ ...base, idempotencyTtlMs: value }), {
      name: "RangeError",
      message: /'idempotencyTtlMs'/,
    });
  }
});
