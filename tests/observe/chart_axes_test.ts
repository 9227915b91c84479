import assert from "node:assert/strict";
import {
  clockLabel,
  colorOf,
  durationLabel,
  PALETTE,
  ticksOf,
  timeStep,
} from "../../src/observe/chart_axes.ts";

const T0 = 1_700_000_000_000;

Deno.test("timeStep() picks the round clock step giving at most six ticks", () => {
  assert.equal(timeStep([0, 5_000]), 1_000);
  assert.equal(timeStep([0, 25_000]), 5_000);
  assert.equal(timeStep([0, 50_000]), 10_000);
  assert.equal(timeStep([0, 100_000]), 30_000);
  assert.equal(timeStep([0, 300_000]), 60_000);
  assert.equal(timeStep([0, 1_500_000]), 300_000);
  assert.equal(timeStep([0, 400]), 100);
});

Deno.test("ticksOf() falls on round UTC clock times, labelled HH:MM:SS", () => {
  const step = timeStep([T0 + 123, T0 + 47_000]);
  const ticks = ticksOf([T0 + 123, T0 + 47_000], step);
  assert.deepEqual(ticks.map((t) => clockLabel(t, step)), [
    "22:13:30",
    "22:13:40",
    "22:13:50",
    "22:14:00",
  ]);
  assert.equal(clockLabel(T0 + 250, 50), "22:13:20.250");
  assert.equal(clockLabel(T0 - 20_000, 60_000), "22:13");
});

Deno.test("durationLabel() reads as a person would say it", () => {
  assert.equal(durationLabel(0), "0");
  assert.equal(durationLabel(500), "500 ms");
  assert.equal(durationLabel(5_000), "5 s");
  assert.equal(durationLabel(90_000), "1 min 30 s");
  assert.equal(durationLabel(7_200_000), "2 h");
});

Deno.test("colorOf() gives distinct colours for the first eight lines", () => {
  const colours = Array.from({ length: PALETTE.length }, (_, i) => colorOf(i));
  assert.equal(new Set(colours).size, PALETTE.length);
});
