// A source reader may refill its timestamps array for the next poll: the
// batches it returned before, still waiting downstream, keep theirs. A
// reader that hands each batch its own array (ownTimestamps) gets it passed
// on as it is.

import assert from "node:assert/strict";
import { forwardPartitioner } from "../../src/runtime/partitioner.ts";
import type { SourceBatch, SourceReader } from "../../src/runtime/source.ts";
import { SourceSubtask } from "../../src/runtime/source_subtask.ts";
import type { StreamElement } from "../../src/runtime/stream_element.ts";
import { ManualClock } from "../../src/time/clock.ts";
import { PausableClock } from "../../src/time/pausable_clock.ts";
import { WatermarkStrategy } from "../../src/time/watermark_strategy.ts";

// Fresh values each poll, but one timestamps array refilled every time.
class RefillingReader implements SourceReader<string> {
  readonly partitions = ["p"];
  #next = 0;
  readonly #timestamps: number[] = [];
  poll(): SourceBatch<string> | null {
    if (this.#next >= 4) return null;
    const values = [`v${this.#next}`, `v${this.#next + 1}`];
    this.#timestamps.length = 0;
    this.#timestamps.push(1_000 * this.#next, 1_000 * (this.#next + 1));
    this.#next += 2;
    return { partition: 0, values, timestamps: this.#timestamps };
  }
  nextAvailableAt(): number {
    return this.#next >= 4 ? Infinity : 0;
  }
  get finished(): boolean {
    return this.#next >= 4;
  }
  snapshotState(): unknown {
    return {};
  }
  restoreState(): void {}
}

// Fresh values and timestamps each poll, said to be the batch's own.
class OwningReader extends RefillingReader {
  readonly given: number[][] = [];
  override poll(): SourceBatch<string> | null {
    const batch = super.poll();
    if (batch === null) return null;
    const timestamps = [...batch.timestamps];
    this.given.push(timestamps);
    return { ...batch, timestamps, ownTimestamps: true };
  }
}

function runSource(reader: SourceReader<string>): StreamElement[] {
  const clock = new ManualClock(0);
  const held: StreamElement[] = [];
  const source = new SourceSubtask<string>(
    {
      reader,
      strategy: WatermarkStrategy.noWatermarks<string>(),
      operators: [],
      edges: [{ partitioner: forwardPartitioner(0), numChannels: 1 }],
      autoWatermarkIntervalMs: 0,
    },
    {
      clock,
      activityClock: new PausableClock(clock),
      subtaskIndex: 0,
      parallelism: 1,
      metrics: { gauge() {} },
    },
    (_edge, _channel, element) => held.push(element),
  );
  source.poll(0);
  source.poll(0);
  return held;
}

Deno.test("SourceSubtask passes on a batch's own timestamps (ownTimestamps) without copying them", () => {
  const reader = new OwningReader();
  const held = runSource(reader);
  const sent = held.flatMap((e) => e.kind === "records" ? [e.timestamps] : []);
  assert.equal(sent.length, 2);
  assert.equal(sent[0], reader.given[0]);
  assert.equal(sent[1], reader.given[1]);
  assert.deepEqual(sent, [[0, 1_000], [2_000, 3_000]]);
});

Deno.test("SourceSubtask copies a batch's timestamps, so a batch held downstream keeps them when the reader refills its array", () => {
  const held = runSource(new RefillingReader());
  const records = held.flatMap((e) =>
    e.kind === "records"
      ? [e.values.map((v, i) => `${v}@${e.timestamps[i]}`)]
      : []
  );
  assert.deepEqual(records, [["v0@0", "v1@1000"], ["v2@2000", "v3@3000"]]);
});
