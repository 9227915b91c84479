/**
 * Idle partitions, the most common cause of a stuck watermark.
 *
 * Three source partitions feed one downstream subtask, whose
 * `StatusWatermarkValve` takes the minimum of its inputs. Partition 2 stops
 * receiving data after one second. Without idleness its last watermark holds
 * the downstream watermark forever; with `withIdleness` it is marked idle and
 * the watermark moves on with the two live partitions.
 *
 * Time is simulated with a `ManualClock` ticking every 200 ms (the default
 * auto-watermark interval), so the run is deterministic.
 *
 * @module
 */

import {
  ManualClock,
  StatusWatermarkValve,
  WatermarkStrategy,
} from "../src/mod.ts";
import { WatermarkEmitter } from "../src/time/mod.ts";

/** One periodic tick of the simulation. */
export interface IdlePartitionsTick {
  /** Processing time since the start, in milliseconds. */
  atMs: number;
  /** Each partition's emitted watermark, or "idle". */
  partitions: Array<number | "idle">;
  /** The downstream subtask's watermark. */
  downstream: number;
}

/** Options of {@linkcode runIdlePartitions}. */
export interface IdlePartitionsOptions {
  /**
   * Idle timeout of the source partitions in milliseconds, or `null` for none.
   * @default {2000}
   */
  idleTimeoutMs?: number | null;
  /**
   * How long to simulate, in milliseconds.
   * @default {6000}
   */
  durationMs?: number;
}

const EPOCH = 1_767_225_600_000; // 2026-01-01T00:00:00Z
const TICK_MS = 200;
const PARTITIONS = 3;
const SILENT_PARTITION = 2;
const SILENT_AFTER_MS = 1_000;

/**
 * Runs the simulation and returns one entry per tick.
 *
 * @param options Idle timeout and duration.
 * @returns The watermarks after each tick, relative to the epoch of the run.
 */
export function runIdlePartitions(
  options: IdlePartitionsOptions = {},
): IdlePartitionsTick[] {
  const idleTimeoutMs = options.idleTimeoutMs === undefined
    ? 2_000
    : options.idleTimeoutMs;
  const durationMs = options.durationMs ?? 6_000;
  const clock = new ManualClock(0);
  let strategy = WatermarkStrategy.forBoundedOutOfOrderness<null>(500);
  if (idleTimeoutMs !== null) strategy = strategy.withIdleness(idleTimeoutMs);

  let downstream = -Infinity;
  const valve = new StatusWatermarkValve(PARTITIONS, {
    emitWatermark(watermark) {
      downstream = watermark;
    },
    emitWatermarkStatus() {},
  });
  const partitions = Array.from({ length: PARTITIONS }, (_, channel) => {
    const emitter = new WatermarkEmitter({
      emitWatermark: (watermark) => valve.inputWatermark(watermark, channel),
      emitWatermarkStatus: (status) =>
        valve.inputWatermarkStatus(status, channel),
    });
    const generator = strategy.createWatermarkGenerator({
      clock,
      subtaskIndex: channel,
      metrics: { gauge() {} },
    });
    return { emitter, generator };
  });

  const ticks: IdlePartitionsTick[] = [];
  for (let at = TICK_MS; at <= durationMs; at += TICK_MS) {
    clock.set(at);
    partitions.forEach(({ emitter, generator }, p) => {
      if (p === SILENT_PARTITION && at > SILENT_AFTER_MS) return;
      // Two records per tick, the second up to 300 ms out of order.
      generator.onEvent(null, EPOCH + at, emitter);
      generator.onEvent(null, EPOCH + at - ((at * 7 + p * 131) % 300), emitter);
    });
    for (const { emitter, generator } of partitions) {
      generator.onPeriodicEmit(emitter);
    }
    ticks.push({
      atMs: at,
      partitions: partitions.map(({ emitter }) =>
        emitter.idle ? "idle" : emitter.currentWatermark - EPOCH
      ),
      downstream: downstream - EPOCH,
    });
  }
  return ticks;
}

/**
 * Renders a run as lines of text, one per second of processing time.
 *
 * @param ticks The result of {@linkcode runIdlePartitions}.
 * @returns Printable lines.
 */
export function formatTicks(ticks: IdlePartitionsTick[]): string[] {
  return ticks.filter((tick) => tick.atMs % 1_000 === 0).map((tick) =>
    `t=${String(tick.atMs).padStart(5)} ms  partitions=[${
      tick.partitions.map((w) => String(w).padStart(5)).join(", ")
    }]  downstream=${tick.downstream}`
  );
}
