// A job whose sources speak for a second and then fall silent, so every
// subtask ends up with a watermark past -Infinity and an idle output: what
// the status tests of a persist-mode restore look at.

import type { ManualClock } from "../../src/time/clock.ts";
import { WatermarkStrategy } from "../../src/time/watermark_strategy.ts";
import { TumblingEventTimeWindows } from "../../src/windows/tumbling.ts";
import {
  ScriptedSource,
  type ScriptStep,
} from "../../src/connectors/sources/scripted.ts";
import { CollectSink } from "../../src/connectors/sinks/collect.ts";
import { StreamEnvironment } from "../../src/api/stream_environment.ts";

/** The watermark and idleness a status reports for one subtask. */
export interface EventTimeStatus {
  /** The actor id. */
  id: string;
  /** The merged input watermark. */
  inputWatermark: number;
  /** The last watermark sent downstream. */
  outputWatermark: number;
  /** Whether the output is idle. */
  idle: boolean;
}

/** Only the event-time fields of each status, in order. */
export function eventTime(
  statuses: readonly EventTimeStatus[],
): EventTimeStatus[] {
  return statuses.map(({ id, inputWatermark, outputWatermark, idle }) => ({
    id,
    inputWatermark,
    outputWatermark,
    idle,
  }));
}

/**
 * Readings on two partitions for one second, then silence until the end at
 * 60 s; idle after 500 ms of quiet; sums per sensor in 500 ms windows,
 * mapped and collected, at parallelism 2.
 */
export function quietJob(clock: ManualClock): StreamEnvironment {
  const script: ScriptStep<{ sensor: number; ts: number }>[] = [];
  for (let i = 0; i < 20; i++) {
    script.push({
      at: i * 50,
      partition: i % 2,
      value: { sensor: i % 3, ts: 1_000 + i * 50 },
    });
  }
  for (const partition of [0, 1]) {
    script.push({ at: 60_000, partition, end: true });
  }
  const env = new StreamEnvironment({
    jobName: "quiet",
    parallelism: 2,
    clock,
    watermarkRecovery: "persist",
  });
  env.fromSource(
    new ScriptedSource(script, { partitions: 2 }),
    WatermarkStrategy.forBoundedOutOfOrderness<{ sensor: number; ts: number }>(
      100,
    ).withTimestampAssigner((r) => r.ts).withIdleness(500),
    "readings",
  ).keyBy((r) => r.sensor).window(TumblingEventTimeWindows.of(500))
    .reduce((a, b) => ({ sensor: a.sensor, ts: Math.max(a.ts, b.ts) }))
    .map((r) => r.sensor).sinkTo(new CollectSink<number>());
  return env;
}
