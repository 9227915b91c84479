import assert from "node:assert/strict";
import { Hono } from "hono";
import { dashboardRoutes, timelineRoute } from "../../src/http/dashboard.ts";
import { onError } from "../../src/http/errors.ts";
import type { ServiceOptions } from "../../src/http/service.ts";
import type {
  CheckpointRecord,
  JobHandle,
  WatermarkSample,
} from "../../src/observe/job_handle.ts";
import type { SubtaskStatus } from "../../src/actors/actor_runtime.ts";
import { ManualClock } from "../../src/time/clock.ts";
import { DeadLetterLog } from "../../src/actors/dead_letter_log.ts";
import { MemoryStorage } from "../../src/actors/local/memory_storage.ts";
import type { DeadLetter } from "../../src/runtime/dead_letter.ts";
import { clicksHandle } from "../_support/clicks_handle.ts";

const T0 = 1_700_000_000_000;

function status(
  operator: string,
  subtask: number,
  outputWatermark: number,
  gauges: Record<string, number> = {},
): SubtaskStatus {
  return {
    id: `clicks/${operator}/${subtask}`,
    operator,
    subtask,
    inputWatermark: outputWatermark,
    outputWatermark,
    idle: subtask === 1,
    recordsIn: 10 + subtask,
    recordsOut: 20 + subtask,
    mailboxDepth: 3,
    watermarkLagMs: T0 + 5_000 - outputWatermark,
    paused: false,
    gauges,
  };
}

/** A hand-written job handle with fixed answers. */
function fakeJob(
  name: string,
  statuses: SubtaskStatus[],
  checkpoints: CheckpointRecord[] = [],
): JobHandle {
  const history: WatermarkSample[] = [0, 1, 2].map((i) => ({
    at: T0 + i * 1_000,
    subtasks: Object.fromEntries(
      statuses.map((s) => [s.id, {
        inputWatermark: i === 0 ? -Infinity : s.inputWatermark - 1_000 * i,
        outputWatermark: i === 0 ? -Infinity : s.outputWatermark - 1_000 * i,
        idle: s.idle,
      }]),
    ),
  }));
  return {
    name,
    graph: {
      jobName: name,
      vertices: [],
      edges: [],
      maxParallelism: 128,
      autoWatermarkIntervalMs: 200,
    },
    status: () => statuses,
    history: () => history,
    checkpoints: () => Promise.resolve(checkpoints),
    triggerCheckpoint: () => null,
    inputChannels: () => [],
  };
}

function app(jobs: JobHandle[]): Hono {
  const options: ServiceOptions = {
    jobs: new Map(jobs.map((job) => [job.name, job])),
    streams: new Map(),
    clock: new ManualClock(T0 + 5_000),
  };
  // As the service's app mounts them.
  const app = new Hono();
  app.route("/", dashboardRoutes(options));
  app.route("/", timelineRoute(options));
  app.onError(onError);
  return app;
}

const clicks = fakeJob("clicks", [
  status("source", 0, T0 - 2_000),
  status("source", 1, -Infinity),
  status("window", 0, T0 - 3_000, { numLateRecordsDropped: 7 }),
], [
  { id: 1, createdAt: T0, durationMs: 12, sizeBytes: 2_048 },
  { id: 2, createdAt: T0 + 1_000 },
]);
const other = fakeJob("other <b>&", [status("map", 0, T0)]);

