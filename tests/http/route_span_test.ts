import assert from "node:assert/strict";
import {
  context,
  type ContextManager,
  ROOT_CONTEXT,
  type Span,
  trace,
} from "@opentelemetry/api";
import { Hono } from "hono";
import { nameSpanByRoute } from "../../src/http/route_span.ts";

/** The app's routes mounted as `createApp` mounts them: a sub-app under a path. */
function app(): Hono {
  const jobs = new Hono();
  jobs.get("/:job/watermarks", (c) => c.json({}));
  const root = new Hono();
  root.use("*", nameSpanByRoute());
  root.route("/jobs", jobs);
  return root;
}

/** Runs `run` with `span` as the active span of every request. */
async function withActiveSpan(
  span: Span,
  run: () => Promise<void>,
): Promise<void> {
  const manager = {
    active: () => trace.setSpan(ROOT_CONTEXT, span),
    with: (
      _c: unknown,
      fn: (...a: unknown[]) => unknown,
      t: unknown,
      ...a: unknown[]
    ) => fn.call(t, ...a),
    bind: (_c: unknown, target: unknown) => target,
    enable() {
      return this;
    },
    disable() {
      return this;
    },
  } as unknown as ContextManager;
  context.setGlobalContextManager(manager);
  try {
    await run();
  } finally {
    context.disable();
  }
}

function fakeSpan(): {
  span: Span;
  name: string[];
  attributes: Map<string, unknown>;
} {
  const name: string[] = [];
  const attributes = new Map<string, unknown>();
  const span = {
    updateName(n: string) {
      name.push(n);
      return span;
    },
    setAttribute(k: string, v: unknown) {
      attributes.set(k, v);
      return span;
    },
  } as unknown as Span;
  return { span, name, attributes };
}

Deno.test("nameSpanByRoute() names the active span by method and route, with http.route", async () => {
  const { span, name, attributes } = fakeSpan();
  await withActiveSpan(span, async () => {
    const response = await app().request("/jobs/clicks/watermarks");
    assert.equal(response.status, 200);
  });
  assert.deepEqual(name, ["GET /jobs/:job/watermarks"]);
  assert.equal(attributes.get("http.route"), "/jobs/:job/watermarks");
});

Deno.test("nameSpanByRoute() leaves the span of a request no route matched as it is", async () => {
  const { span, name, attributes } = fakeSpan();
  await withActiveSpan(span, async () => {
    assert.equal((await app().request("/nowhere")).status, 404);
  });
  assert.deepEqual(name, []);
  assert.equal(attributes.size, 0);
});

Deno.test("nameSpanByRoute() does nothing without an active span", async () => {
  assert.equal((await app().request("/jobs/clicks/watermarks")).status, 200);
});
