// OpenTelemetry as a user turns it on: the demo job runs in a subprocess
// with OTEL_DENO=true, exporting OTLP (http/json) to a receiver in this
// process; the test checks that weir's metrics, its checkpoint and restore
// spans, and an HTTP span named by its route arrive.
//
// Every wait ends when what it waits for has arrived (each POST wakes the
// waiters), bounded by a deadline; none sleeps.

import assert from "node:assert/strict";
import { Dev } from "../_support/dev_process.ts";

// A safety net only: the exports come every few hundred milliseconds.
const DEADLINE_MS = 60_000;

interface KeyValue {
  readonly key: string;
  readonly value: Record<string, unknown>;
}

interface Span {
  readonly name: string;
  readonly attributes: readonly KeyValue[];
}

interface Metric {
  readonly name: string;
  readonly unit: string;
  readonly points: ReadonlyArray<{ attributes: readonly KeyValue[] }>;
}

/** An OTLP/HTTP receiver for JSON bodies: what a collector would get. */
class Receiver {
  readonly spans: Span[] = [];
  readonly metrics: Metric[] = [];
  readonly paths = new Set<string>();
  readonly #server: Deno.HttpServer<Deno.NetAddr>;
  #waiters: Array<() => void> = [];

  constructor() {
    this.#server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      async (request) => {
        const path = new URL(request.url).pathname;
        this.paths.add(path);
        const body = await request.json();
        if (path === "/v1/traces") this.#traces(body);
        if (path === "/v1/metrics") this.#metrics(body);
        for (const wake of this.#waiters.splice(0)) wake();
        return Response.json({});
      },
    );
  }

  get endpoint(): string {
    return `http://127.0.0.1:${this.#server.addr.port}`;
  }

  // deno-lint-ignore no-explicit-any
  #traces(body: any): void {
    for (const resource of body.resourceSpans ?? []) {
      for (const scope of resource.scopeSpans ?? []) {
        this.spans.push(...scope.spans);
      }
    }
  }

  // deno-lint-ignore no-explicit-any
  #metrics(body: any): void {
    for (const resource of body.resourceMetrics ?? []) {
      for (const scope of resource.scopeMetrics ?? []) {
        for (const metric of scope.metrics) {
          const data = metric.gauge ?? metric.sum ?? metric.histogram ?? {};
          this.metrics.push({
            name: metric.name,
            unit: metric.unit,
            points: data.dataPoints ?? [],
          });
        }
      }
    }
  }

  /** Waits until `found` returns a value, checking after each export. */
  async until<T>(what: string, found: () => T | undefined): Promise<T> {
    const deadline = Date.now() + DEADLINE_MS;
    for (;;) {
      const value = found();
      if (value !== undefined) return value;
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new Error(
          `no ${what} arrived within ${DEADLINE_MS} ms; spans: ${
            [...new Set(this.spans.map((s) => s.name))].join(", ")
          }; metrics: ${[...new Set(this.metrics.map((m) => m.name))]}`,
        );
      }
      let timer: ReturnType<typeof setTimeout> | undefined;
      await new Promise<void>((resolve) => {
        this.#waiters.push(resolve);
        timer = setTimeout(resolve, left);
      });
      clearTimeout(timer);
    }
  }

  close(): Promise<void> {
    return this.#server.shutdown();
  }
}

function attribute(
  attributes: readonly KeyValue[],
  key: string,
): unknown {
  const value = attributes.find((a) => a.key === key)?.value;
  return value === undefined ? undefined : Object.values(value)[0];
}

function otelEnv(endpoint: string): Record<string, string> {
  return {
    OTEL_DENO: "true",
    OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
    OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
    OTEL_METRIC_EXPORT_INTERVAL: "200",
    OTEL_BSP_SCHEDULE_DELAY: "100",
    OTEL_DENO_CONSOLE: "ignore",
    OTEL_SERVICE_NAME: "weir-otel-test",
  };
}

async function stop(dev: Dev): Promise<void> {
  dev.child.kill("SIGTERM");
  await dev.exit();
}

