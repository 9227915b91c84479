import assert from "node:assert/strict";
import { trace, type TracerProvider } from "@opentelemetry/api";
import {
  checkpointRestored,
  checkpointSaved,
} from "../../src/actors/checkpoint_telemetry.ts";
import { PendingCheckpoint } from "../../src/actors/pending_checkpoint.ts";
import { encodeStructured } from "../../src/actors/_codec.ts";
import type { CompletedCheckpoint } from "../../src/actors/checkpoint.ts";
import type { JobFingerprint } from "../../src/runtime/fingerprint.ts";

interface RecordedSpan {
  name: string;
  startTime: number;
  endTime?: number;
  attributes: Record<string, unknown>;
}

/** A tracer provider that keeps every span started, as a test reads it. */
function recordSpans(run: (spans: RecordedSpan[]) => void): void {
  const spans: RecordedSpan[] = [];
  const tracer = {
    startSpan(
      name: string,
      options: { startTime: number; attributes: Record<string, unknown> },
    ) {
      const span: RecordedSpan = {
        name,
        startTime: options.startTime,
        attributes: { ...options.attributes },
      };
      spans.push(span);
      return {
        isRecording: () => true,
        setAttribute(key: string, value: unknown) {
          span.attributes[key] = value;
        },
        end(endTime: number) {
          span.endTime = endTime;
        },
      };
    },
  };
  trace.setGlobalTracerProvider(
    { getTracer: () => tracer } as unknown as TracerProvider,
  );
  try {
    run(spans);
  } finally {
    trace.disable();
  }
}

function checkpoint(id: number): CompletedCheckpoint {
  const pending = new PendingCheckpoint(id, 2);
  pending.ack("clicks/a/0", encodeStructured({ n: 1 }));
  pending.ack("clicks/b/0", encodeStructured({ text: "x".repeat(100) }));
  const fingerprint = { jobName: "clicks" } as unknown as JobFingerprint;
  return pending.complete(fingerprint, 1_000);
}

Deno.test("checkpointSaved() records a weir.checkpoint span as long as the checkpoint took, with its id and size", () => {
  recordSpans((spans) => {
    checkpointSaved(checkpoint(7), 250);
    assert.equal(spans.length, 1);
    const [span] = spans;
    assert.equal(span.name, "weir.checkpoint");
    assert.equal(span.endTime! - span.startTime, 250);
    assert.equal(span.attributes["job.name"], "clicks");
    assert.equal(span.attributes["weir.checkpoint.id"], 7);
    assert.ok(Number(span.attributes["weir.checkpoint.size"]) > 100);
  });
});

Deno.test("checkpointRestored() records a weir.restore span with the checkpoint's id", () => {
  recordSpans((spans) => {
    const started = Date.now() - 40;
    checkpointRestored(checkpoint(3), started);
    assert.equal(spans.length, 1);
    const [span] = spans;
    assert.equal(span.name, "weir.restore");
    assert.equal(span.startTime, started);
    assert.ok(span.endTime! >= started);
    assert.deepEqual(span.attributes, {
      "job.name": "clicks",
      "weir.checkpoint.id": 3,
    });
  });
});

Deno.test("checkpointSaved() and checkpointRestored() do nothing without OpenTelemetry", () => {
  checkpointSaved(checkpoint(1), 10);
  checkpointSaved(checkpoint(2), undefined);
  checkpointRestored(checkpoint(1));
});
