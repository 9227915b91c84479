import assert from "node:assert/strict";
import { renderLagChartSvg } from "../../src/observe/lag_chart.ts";
import type { WatermarkSample } from "../../src/observe/job_handle.ts";

const T0 = 1_700_000_000_000;

/** 40 s, a sample a second: a keeps pace; b stalls from 10 s and is idle from 20 s to 30 s. */
function samples(): WatermarkSample[] {
  return Array.from({ length: 41 }, (_, s) => {
    const at = T0 + s * 1_000;
    return {
      at,
      subtasks: {
        "job/src/0": {
          inputWatermark: at - 2_000,
          outputWatermark: at - 2_000,
          idle: false,
        },
        "job/src/1": {
          inputWatermark: s < 2 ? -Infinity : T0 + Math.min(s, 10) * 1_000,
          outputWatermark: s < 2 ? -Infinity : T0 + Math.min(s, 10) * 1_000,
          idle: s >= 20 && s < 30,
        },
      },
    };
  });
}

Deno.test("renderLagChartSvg() draws one polyline per subtask, sorted by id, skipping samples without a watermark", () => {
  const svg = renderLagChartSvg({ samples: samples().reverse() });
  const lines = [...svg.matchAll(
    /<polyline class="lag" data-subtask="([^"]+)" points="([^"]+)"/g,
  )];
  assert.deepEqual(lines.map((l) => l[1]), ["job/src/0", "job/src/1"]);
  assert.equal(lines[0][2].split(" ").length, 41);
  assert.equal(lines[1][2].split(" ").length, 39);
  // The two lines have different colours.
  const colours = [...svg.matchAll(/class="lag"[^>]* stroke="([^"]+)"/g)]
    .map((m) => m[1]);
  assert.equal(new Set(colours).size, 2);
});

Deno.test("renderLagChartSvg() shades each idle period of a subtask", () => {
  const svg = renderLagChartSvg({ samples: samples() });
  const idle = [...svg.matchAll(
    /<rect class="idle" data-subtask="([^"]+)" x="([\d.]+)" y="[\d.]+" width="([\d.]+)"/g,
  )];
  assert.equal(idle.length, 1);
  assert.equal(idle[0][1], "job/src/1");
  // From the first idle sample (20 s) to the first active one (30 s): a
  // quarter of the 40 s across.
  const plotWidth = 800 - 72 - 200;
  assert.ok(
    Math.abs(Number(idle[0][3]) - plotWidth / 4) < 1,
    `idle width ${idle[0][3]}`,
  );
  // Shading is behind the lines.
  assert.ok(svg.indexOf('class="idle"') < svg.indexOf('class="lag"'));
});

Deno.test("renderLagChartSvg() puts ticks at round steps with clock and duration labels", () => {
  const svg = renderLagChartSvg({ samples: samples() });
  const xs = [...svg.matchAll(/class="x-tick" data-value="(\d+)"/g)].map((m) =>
    Number(m[1])
  );
  assert.ok(xs.length >= 3 && xs.length <= 6, `${xs.length} x ticks`);
  for (const x of xs) assert.equal(x % 10_000, 0, `tick at ${x}`);
  assert.match(svg, />22:13:30</);
  const ys = [...svg.matchAll(/class="y-tick" data-value="(-?\d+)"/g)].map((
    m,
  ) => Number(m[1]));
  assert.ok(ys.length >= 3, `${ys.length} y ticks`);
  for (const y of ys) assert.equal(y % 5_000, 0, `tick at ${y}`);
  assert.match(svg, />0<\/text>/);
  assert.match(svg, />10 s<\/text>/);
});

Deno.test("renderLagChartSvg() says so when there is no watermark yet, and rejects a size out of range", () => {
  const svg = renderLagChartSvg({ samples: [] });
  assert.match(svg, /No watermark yet/);
  assert.doesNotMatch(svg, /<polyline/);
  assert.throws(
    () => renderLagChartSvg({ samples: [], width: 10 }),
    RangeError,
  );
});

Deno.test("renderLagChartSvg() puts the legend under the plot on a narrow image, growing its height", () => {
  const wide = renderLagChartSvg({ samples: samples() });
  const narrow = renderLagChartSvg({ samples: samples(), width: 390 });
  assert.match(wide, /^<svg [^>]*width="800" height="300"/);
  assert.match(narrow, /^<svg [^>]*width="390" height="332"/);
  // The legend starts at the plot's left edge, under the axis title.
  assert.match(narrow, /<g class="legend">\n<line x1="72" x2="92" y1="306"/);
});
