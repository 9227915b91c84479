// The metric name each registered gauge is written under.

import assert from "node:assert/strict";
import { gaugeMetric } from "../../src/observe/prometheus_gauges.ts";

Deno.test("gaugeMetric snake-cases a gauge's name, drops a leading num and turns Ms into seconds", () => {
  const named = (gauge: string) => {
    const m = gaugeMetric(gauge);
    return m === null ? null : [m.name, m.scale];
  };
  assert.deepEqual(named("numWindows"), ["weir_subtask_windows", 1]);
  assert.deepEqual(named("numKeys"), ["weir_subtask_keys", 1]);
  assert.deepEqual(named("asyncInFlight"), ["weir_subtask_async_in_flight", 1]);
  assert.deepEqual(named("latenessP95Ms"), [
    "weir_subtask_lateness_p95_seconds",
    0.001,
  ]);
  assert.deepEqual(named("suggestedDelayMs"), [
    "weir_subtask_suggested_delay_seconds",
    0.001,
  ]);
  assert.deepEqual(named("oldestHeldWatermarkAgeMs"), [
    "weir_subtask_oldest_held_watermark_age_seconds",
    0.001,
  ]);
  assert.deepEqual(named("HTTPQueueSize"), ["weir_subtask_http_queue_size", 1]);
  // The timeline's epoch-millisecond gauges become seconds since the epoch.
  assert.deepEqual(named("lastFiredWindowEndMs"), [
    "weir_subtask_last_fired_window_end_seconds",
    0.001,
  ]);
  assert.deepEqual(named("lastRecordTimestampMs"), [
    "weir_subtask_last_record_timestamp_seconds",
    0.001,
  ]);
});

Deno.test("gaugeMetric leaves out gauges written elsewhere or without a good name", () => {
  // Already the counter weir_subtask_late_records_dropped_total.
  assert.equal(gaugeMetric("numLateRecordsDropped"), null);
  for (const bad of ["bad name", "über", "1st", "a__b", "trailing_", ""]) {
    assert.equal(gaugeMetric(bad), null, bad);
  }
  // Suffixes Prometheus reads as counters, histograms or summaries.
  for (const reserved of ["requestsTotal", "eventCount", "latencySum"]) {
    assert.equal(gaugeMetric(reserved), null, reserved);
  }
});
