import assert from "node:assert/strict";
import { ManualClock, StreamEnvironment } from "../../../src/mod.ts";
import { nexmarkConfig } from "../../../bench/nexmark/config.ts";
import {
  pregenerate,
  PregeneratedSource,
} from "../../../bench/nexmark/pregenerated.ts";
import {
  type NexmarkQuery,
  runKernel,
  sortedJson,
} from "../../../bench/nexmark/query.ts";
import { QUERIES } from "../../../bench/nexmark/queries/mod.ts";
import { steppedOutOfOrderness } from "./_run_query.ts";

// What `deno task bench --parallelism 2` runs: two generator splits on
// parallel timelines, one per source subtask; the kernel reads them merged
// by timestamp.
const CONFIG = nexmarkConfig({
  numEvents: 12_000,
  firstEventRate: 500,
  numEventGenerators: 2,
});
const EVENTS = pregenerate(CONFIG, 2);

Deno.test("pregenerate splits the events over parallel timelines and merges them by timestamp", () => {
  assert.equal(EVENTS.partitions.length, 2);
  assert.equal(EVENTS.count, 12_000);
  assert.equal(EVENTS.merged.length, 12_000);
  assert.equal(
    EVENTS.partitions[0].length + EVENTS.partitions[1].length,
    12_000,
  );
  // Both timelines start at the base time.
  assert.equal(EVENTS.timestamps[0][0], EVENTS.timestamps[1][0]);
  const times = EVENTS.merged.map((e) =>
    (e.bid ?? e.auction ?? e.person)!.dateTime
  );
  assert.ok(times.every((t, i) => i === 0 || times[i - 1] <= t));
});

Deno.test("PregeneratedSource readers resume from a snapshot and refuse another reader's", () => {
  const source = new PregeneratedSource(EVENTS);
  const reader = source.createReader(1, 2);
  assert.deepEqual(reader.partitions, ["nexmark-1"]);
  const first = reader.poll(0, 100)!;
  assert.equal(first.values[0], EVENTS.partitions[1][0]);
  const snapshot = structuredClone(reader.snapshotState());
  const next = reader.poll(0, 100)!;
  const again = source.createReader(1, 2);
  again.restoreState(snapshot);
  assert.equal(again.poll(0, 100)!.values[0], next.values[0]);
  assert.throws(() => source.createReader(0, 2).restoreState(snapshot), {
    name: "TypeError",
    message: /partitions \[0\]/,
  });
  assert.throws(() => source.createReader(0, 0), {
    name: "RangeError",
    message: /'subtaskIndex'/,
  });
});

// q12 reads processing time; peer-tumble brings its own input.
const NEXMARK = QUERIES.filter((q) =>
  !q.processingTime && !q.input
) as NexmarkQuery<unknown>[];
for (const query of NEXMARK) {
  Deno.test(`${query.name} on two generator splits at parallelism 2 equals its kernel over the merged events`, async () => {
    const env = new StreamEnvironment({
      jobName: query.name,
      parallelism: 2,
      clock: new ManualClock(0),
      autoWatermarkIntervalMs: 0,
    });
    const events = env.fromSource(
      new PregeneratedSource(EVENTS),
      steppedOutOfOrderness(250),
      "nexmark",
    );
    const engine = await env.executeAndCollect(query.build(events));
    const kernel = runKernel(query, EVENTS.merged, new ManualClock(0));
    const canonical = query.canonical ?? sortedJson;
    assert.ok(kernel.length > 0, `${query.name} has results`);
    assert.deepEqual(canonical(engine), canonical(kernel));
  });
}
