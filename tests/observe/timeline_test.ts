import assert from "node:assert/strict";
import { renderTimelineSvg } from "../../src/observe/timeline.ts";
import type { WatermarkSample } from "../../src/observe/job_handle.ts";

const T0 = 1_700_000_000_000;

function sample(
  at: number,
  watermarks: Record<string, number>,
): WatermarkSample {
  const subtasks: Record<
    string,
    { inputWatermark: number; outputWatermark: number; idle: boolean }
  > = {};
  for (const [id, wm] of Object.entries(watermarks)) {
    subtasks[id] = { inputWatermark: wm, outputWatermark: wm, idle: false };
  }
  return { at, subtasks };
}

function polylines(svg: string): Map<string, string[]> {
  const lines = new Map<string, string[]>();
  for (
    const m of svg.matchAll(
      /<polyline class="watermark" data-subtask="([^"]*)" points="([^"]*)"/g,
    )
  ) {
    lines.set(m[1], m[2].split(" "));
  }
  return lines;
}

Deno.test("renderTimelineSvg() draws axes and a placeholder when there is nothing to plot", () => {
  const svg = renderTimelineSvg({ samples: [] });
  assert.match(svg, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  assert.match(svg, /<\/svg>$/);
  assert.match(svg, /No watermark yet/);
  assert.doesNotMatch(svg, /<polyline/);
  assert.doesNotMatch(svg, /NaN|Infinity/);
});

Deno.test("renderTimelineSvg() draws one step polyline per subtask, sorted by id", () => {
  const svg = renderTimelineSvg({
    samples: [
      sample(T0, { "job/b/0": T0 - 5_000, "job/a/0": T0 - 9_000 }),
      sample(T0 + 1_000, { "job/b/0": T0 - 4_000, "job/a/0": T0 - 8_000 }),
      sample(T0 + 2_000, { "job/b/0": T0 - 3_000, "job/a/0": T0 - 8_000 }),
    ],
  });
  const lines = polylines(svg);
  assert.deepEqual([...lines.keys()], ["job/a/0", "job/b/0"]);
  // Three samples as a step: first point, then a corner and a point each.
  assert.equal(lines.get("job/b/0")!.length, 5);
  const [x0, y0] = lines.get("job/b/0")![0].split(",").map(Number);
  const [x4, y4] = lines.get("job/b/0")![4].split(",").map(Number);
  assert.ok(x4 > x0, "processing time grows to the right");
  assert.ok(y4 < y0, "event time grows upwards");
  assert.match(svg, /processing time \(UTC, 2023-11-14\)/);
  assert.match(svg, /event time \(UTC, 2023-11-14\)/);
  assert.doesNotMatch(svg, /NaN/);
});

Deno.test("renderTimelineSvg() skips -Infinity samples and leaves out a subtask without any finite one", () => {
  const svg = renderTimelineSvg({
    samples: [
      sample(0, { "job/src/0": -Infinity, "job/sink/0": -Infinity }),
      sample(1_000, { "job/src/0": T0, "job/sink/0": -Infinity }),
      sample(2_000, { "job/src/0": T0 + 1_000, "job/sink/0": Infinity }),
    ],
  });
  const lines = polylines(svg);
  assert.deepEqual([...lines.keys()], ["job/src/0"]);
  assert.equal(lines.get("job/src/0")!.length, 3);
  // Still in the legend, so the reader sees it has no watermark.
  assert.match(svg, /<text [^>]*>job\/sink\/0<\/text>/);
  assert.doesNotMatch(svg, /NaN|Infinity/);
});

Deno.test("renderTimelineSvg() draws a single finite sample as a visible segment", () => {
  const svg = renderTimelineSvg({ samples: [sample(5, { "j/o/0": 10 })] });
  const points = polylines(svg).get("j/o/0")!;
  assert.equal(points.length, 2);
  assert.doesNotMatch(svg, /NaN/);
});

Deno.test("renderTimelineSvg() draws records as circles, fired windows as rectangles and each window end once as a dashed line", () => {
  const svg = renderTimelineSvg({
    samples: [
      sample(0, { "j/w/0": T0 }),
      sample(10_000, { "j/w/0": T0 + 12_000 }),
    ],
    records: [
      { at: 1_000, timestamp: T0 + 1_000 },
      { at: 2_000, timestamp: T0 + 3_000 },
      { at: 3_000, timestamp: -Infinity },
    ],
    windows: [
      { start: T0, end: T0 + 10_000, firedAt: 9_000 },
      { start: T0, end: T0 + 10_000, firedAt: 9_500 },
      { start: T0 + 10_000, end: T0 + 20_000, firedAt: Infinity },
    ],
  });
  assert.equal(svg.match(/<circle class="record"/g)?.length, 2);
  assert.equal(svg.match(/<rect class="window"/g)?.length, 2);
  assert.equal(
    svg.match(/<line class="window-end"[^>]*stroke-dasharray/g)?.length,
    1,
  );
  assert.doesNotMatch(svg, /NaN|Infinity/);
});

Deno.test("renderTimelineSvg() escapes subtask ids in attributes and text", () => {
  const id = `job/<script>alert("x")</script>&'/0`;
  const svg = renderTimelineSvg({
    samples: [sample(0, { [id]: 1 }), sample(1, { [id]: 2 })],
  });
  assert.doesNotMatch(svg, /<script>/);
  assert.doesNotMatch(svg, /"x"/);
  assert.match(
    svg,
    /&#60;script&#62;alert\(&#34;x&#34;\)&#60;\/script&#62;&#38;&#39;/,
  );
});

Deno.test("renderTimelineSvg() returns the same string for the same input, whatever the order of samples and windows", () => {
  const samples = [
    sample(T0, { "j/a/0": T0 - 2_000, "j/b/0": T0 - 1_000 }),
    sample(T0 + 500, { "j/b/0": T0 - 500, "j/a/0": T0 - 1_500 }),
  ];
  const windows = [
    { start: T0 - 2_000, end: T0 - 1_000, firedAt: T0 + 400 },
    { start: T0 - 3_000, end: T0 - 2_000, firedAt: T0 + 100 },
  ];
  const a = renderTimelineSvg({ samples, windows, width: 640, height: 320 });
  const b = renderTimelineSvg({
    samples: [...samples].reverse(),
    windows: [...windows].reverse(),
    width: 640,
    height: 320,
  });
  assert.equal(a, b);
  assert.match(a, /width="640" height="320"/);
});

Deno.test("renderTimelineSvg() rejects a size out of range", () => {
  assert.throws(() => renderTimelineSvg({ samples: [], width: 10 }), {
    name: "RangeError",
    message: /'width'/,
  });
  assert.throws(() => renderTimelineSvg({ samples: [], height: 0.5 }), {
    name: "RangeError",
    message: /'height'/,
  });
});
