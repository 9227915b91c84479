// SourceSubtask.beginReplay / replayBatch / endReplay: a source taken over
// in the KV runtime's replay mode feeds records read again to its
// partitions' generators, emitting nothing and counting nothing as read.

import assert from "node:assert/strict";
import { ScriptedSource } from "../../src/connectors/sources/scripted.ts";
import { forwardPartitioner } from "../../src/runtime/partitioner.ts";
import { SourceSubtask } from "../../src/runtime/source_subtask.ts";
import type { StreamElement } from "../../src/runtime/stream_element.ts";
import { ManualClock } from "../../src/time/clock.ts";
import { PausableClock } from "../../src/time/pausable_clock.ts";
import { WatermarkStrategy } from "../../src/time/watermark_strategy.ts";

function source(clock: ManualClock) {
  const sent: StreamElement[] = [];
  const script = [0, 1, 2, 3].map((i) => ({
    at: 0,
    partition: i % 2,
    value: [100, 400, 250, 300][i],
  }));
  const subtask = new SourceSubtask<number>(
    {
      reader: new ScriptedSource(script, { partitions: 2 }).createReader(0, 1),
      strategy: WatermarkStrategy.forBoundedOutOfOrderness<number>(10)
        .withTimestampAssigner((n) => n),
      operators: [],
      edges: [{ partitioner: forwardPartitioner(0), numChannels: 1 }],
      autoWatermarkIntervalMs: 200,
      persistWatermarks: false,
    },
    {
      clock,
      activityClock: new PausableClock(clock),
      subtaskIndex: 0,
      parallelism: 1,
      metrics: { gauge() {} },
    },
    (_edge, _channel, element) => sent.push(element),
  );
  return { subtask, sent };
}

Deno.test("SourceSubtask.recordsRead counts the records polled per partition", () => {
  const clock = new ManualClock(0);
  const { subtask } = source(clock);
  while (subtask.poll(0)) {
    if (subtask.finished) break;
  }
  assert.deepEqual(subtask.recordsRead, [2, 2]);
});

Deno.test("SourceSubtask.replayBatch() rebuilds the generators from records read again, emitting nothing", () => {
  const clock = new ManualClock(0);
  const { subtask, sent } = source(clock);
  subtask.beginReplay();
  subtask.replayBatch({ partition: 0, values: [100, 250], timestamps: [0, 0] });
  subtask.replayBatch({ partition: 1, values: [400], timestamps: [0] });
  subtask.endReplay();
  assert.deepEqual(sent, [], "nothing is sent");
  assert.deepEqual(subtask.recordsRead, [0, 0], "nothing counts as read");
  assert.equal(subtask.metrics.recordsIn, 0);
  // The next periodic emit: the minimum over the partitions' generators,
  // min(250, 400) - 10 - 1.
  clock.set(200);
  subtask.onProcessingTime(200);
  assert.deepEqual(sent, [{ kind: "watermark", watermark: 239 }]);
});
