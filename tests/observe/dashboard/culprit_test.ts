// The culprit line, first on the page: what holds the job's event time
// back, from the diagnosis, or that it advances.

import assert from "node:assert/strict";
import { type Click, clicksGraph } from "../../_support/clicks_handle.ts";
import { ManualClock } from "../../../src/time/clock.ts";
import type { ScriptStep } from "../../../src/connectors/sources/scripted.ts";
import { LocalRuntime } from "../../../src/actors/local/local_runtime.ts";
import { LocalJobHandle } from "../../../src/observe/local_job_handle.ts";
import { dashboardPage } from "../../../src/observe/dashboard/page.ts";
import {
  culprit,
  holdingPartition,
  stalledFor,
} from "../../../src/observe/dashboard/culprit.ts";
import { jobHealth } from "../../../src/observe/health.ts";

const T0 = 1_700_000_000_000;

/** Four partitions on two source subtasks; only `active` ones send records. */
function job(active: number[]) {
  const steps: ScriptStep<Click>[] = [];
  for (let s = 0; s <= 60; s++) {
    for (const partition of active) {
      steps.push({
        at: T0 + s * 1_000,
        partition,
        value: { ts: T0 + s * 1_000, partition },
      });
    }
  }
  // A silent partition stays open: an ended one would release its watermark.
  for (let partition = 0; partition < 4; partition++) {
    steps.push({ at: T0 + 900_000, partition, end: true });
  }
  const clock = new ManualClock(T0);
  const graph = clicksGraph(steps, 4, clock);
  const runtime = new LocalRuntime(graph, { clock });
  const handle = new LocalJobHandle({ runtime, graph, clock });
  for (let t = T0; t <= T0 + 35_000; t += 100) {
    clock.set(t);
    runtime.runUntilIdle();
    if ((t - T0) % 500 === 0) handle.sample();
  }
  return { handle, clock };
}

function culpritOf(html: string): RegExpExecArray {
  const line =
    /<p id="culprit" data-testid="culprit" data-cause="([^"]+)">([^<]*)<\/p>/
      .exec(html);
  assert.ok(line, "the page has a culprit line");
  return line;
}

Deno.test("The page says first that a silent partition holds event time, naming the partition, its source subtask and the fix", async () => {
  // Partition 3, read by source subtask 1 with partition 1, sends nothing.
  const { handle, clock } = job([0, 1, 2]);
  const html = await dashboardPage(
    new Map([["clicks", handle]]),
    undefined,
    clock.now(),
  );
  const [, cause, text] = culpritOf(html);
  assert.equal(cause, "silent-partition");
  assert.equal(
    text,
    "event time is held by partition scripted-3 of clicks (subtask 1): silent for 35.000 s; withIdleness would release it",
  );
  // Before the health panel, with the evidence and the fix in full.
  assert.ok(html.indexOf('data-testid="culprit"') < html.indexOf("Health"));
  assert.match(html, /<em>Fix:<\/em> add \.withIdleness\(30_000\)/);
  // Each source subtask shows the partitions it reads; the one holding
  // the source's watermark back is highlighted.
  assert.match(
    html,
    /data-subtask="clicks\/source-0\/1" class="lowest" data-lowest="true" data-partitions="scripted-1, scripted-3"><td>1<small data-testid="partitions">reads scripted-1, scripted-3<\/small>/,
  );
  // Under it, each partition with its status and watermark; the silent
  // one, holding the subtask back, is highlighted.
  assert.match(
    html,
    /<li data-testid="partition" data-partition="scripted-1" data-status="active" data-value="1700000031999">scripted-1: active, 2023-11-14T22:13:51.999Z<small>1700000031999<\/small><\/li>/,
  );
  assert.match(
    html,
    /<li data-testid="partition" data-partition="scripted-3" data-status="active" data-value="-Infinity" class="lowest" data-lowest="true">scripted-3: active, <span class="none">none yet<\/span><\/li>/,
  );
});

Deno.test("Without the partitions' states (a KV runtime) the culprit line names the source subtask and the partitions it reads", () => {
  const { handle, clock } = job([0, 1, 2]);
  const line = culprit(
    jobHealth(handle, clock.now()),
    handle.status(),
    new Map(handle.graph.vertices.map((v) => [v.id, v.name])),
    (id) => handle.sourcePartitions(id),
    stalledFor(handle.history(), clock.now()),
  );
  assert.equal(
    line.text,
    "event time is held by subtask 1 of clicks (partitions scripted-1, scripted-3): one of its partitions is silent (its watermark has stood still for 35.000 s); withIdleness would release it",
  );
});

Deno.test("holdingPartition() is the active partition with the lowest watermark", () => {
  assert.equal(holdingPartition(undefined), null);
  assert.equal(
    holdingPartition([{ name: "a", watermark: 5, status: "idle" }]),
    null,
  );
  assert.equal(
    holdingPartition([
      { name: "a", watermark: 1, status: "idle" },
      { name: "b", watermark: 9, status: "active" },
      { name: "c", watermark: 4, status: "active" },
      { name: "d", watermark: Infinity, status: "finished" },
    ])?.name,
    "c",
  );
});

Deno.test("The page says that event time is advancing when nothing holds it, and highlights the lowest subtask", async () => {
  const { handle, clock } = job([0, 1, 2, 3]);
  const html = await dashboardPage(
    new Map([["clicks", handle]]),
    undefined,
    clock.now(),
  );
  const [, cause, text] = culpritOf(html);
  assert.equal(cause, "none");
  assert.match(
    text,
    /^event time is advancing \(lowest watermark: subtask \d of clicks, \d\.\d{3} s behind\)$/,
  );
  // Every partition sends one record a second, so both source subtasks
  // stand at the same watermark and none is highlighted.
  assert.doesNotMatch(html, /data-lowest/);
});

Deno.test("stalledFor() reads how long a watermark stood still from the samples", () => {
  const sample = (at: number, wm: number) => ({
    at,
    subtasks: { a: { outputWatermark: wm } },
  });
  const history = [sample(0, 1), sample(1_000, 2), sample(2_000, 2)];
  const stalled = stalledFor(history, 5_000);
  assert.equal(stalled("a"), 4_000);
  assert.equal(stalled("b"), null);
});
