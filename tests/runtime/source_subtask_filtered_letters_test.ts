// A source subtask's dead letters after a filter: a record's id must not
// depend on how the polls were cut (DeadLetter.id: the same record failing
// at the same operator subtask gets the same id, so a restore that
// processes it again writes it once).

import assert from "node:assert/strict";
import { FilterOperator } from "../../src/runtime/operators/filter.ts";
import { MapOperator } from "../../src/runtime/operators/map.ts";
import {
  forwardPartitioner,
  hashPartitioner,
} from "../../src/runtime/partitioner.ts";
import type { SourceBatch, SourceReader } from "../../src/runtime/source.ts";
import { SourceSubtask } from "../../src/runtime/source_subtask.ts";
import type { DeadLetter } from "../../src/runtime/dead_letter.ts";
import { ManualClock } from "../../src/time/clock.ts";
import { PausableClock } from "../../src/time/pausable_clock.ts";
import { WatermarkStrategy } from "../../src/time/watermark_strategy.ts";

// One partition ["x", "bad", "c"] at timestamps [1, 2, 3], served in polls
// of the given sizes (as a live source serves what has arrived).
class CutReader implements SourceReader<string> {
  readonly partitions = ["p"];
  readonly #all = ["x", "bad", "c"];
  #next = 0;
  #cut = 0;
  constructor(readonly cuts: number[]) {}
  poll(): SourceBatch<string> | null {
    if (this.#next >= this.#all.length) return null;
    const size = this.cuts[this.#cut++];
    const from = this.#next;
    this.#next += size;
    return {
      partition: 0,
      values: this.#all.slice(from, this.#next),
      timestamps: [1, 2, 3].slice(from, this.#next),
    };
  }
  nextAvailableAt(): number {
    return this.#next >= this.#all.length ? Infinity : 0;
  }
  get finished(): boolean {
    return this.#next >= this.#all.length;
  }
  snapshotState(): unknown {
    return { next: this.#next };
  }
  restoreState(): void {}
}

function lettersOf(cuts: number[], keyed = false): DeadLetter[] {
  const clock = new ManualClock(0);
  const source = new SourceSubtask<string>(
    {
      reader: new CutReader(cuts),
      strategy: WatermarkStrategy.noWatermarks<string>(),
      operators: [
        new FilterOperator<unknown>((v) => v !== "x"),
        ...(keyed ? [] : [
          new MapOperator<unknown, unknown>((v) => {
            if (v === "bad") throw new SyntaxError("Cannot parse 'bad'");
            return v;
          }),
        ]),
      ],
      edges: [{
        partitioner: keyed
          ? hashPartitioner((v: unknown) => {
            if (v === "bad") throw new TypeError("no key");
            return v as string;
          }, 128)
          : forwardPartitioner(0),
        numChannels: keyed ? 2 : 1,
      }],
      autoWatermarkIntervalMs: 0,
      descriptors: [
        { id: "source-1", name: "events", state: {} },
        { id: "filter-2", name: "Filter", state: {} },
        { id: "map-3", uid: "parse", name: "Map", state: {} },
      ],
    },
    {
      clock,
      activityClock: new PausableClock(clock),
      subtaskIndex: 0,
      parallelism: 1,
      metrics: { gauge() {} },
    },
    () => {},
  );
  while (source.poll(0));
  return source.takeDeadLetters();
}

Deno.test("SourceSubtask gives a record that a map after a filter rejects one dead-letter id however the polls were cut", () => {
  // One poll of all three: the filter drops "x", so it makes new arrays.
  const [whole] = lettersOf([3]);
  // "x" alone, then "bad" and "c": the filter keeps the whole second poll.
  const [cut] = lettersOf([1, 2]);
  assert.equal(whole.value, "bad");
  assert.equal(cut.value, "bad");
  assert.equal(cut.id, whole.id, "same record, same operator subtask");
});

Deno.test("SourceSubtask gives a record whose key selector throws at an edge after a filter one dead-letter id however the polls were cut", () => {
  const [whole] = lettersOf([3], true);
  const [cut] = lettersOf([1, 2], true);
  assert.equal(cut.id, whole.id, "same record, same edge");
});