Deno.test("OTEL_DENO=true exports weir's metrics, checkpoint and restore spans, and HTTP spans named by route", async () => {
  const receiver = new Receiver();
  const dir = await Deno.makeTempDir();
  const args = [
    "--port",
    "0",
    "--store",
    `${dir}/weir.sqlite`,
    "--checkpoint-interval-ms",
    "100",
  ];
  try {
    const first = new Dev(args, otelEnv(receiver.endpoint));
    try {
      const [, url] = await first.line(/serving (http:\/\/\S+)/);
      const response = await fetch(`${url}/jobs/demo/watermarks`);
      assert.equal(response.status, 200);
      await response.body?.cancel();

      // Per-subtask metrics, in seconds, with the job and the subtask.
      const lag = await receiver.until(
        "weir.watermark.lag",
        () =>
          receiver.metrics.find((m) =>
            m.name === "weir.watermark.lag" &&
            m.points.some((p) => attribute(p.attributes, "job.name") === "demo")
          ),
      );
      assert.equal(lag.unit, "s");
      const point = lag.points[0].attributes;
      assert.equal(typeof attribute(point, "operator"), "string");
      assert.notEqual(attribute(point, "subtask"), undefined);
      for (
        const name of [
          "weir.watermark.output",
          "weir.records.in",
          "weir.records.out",
          "weir.checkpoint.duration",
        ]
      ) {
        await receiver.until(
          name,
          () => receiver.metrics.find((m) => m.name === name),
        );
      }

      const checkpoint = await receiver.until(
        "weir.checkpoint span",
        () => receiver.spans.find((s) => s.name === "weir.checkpoint"),
      );
      assert.equal(attribute(checkpoint.attributes, "job.name"), "demo");
      assert.ok(
        Number(attribute(checkpoint.attributes, "weir.checkpoint.id")) > 0,
      );
      assert.ok(
        Number(attribute(checkpoint.attributes, "weir.checkpoint.size")) > 0,
      );

      // Deno names the server span by method; the app adds the route.
      const http = await receiver.until(
        "HTTP span named by route",
        () =>
          receiver.spans.find((s) => s.name === "GET /jobs/:job/watermarks"),
      );
      assert.equal(
        attribute(http.attributes, "http.route"),
        "/jobs/:job/watermarks",
      );
    } finally {
      await stop(first);
    }

    // Started again over the same store: it restores its last checkpoint.
    const second = new Dev(args, otelEnv(receiver.endpoint));
    try {
      const [, id] = await second.line(/restored from checkpoint (\d+)/);
      const restore = await receiver.until(
        "weir.restore span",
        () => receiver.spans.find((s) => s.name === "weir.restore"),
      );
      assert.equal(attribute(restore.attributes, "job.name"), "demo");
      assert.equal(
        Number(attribute(restore.attributes, "weir.checkpoint.id")),
        Number(id),
      );
    } finally {
      await stop(second);
    }
  } finally {
    await receiver.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("OTEL_DENO=true on the KV runtime exports weir's metrics and the coordinator's checkpoint spans", async () => {
  const receiver = new Receiver();
  const dir = await Deno.makeTempDir();
  const dev = new Dev([
    "--runtime",
    "kv",
    "--port",
    "0",
    "--store",
    `${dir}/weir.sqlite`,
    "--checkpoint-interval-ms",
    "100",
  ], otelEnv(receiver.endpoint));
  try {
    await dev.line(/serving http:\/\//);
    await receiver.until(
      "weir.watermark.lag",
      () =>
        receiver.metrics.find((m) =>
          m.name === "weir.watermark.lag" &&
          m.points.some((p) => attribute(p.attributes, "job.name") === "demo")
        ),
    );
    const checkpoint = await receiver.until(
      "weir.checkpoint span",
      () => receiver.spans.find((s) => s.name === "weir.checkpoint"),
    );
    assert.equal(attribute(checkpoint.attributes, "job.name"), "demo");
    assert.ok(
      Number(attribute(checkpoint.attributes, "weir.checkpoint.size")) > 0,
    );
  } finally {
    await stop(dev);
    await receiver.close();
    await Deno.remove(dir, { recursive: true });
  }
});
