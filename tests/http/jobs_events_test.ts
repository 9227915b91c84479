// GET /jobs/:job/events through app.request(): the server-sent event
// stream (ids, Last-Event-ID, retry, the loop's end on disconnect).

import assert from "node:assert/strict";
import type { Hono } from "hono";
import { clicksJobsApp } from "../_support/clicks_jobs_app.ts";

const build = clicksJobsApp;

async function get(app: Hono, path: string) {
  const res = await app.request(path);
  return { status: res.status, body: await res.json() };
}

Deno.test("GET /jobs/:job/events?once=1 sends one status event and ends", async () => {
  const { app, advance, handle } = build();
  advance(5_000);
  handle.sample();
  const res = await app.request("/jobs/clicks/events?once=1");
  assert.equal(res.status, 200);
  assert.match(res.headers.get("Content-Type") ?? "", /^text\/event-stream/);
  const text = await res.text();
  assert.equal(text.match(/^event: status$/gm)?.length, 1);
  const data = JSON.parse(/^data: (.*)$/m.exec(text)![1]);
  assert.equal(data.name, "clicks");
  assert.equal(data.numSubtasks, 4);
  assert.equal(data.lastSampleAt, 5_000);
  assert.equal(data.sample.at, 5_000);
  // The id is the processing time it was sent at, not a per-stream count.
  assert.match(text, /^id: 5000$/m);
  assert.match(text, /^retry: 2000$/m);
});

function eventsOf(
  text: string,
): { id: number; data: Record<string, unknown> }[] {
  return text.split("\n\n").filter((block) => block.includes("data: ")).map(
    (block) => ({
      id: Number(/^id: (.*)$/m.exec(block)![1]),
      data: JSON.parse(/^data: (.*)$/m.exec(block)![1]),
    }),
  );
}

Deno.test("GET /jobs/:job/events ids keep increasing across connections at the same processing time", async () => {
  const { app, advance, handle } = build();
  advance(3_000);
  handle.sample();
  const ids: number[] = [];
  for (let i = 0; i < 3; i++) {
    const res = await app.request("/jobs/clicks/events?once=1");
    ids.push(...eventsOf(await res.text()).map((e) => e.id));
  }
  assert.deepEqual(ids, [3_000, 3_001, 3_002]);
});

Deno.test("GET /jobs/:job/events with Last-Event-ID sends the samples missed since, and ids above it", async () => {
  const { app, clock, handle } = build();
  for (const at of [1_000, 2_000, 3_000]) {
    clock.set(at);
    handle.sample();
  }
  const res = await app.request("/jobs/clicks/events?once=1", {
    headers: { "Last-Event-ID": "1500" },
  });
  const [event] = eventsOf(await res.text());
  assert.equal(event.id, 3_000);
  assert.deepEqual(
    (event.data.missed as { at: number }[]).map((s) => s.at),
    [2_000, 3_000],
  );
  // A client that saw an id from ahead of this clock gets ids above it.
  const ahead = await app.request("/jobs/clicks/events?once=1", {
    headers: { "Last-Event-ID": "9000" },
  });
  const [later] = eventsOf(await ahead.text());
  assert.equal(later.id, 9_001);
  assert.deepEqual(later.data.missed, []);
  // A fresh connection carries no `missed`.
  const fresh = await app.request("/jobs/clicks/events?once=1");
  const [first] = eventsOf(await fresh.text());
  assert.equal("missed" in first.data, false);
  assert.equal(first.id, 9_002);
});

/** What {@link withTimerCount} tells its function. */
interface TimerCount {
  /** How many timers set since the start are neither fired nor cleared. */
  pending(): number;
  /** Resolves once a timer is pending (at once if one is). */
  somePending(): Promise<void>;
}

/**
 * Runs `fn` with `setTimeout` and `clearTimeout` wrapped so that it can see
 * which timers are pending; the real functions are back afterwards.
 */
async function withTimerCount(
  fn: (timers: TimerCount) => Promise<void>,
): Promise<void> {
  const { setTimeout: realSet, clearTimeout: realClear } = globalThis;
  const live = new Set<unknown>();
  let onSet = () => {};
  function countedSetTimeout(
    callback: (...args: unknown[]) => void,
    ms?: number,
    ...args: unknown[]
  ): unknown {
    const id = realSet(
      (...a: unknown[]) => {
        live.delete(id);
        callback(...a);
      },
      ms,
      ...args,
    );
    live.add(id);
    onSet();
    return id;
  }
  function countedClearTimeout(id?: ReturnType<typeof setTimeout>): void {
    live.delete(id);
    realClear(id);
  }
  globalThis.setTimeout = countedSetTimeout as unknown as typeof setTimeout;
  globalThis.clearTimeout = countedClearTimeout as typeof clearTimeout;
  try {
    await fn({
      pending: () => live.size,
      somePending: () =>
        live.size > 0
          ? Promise.resolve()
          : new Promise<void>((resolve) => onSet = resolve),
    });
  } finally {
    globalThis.setTimeout = realSet;
    globalThis.clearTimeout = realClear;
  }
}

Deno.test("GET /jobs/:job/events keeps sending status events until the client disconnects, leaving no timer behind", async () => {
  const { app } = build();
  await withTimerCount(async (timers) => {
    const res = await app.request("/jobs/clicks/events?interval=50");
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    while ((text.match(/^event: status$/gm)?.length ?? 0) < 2) {
      const { value, done } = await reader.read();
      assert.equal(done, false);
      text += decoder.decode(value, { stream: true });
    }
    // The stream's loop sleeps until its next event; the client leaves.
    await timers.somePending();
    // Cancelling the body itself (no pipe in between) runs the stream's
    // abort before it resolves, which must end the sleep at once.
    await reader.cancel();
    assert.equal(timers.pending(), 0, "the loop's sleep was cleared");
  });
});

Deno.test("GET /jobs/:job/events answers 400 for an interval below 50 ms", async () => {
  const { app } = build();
  const { status, body } = await get(app, "/jobs/clicks/events?interval=10");
  assert.equal(status, 400);
  assert.match(body.error.message, /'interval'/);
});
