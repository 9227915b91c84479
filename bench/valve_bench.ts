// StatusWatermarkValve.inputWatermark() against a hand-written min-of-array
// loop doing the same work. Each iteration feeds BATCH watermarks; divide
// ns/iter by BATCH for the cost of one call.
//
// Patterns, precomputed outside the measured functions:
// - "rotating": channel i % n gets watermark i, so every call advances the
//   slowest channel and moves the output (the valve's worst case: one scan per
//   call under "min").
// - "ties": every channel gets the same watermark per round, so only the last
//   channel of a round moves the output.

import { StatusWatermarkValve } from "../src/time/valve.ts";
import type { WatermarkStatusOutput } from "../src/time/watermark_output.ts";

const BATCH = 1024;

// Written on every emission so the work cannot be optimised away.
const sink = { last: -Infinity };
const output: WatermarkStatusOutput = {
  emitWatermark(watermark: number): void {
    sink.last = watermark;
  },
  emitWatermarkStatus(): void {},
};

interface Pattern {
  channels: Uint32Array;
  offsets: Float64Array;
  /** How far the watermarks move per batch. */
  span: number;
}

function rotating(numChannels: number): Pattern {
  const channels = new Uint32Array(BATCH);
  const offsets = new Float64Array(BATCH);
  for (let i = 0; i < BATCH; i++) {
    channels[i] = i % numChannels;
    offsets[i] = i;
  }
  return { channels, offsets, span: BATCH };
}

function ties(numChannels: number): Pattern {
  const channels = new Uint32Array(BATCH);
  const offsets = new Float64Array(BATCH);
  for (let i = 0; i < BATCH; i++) {
    channels[i] = i % numChannels;
    offsets[i] = Math.floor(i / numChannels);
  }
  return { channels, offsets, span: BATCH / numChannels };
}

/** The baseline: store, rescan the minimum, emit if it advanced. */
function minOfArray(
  numChannels: number,
  { channels, offsets, span }: Pattern,
): () => void {
  const watermarks = new Float64Array(numChannels).fill(-Infinity);
  let last = -Infinity;
  let base = 0;
  return function minOfArrayBatch(): void {
    for (let i = 0; i < BATCH; i++) {
      const channel = channels[i];
      const watermark = base + offsets[i];
      if (!(watermark > watermarks[channel])) continue;
      watermarks[channel] = watermark;
      let min = Infinity;
      for (let c = 0; c < numChannels; c++) {
        if (watermarks[c] < min) min = watermarks[c];
      }
      if (min > last) {
        last = min;
        output.emitWatermark(min);
      }
    }
    base += span;
  };
}

function valve(
  numChannels: number,
  policy: "min" | "max",
  { channels, offsets, span }: Pattern,
): () => void {
  const valve = new StatusWatermarkValve(numChannels, output, { policy });
  let base = 0;
  return function valveBatch(): void {
    for (let i = 0; i < BATCH; i++) {
      valve.inputWatermark(base + offsets[i], channels[i]);
    }
    base += span;
  };
}

for (const numChannels of [4, 64]) {
  for (
    const [name, make] of [["rotating", rotating], ["ties", ties]] as const
  ) {
    const pattern = make(numChannels);
    const group = `${numChannels} channels, ${name}`;
    Deno.bench({
      name: `min-of-array loop (${group})`,
      group,
      baseline: true,
      fn: minOfArray(numChannels, pattern),
    });
    Deno.bench({
      name: `StatusWatermarkValve "min" (${group})`,
      group,
      fn: valve(numChannels, "min", pattern),
    });
    Deno.bench({
      name: `StatusWatermarkValve "max" (${group})`,
      group,
      fn: valve(numChannels, "max", pattern),
    });
  }
}
