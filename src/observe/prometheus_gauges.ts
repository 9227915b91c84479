/**
 * The metric each gauge a subtask's operators or generators register is
 * written as: `weir_subtask_<name in snake_case>`, milliseconds turned
 * into seconds, so that every gauge has a family of its own (help, type,
 * base unit) rather than one generic family with a `name` label.
 *
 * @module
 */

/** How one registered gauge is written. */
export interface GaugeMetric {
  /** The metric name. */
  readonly name: string;
  /** What the raw value is multiplied by (0.001 for milliseconds). */
  readonly scale: number;
  /** One line of help text. */
  readonly help: string;
}

// Already written as a counter of its own (weir_subtask_late_records_dropped_total).
const WRITTEN_ELSEWHERE = new Set(["numLateRecordsDropped"]);

// Suffixes Prometheus gives a meaning of their own (counters, histograms,
// summaries): a gauge named so would be read as one of those.
const RESERVED = /_(total|count|sum|bucket|created|info)$/;

/**
 * The metric a registered gauge is written as: `numWindows` becomes
 * `weir_subtask_windows`, `latenessP95Ms` becomes
 * `weir_subtask_lateness_p95_seconds` (value / 1000). A leading `num` is
 * dropped (the metric is a count already), and a trailing `Ms` becomes
 * seconds.
 *
 * @param gauge The name the gauge was registered under.
 * @returns How to write it, or `null` when it is written elsewhere or its
 *   name cannot make a valid, unambiguous metric name (such gauges are
 *   left out of `/metrics`; the JSON status still shows them).
 */
export function gaugeMetric(gauge: string): GaugeMetric | null {
  if (WRITTEN_ELSEWHERE.has(gauge)) return null;
  let snake = gauge
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/([A-Z])([A-Z][a-z])/g, "$1_$2")
    .toLowerCase();
  if (!/^[a-z][a-z0-9_]*$/.test(snake) || /__|_$/.test(snake)) return null;
  snake = snake.replace(/^num_/, "");
  let scale = 1;
  let unit = "";
  if (snake.endsWith("_ms")) {
    snake = snake.slice(0, -3);
    scale = 0.001;
    unit = ", seconds (registered in milliseconds)";
  }
  if (RESERVED.test(snake)) return null;
  const name = `weir_subtask_${snake}${scale === 1 ? "" : "_seconds"}`;
  return {
    name,
    scale,
    help:
      `Gauge '${gauge}' registered by the subtask's operators or generators${unit}`,
  };
}
