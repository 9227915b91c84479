/**
 * What a watermark generator factory receives from the subtask that runs it.
 *
 * @module
 */

import type { Clock } from "./clock.ts";

/** Where a generator registers gauges that the dashboard and `/metrics` show. */
export interface MetricGroup {
  /**
   * Registers a gauge, read whenever metrics are collected.
   *
   * @param name A metric name such as `watermarkLagMs`.
   * @param read Returns the current value; must be cheap and must not throw.
   */
  gauge(name: string, read: () => number): void;
}

/**
 * The context of one generator instance: one per subtask (or per source
 * partition), never shared, so its state is per-subtask.
 */
export interface WatermarkGeneratorContext {
  /**
   * The input-activity clock: processing time that stands still while the
   * subtask is back-pressured or held by alignment (FLINK-35886). Idleness
   * timeouts run on it.
   */
  readonly clock: Clock;
  /** The index of the subtask, from 0. */
  readonly subtaskIndex: number;
  /** Where the generator may register gauges. */
  readonly metrics: MetricGroup;
}
