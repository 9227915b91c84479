// A source subtask's dead letters: positions are partition
// offsets, kept in snapshots, so a record failing again after a restore
// gets the same id.

import assert from "node:assert/strict";
import { ScriptedSource } from "../../src/connectors/sources/scripted.ts";
import {
  type ErrorPolicy,
  RecordFailedError,
} from "../../src/runtime/dead_letter.ts";
import { MapOperator } from "../../src/runtime/operators/map.ts";
import { forwardPartitioner } from "../../src/runtime/partitioner.ts";
import {
  SourceSubtask,
  type SourceSubtaskSnapshot,
} from "../../src/runtime/source_subtask.ts";
import { ManualClock } from "../../src/time/clock.ts";
import { PausableClock } from "../../src/time/pausable_clock.ts";
import { WatermarkStrategy } from "../../src/time/watermark_strategy.ts";
import { thrown } from "../_support/guard_harness.ts";

const script = [0, 1, 2, 3, 4, 5].map((i) => ({
  at: i * 10,
  partition: i % 2,
  value: i === 4 ? "bad" : `v${i}`,
  timestamp: 1_000 + i,
}));

const descriptors = [
  { id: "source-1", name: "events", state: {} },
  { id: "map-2", uid: "parse", name: "Map", state: {} },
];

function source(errorPolicy?: ErrorPolicy, quarantine?: Set<string>) {
  const clock = new ManualClock(0);
  const out: string[] = [];
  const subtask = new SourceSubtask<string>(
    {
      reader: new ScriptedSource(script, { partitions: 2 }).createReader(0, 1),
      strategy: WatermarkStrategy.forMonotonousTimestamps<string>(),
      operators: [
        new MapOperator<unknown, unknown>((v) => {
          if (v === "bad") throw new SyntaxError("Cannot parse 'bad'");
          return v;
        }),
      ],
      edges: [{ partitioner: forwardPartitioner(0), numChannels: 1 }],
      autoWatermarkIntervalMs: 0,
      errorPolicy,
      quarantine,
      descriptors,
    },
    {
      clock,
      activityClock: new PausableClock(clock),
      subtaskIndex: 0,
      parallelism: 1,
      metrics: { gauge() {} },
    },
    (_edge, _channel, element) => {
      if (element.kind === "records") out.push(...element.values as string[]);
    },
  );
  const run = (until: number) => {
    for (let now = clock.now(); now <= until; now += 10) {
      clock.set(now);
      while (subtask.poll(now));
    }
  };
  return { subtask, out, run, clock };
}

Deno.test("SourceSubtask names a record a chained operator rejects by partition and offset, and gives it the same id after a restore", () => {
  const first = source();
  first.run(20);
  const snapshot = structuredClone(first.subtask.snapshot());
  assert.deepEqual(snapshot.offsets, { "scripted-0": 2, "scripted-1": 1 });
  first.run(60);
  const [letter] = first.subtask.takeDeadLetters();
  assert.equal(letter.operator, "parse");
  assert.equal(letter.position, "partition scripted-0, offset 2");
  assert.deepEqual(first.out, ["v0", "v1", "v2", "v3", "v5"]);

  const again = source();
  again.subtask.restore(snapshot as SourceSubtaskSnapshot);
  again.clock.set(30);
  again.run(60);
  const [replayed] = again.subtask.takeDeadLetters();
  assert.equal(replayed.position, letter.position);
  assert.equal(replayed.id, letter.id);

  // Without the offsets (a snapshot of an older version) they restart.
  const older = source();
  older.subtask.restore({ ...snapshot, offsets: undefined });
  older.clock.set(30);
  older.run(60);
  assert.notEqual(older.subtask.takeDeadLetters()[0].id, letter.id);
});

Deno.test('SourceSubtask under "fail" throws RecordFailedError from poll, and sets the record aside once quarantined', () => {
  const first = source("fail");
  const error = thrown(() => first.run(60));
  assert.ok(error instanceof RecordFailedError);
  const again = source("fail", new Set([error.strike]));
  again.run(60);
  assert.deepEqual(again.out, ["v0", "v1", "v2", "v3", "v5"]);
  const [letter] = again.subtask.takeDeadLetters();
  assert.equal(letter.reason, "quarantined");
  assert.equal(letter.id, error.letter.id);
});