Deno.test("GET /dashboard.js and /dashboard.css serve the page's static files with their types", async () => {
  const script = await app([clicks]).request("/dashboard.js");
  assert.equal(script.status, 200);
  assert.equal(
    script.headers.get("Content-Type"),
    "text/javascript; charset=utf-8",
  );
  assert.match(await script.text(), /function drawSubtasks\(/);
  const style = await app([clicks]).request("/dashboard.css");
  assert.equal(style.status, 200);
  assert.equal(style.headers.get("Content-Type"), "text/css; charset=utf-8");
  assert.match(await style.text(), /\.dead-letters td/);
});

Deno.test("GET / serves a page with the first job's subtasks, timeline and checkpoints, loading nothing from elsewhere", async () => {
  const response = await app([clicks, other]).request("/");
  assert.equal(response.status, 200);
  assert.match(response.headers.get("Content-Type")!, /^text\/html/);
  const html = await response.text();
  assert.match(html, /^<!doctype html>/);
  // Its script and styles come from this service; nothing from elsewhere.
  assert.doesNotMatch(html, /https?:\/\/|<style|<script>/);
  assert.match(html, /<link rel="stylesheet" href="\/dashboard.css">/);
  assert.match(html, /<script src="\/dashboard.js"><\/script>/);
  // Both jobs listed, the first shown.
  assert.match(
    html,
    /<a href="\/\?job=clicks" aria-current="page">clicks<\/a>/,
  );
  assert.match(html, /data-job="clicks"/);
  // One table per operator, one row per subtask.
  assert.equal(html.match(/data-testid="operator-table"/g)?.length, 2);
  assert.equal(html.match(/data-testid="subtask-row"/g)?.length, 3);
  assert.match(html, /data-subtask="clicks\/window\/0"/);
  assert.equal(html.match(/data-testid="output-watermark"/g)?.length, 3);
  assert.equal(html.match(/data-testid="input-watermark"/g)?.length, 3);
  // Watermarks as ISO time and epoch milliseconds; none yet as words.
  assert.match(
    html,
    /data-testid="output-watermark" data-value="1699999998000">2023-11-14T22:13:18\.000Z<small>1699999998000<\/small>/,
  );
  assert.match(
    html,
    /data-testid="output-watermark" data-value="-Infinity"><span class="none">none yet<\/span>/,
  );
  assert.match(html, /<td data-testid="subtask-status">idle<\/td>/);
  assert.match(html, /<td data-testid="lag">7\.000 s<\/td>/);
  assert.match(html, /<td class="n">7<\/td>/, "late records of the window");
  // The timeline image and the checkpoint history, newest first.
  assert.match(
    html,
    /<img id="timeline" data-testid="timeline" src="\/jobs\/clicks\/timeline\.svg"/,
  );
  const rows = [
    ...html.matchAll(/data-testid="checkpoint-row"><td class="n">(\d+)/g),
  ]
    .map((m) => m[1]);
  assert.deepEqual(rows, ["2", "1"]);
  assert.match(html, /2\.0 KiB/);
});

Deno.test("GET /?job= shows the named job and escapes its name", async () => {
  const service = app([clicks, other]);
  const response = await service.request(
    `/?job=${encodeURIComponent("other <b>&")}`,
  );
  assert.equal(response.status, 200);
  const html = await response.text();
  assert.doesNotMatch(html, /<b>&/);
  assert.match(html, /data-job="other &#60;b&#62;&#38;"/);
  assert.match(
    html,
    /src="\/jobs\/other%20%3Cb%3E%26\/timeline\.svg"/,
  );
  assert.equal(html.match(/data-testid="subtask-row"/g)?.length, 1);
  // The image URL the page uses finds the job.
  const svg = await service.request("/jobs/other%20%3Cb%3E%26/timeline.svg");
  assert.equal(svg.status, 200);
  assert.match(await svg.text(), /data-subtask="clicks\/map\/0"/);
});

Deno.test("GET /?job= answers 404 with the job list for an unknown job", async () => {
  const response = await app([clicks]).request("/?job=nope");
  assert.equal(response.status, 404);
  const html = await response.text();
  assert.match(html, /data-testid="error">No job named &#8220;nope&#8221;/);
  assert.match(html, /href="\/\?job=clicks"/);
});

Deno.test("GET / says so when no job is running", async () => {
  const response = await app([]).request("/");
  assert.equal(response.status, 200);
  assert.match(await response.text(), /data-testid="no-jobs"/);
});

Deno.test("GET / shows that checkpoints are unavailable when listing them fails", async () => {
  const broken: JobHandle = {
    ...clicks,
    checkpoints: () => Promise.reject(new Error("KV is closed")),
  };
  const html = await (await app([broken]).request("/")).text();
  assert.match(html, /Checkpoints are unavailable/);
  assert.doesNotMatch(html, /KV is closed/);
});

/** The `i`th letter of map/0, set aside at `T0 + i` s. */
function letter(i: number, overrides: Partial<DeadLetter> = {}): DeadLetter {
  return {
    id: `map/0/${i}`,
    operator: "map",
    subtask: 0,
    value: { secret: `record ${i}` },
    timestamp: T0,
    error: { name: "TypeError", message: `cannot read 'page' of record ${i}` },
    position: `channel 1, record ${i}`,
    reason: "dead-letter",
    at: T0 + i * 1_000,
    ...overrides,
  };
}

/** `clicks` with a dead-letter log holding `letters`. */
async function withLetters(letters: DeadLetter[]): Promise<JobHandle> {
  const log = new DeadLetterLog(new MemoryStorage());
  await log.append(letters);
  return { ...clicks, deadLetters: () => log };
}

Deno.test("GET / shows the dead letters: the count, the 5 most recent newest first, and a link to them as JSON", async () => {
  const letters = [0, 1, 2, 3, 4, 5].map((i) => letter(i));
  letters[5] = letter(5, {
    reason: "quarantined",
    error: { name: "Error", message: "<script>alert(1)</script>" },
  });
  const html = await (await app([await withLetters(letters)]).request("/"))
    .text();
  assert.match(
    html,
    /<span id="dead-letter-count" class="badge bad" data-testid="dead-letter-count" data-count="6">6<\/span>/,
  );
  assert.match(
    html,
    /<a href="\/jobs\/clicks\/dead-letters" data-testid="dead-letter-link">/,
  );
  assert.match(html, /The 5 most recent of 6, newest first\./);
  const rows = [
    ...html.matchAll(
      /<tr data-testid="dead-letter-row" data-reason="([^"]+)">(.*?)<\/tr>/g,
    ),
  ];
  assert.deepEqual(rows.map((m) => m[1]), [
    "quarantined",
    ...Array(4).fill("dead-letter"),
  ]);
  assert.equal(
    rows[1][2],
    "<td>2023-11-14T22:13:24.000Z</td><td>map<small>subtask 0</small></td>" +
      "<td>channel 1, record 4</td><td>dead-letter</td>" +
      "<td><b>TypeError</b>: cannot read &#39;page&#39; of record 4</td>",
  );
  // Escaped, and the records themselves are not on the page.
  assert.match(html, /&#60;script&#62;alert\(1\)&#60;\/script&#62;/);
  assert.doesNotMatch(html, /secret|<script>alert/);
  // The page's script redraws the panel from each poll of /jobs/:job.
  const script = await (await app([clicks]).request("/dashboard.js")).text();
  assert.match(script, /drawDeadLetters\(body\)/);
});

Deno.test("GET / shows the dead letters as none when the log is empty, and as unavailable without a log", async () => {
  const empty = await (await app([await withLetters([])]).request("/")).text();
  assert.match(
    empty,
    /class="badge ok" data-testid="dead-letter-count" data-count="0">none</,
  );
  assert.doesNotMatch(empty, /data-testid="dead-letter-row"/);
  const without = await (await app([clicks]).request("/")).text();
  assert.match(
    without,
    /data-testid="dead-letter-count" data-count="">unavailable</,
  );
});

Deno.test("GET /jobs/:job/timeline.svg draws one polyline with points per subtask", async () => {
  const response = await app([clicks]).request("/jobs/clicks/timeline.svg");
  assert.equal(response.status, 200);
  assert.equal(
    response.headers.get("Content-Type"),
    "image/svg+xml; charset=utf-8",
  );
  const svg = await response.text();
  assert.match(svg, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  const lines = [
    ...svg.matchAll(/<polyline [^>]*data-subtask="([^"]*)" points="([^"]+)"/g),
  ];
  // source/1 never has a watermark, so it gets no line.
  assert.deepEqual(lines.map((m) => m[1]), [
    "clicks/source/0",
    "clicks/window/0",
  ]);
  for (const [, , points] of lines) {
    assert.match(points, /^\d+(\.\d)?,\d+(\.\d)?( \d+(\.\d)?,\d+(\.\d)?)+$/);
  }
});

Deno.test("GET /jobs/:job/timeline.svg of a running job draws its fired windows and records", async () => {
  const { handle, advance } = clicksHandle();
  for (let t = 0; t <= 25_000; t += 500) {
    advance(t);
    handle.sample();
  }
  const response = await app([handle]).request("/jobs/clicks/timeline.svg");
  const svg = await response.text();
  // The 10 s windows ending at T0 + 10 s and T0 + 20 s.
  assert.equal(svg.match(/<rect class="window" /g)?.length, 2);
  assert.equal(svg.match(/<line class="window-end" /g)?.length, 2);
  assert.ok((svg.match(/<circle class="record" /g)?.length ?? 0) > 10);
});

Deno.test("GET /jobs/:job/timeline.svg answers 404 NOT_FOUND for an unknown job", async () => {
  const response = await app([clicks]).request("/jobs/nope/timeline.svg");
  assert.equal(response.status, 404);
  const body = await response.json();
  assert.equal(body.error.code, "NOT_FOUND");
  assert.match(body.error.message, /'nope'/);
});

Deno.test("GET /jobs/:job/lag.svg draws the lag chart; /jobs/:job/culprit answers the page's first line", async () => {
  const lag = await app([clicks]).request("/jobs/clicks/lag.svg");
  assert.equal(lag.status, 200);
  assert.equal(lag.headers.get("Content-Type"), "image/svg+xml; charset=utf-8");
  const svg = await lag.text();
  assert.equal(svg.match(/<polyline class="lag"/g)?.length, 2);
  // source/1 is idle in every sample: one shaded span.
  assert.match(svg, /<rect class="idle" data-subtask="clicks\/source\/1"/);
  const culprit = await app([clicks]).request("/jobs/clicks/culprit");
  assert.equal(culprit.status, 200);
  const body = await culprit.json();
  assert.equal(body.cause, null);
  assert.match(body.text, /^event time is advancing/);
  const missing = await app([clicks]).request("/jobs/nope/lag.svg");
  assert.equal(missing.status, 404);
});

Deno.test("GET / shows the culprit line first and the lag chart, and loads the live script", async () => {
  const html = await (await app([clicks]).request("/")).text();
  assert.match(
    html,
    /<p id="culprit" data-testid="culprit" data-cause="none">event time is advancing/,
  );
  assert.ok(html.indexOf('data-testid="culprit"') < html.indexOf("Subtasks"));
  assert.match(
    html,
    /<img id="lag-chart" data-testid="lag-chart" src="\/jobs\/clicks\/lag\.svg"/,
  );
  assert.match(html, /<script src="\/dashboard_live.js"><\/script>/);
  const live = await app([clicks]).request("/dashboard_live.js");
  assert.equal(
    live.headers.get("Content-Type"),
    "text/javascript; charset=utf-8",
  );
  assert.match(await live.text(), /new EventSource\(base \+ "\/events"\)/);
});

Deno.test("GET / lists each source subtask's partitions with status and watermark, or says they are not known", async () => {
  const source = { id: "source", name: "clicks", parallelism: 2, source: {} };
  const local: JobHandle & Record<string, unknown> = {
    ...fakeJob("local", [status("source", 0, T0 - 2_000)]),
    sourcePartitions: () => ["p-0", "p-1", "p-2"],
    sourcePartitionStates: () => [
      { name: "p-0", watermark: T0 - 2_000, status: "active" },
      { name: "p-1", watermark: T0, status: "idle" },
      { name: "p-2", watermark: Infinity, status: "finished" },
    ],
  };
  (local.graph.vertices as unknown[]).push(source);
  const html = await (await app([local]).request("/")).text();
  assert.match(
    html,
    /<ul class="partitions" data-testid="partition-states"><li data-testid="partition" data-partition="p-0" data-status="active" data-value="1699999998000">p-0: active, 2023-11-14T22:13:18.000Z<small>1699999998000<\/small><\/li><li data-testid="partition" data-partition="p-1" data-status="idle" data-value="1700000000000">p-1: idle, 2023-11-14T22:13:20.000Z<small>1700000000000<\/small><\/li><li data-testid="partition" data-partition="p-2" data-status="finished" data-value="Infinity">p-2: finished<\/li><\/ul>/,
  );
  // A runtime that cannot know them (the KV runtime's view) says so.
  const kv = fakeJob("kv", [status("source", 0, T0 - 2_000)]);
  (kv.graph.vertices as unknown[]).push(source);
  const unknown = await (await app([kv]).request("/")).text();
  assert.match(
    unknown,
    /<td>0<small data-testid="partition-states">partition statuses not known<\/small><\/td>/,
  );
  assert.doesNotMatch(unknown, /data-testid="partition"/);
});
