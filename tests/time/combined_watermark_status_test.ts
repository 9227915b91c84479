import assert from "node:assert/strict";
import {
  CombinedWatermarkStatus,
  IndexedCombinedWatermarkStatus,
} from "../../src/time/combined_watermark_status.ts";
import { PartialWatermark } from "../../src/time/partial_watermark.ts";

function combine(
  count: number,
  policy?: "min" | "max",
): [CombinedWatermarkStatus, PartialWatermark[]] {
  const status = new CombinedWatermarkStatus(policy);
  const partials = Array.from({ length: count }, () => new PartialWatermark());
  for (const partial of partials) status.add(partial);
  return [status, partials];
}

// PartialWatermark

Deno.test("PartialWatermark starts at -Infinity and active", () => {
  const partial = new PartialWatermark();
  assert.equal(partial.getWatermark(), -Infinity);
  assert.equal(partial.isIdle(), false);
});

Deno.test("PartialWatermark.setWatermark() reports whether the watermark advanced and never regresses", () => {
  const partial = new PartialWatermark();
  assert.equal(partial.setWatermark(5), true);
  assert.equal(partial.setWatermark(5), false);
  assert.equal(partial.setWatermark(3), false);
  assert.equal(partial.getWatermark(), 5);
  assert.equal(partial.setWatermark(Infinity), true);
  assert.equal(partial.getWatermark(), Infinity);
});

Deno.test("PartialWatermark.setWatermark() marks the partial active even when it does not advance", () => {
  const partial = new PartialWatermark();
  partial.setWatermark(5);
  partial.setIdle(true);
  assert.equal(partial.setWatermark(1), false);
  assert.equal(partial.isIdle(), false);
});

Deno.test("PartialWatermark.setWatermark() drops NaN without corrupting the watermark", () => {
  const partial = new PartialWatermark();
  partial.setWatermark(5);
  assert.equal(partial.setWatermark(NaN), false);
  assert.equal(partial.getWatermark(), 5);
});

Deno.test("PartialWatermark.setIdle() changes only the idle flag", () => {
  const partial = new PartialWatermark();
  partial.setWatermark(7);
  partial.setIdle(true);
  assert.equal(partial.isIdle(), true);
  assert.equal(partial.getWatermark(), 7);
  partial.setIdle(false);
  assert.equal(partial.isIdle(), false);
  assert.equal(partial.getWatermark(), 7);
});

// CombinedWatermarkStatus

Deno.test("CombinedWatermarkStatus starts at -Infinity and not idle", () => {
  const status = new CombinedWatermarkStatus();
  assert.equal(status.getCombinedWatermark(), -Infinity);
  assert.equal(status.isIdle(), false);
});

Deno.test("CombinedWatermarkStatus.updateCombinedWatermark() with no partials changes nothing before event time advanced", () => {
  const status = new CombinedWatermarkStatus();
  assert.equal(status.updateCombinedWatermark(), false);
  assert.equal(status.getCombinedWatermark(), -Infinity);
  assert.equal(status.isIdle(), false);
});

Deno.test("CombinedWatermarkStatus.updateCombinedWatermark() goes idle when the last partial is removed after the watermark advanced (FLINK-39586)", () => {
  const [status, [partial]] = combine(1);
  partial.setWatermark(1);
  assert.equal(status.updateCombinedWatermark(), true);
  assert.equal(status.remove(partial), true);
  assert.equal(status.isIdle(), false);
  assert.equal(status.updateCombinedWatermark(), false);
  assert.equal(status.isIdle(), true);
  assert.equal(status.getCombinedWatermark(), 1);
});

Deno.test("CombinedWatermarkStatus.updateCombinedWatermark() keeps the idle flag with no partials while the watermark is -Infinity (FLINK-39586)", () => {
  const [status, [partial]] = combine(1);
  partial.setIdle(true);
  status.updateCombinedWatermark();
  assert.equal(status.isIdle(), true);
  status.remove(partial);
  assert.equal(status.updateCombinedWatermark(), false);
  assert.equal(status.isIdle(), true);
});

Deno.test("CombinedWatermarkStatus.updateCombinedWatermark() takes the minimum of the active partials", () => {
  const [status, [a, b, c]] = combine(3);
  a.setWatermark(2);
  b.setWatermark(5);
  assert.equal(status.updateCombinedWatermark(), false);
  assert.equal(status.getCombinedWatermark(), -Infinity);
  c.setIdle(true);
  assert.equal(status.updateCombinedWatermark(), true);
  assert.equal(status.getCombinedWatermark(), 2);
  assert.equal(status.isIdle(), false);
});

Deno.test("CombinedWatermarkStatus.updateCombinedWatermark() is idle only when all partials are idle", () => {
  const [status, [a, b]] = combine(2);
  a.setIdle(true);
  status.updateCombinedWatermark();
  assert.equal(status.isIdle(), false);
  b.setIdle(true);
  status.updateCombinedWatermark();
  assert.equal(status.isIdle(), true);
  a.setWatermark(-Infinity);
  status.updateCombinedWatermark();
  assert.equal(status.isIdle(), false);
});

Deno.test("CombinedWatermarkStatus.updateCombinedWatermark() flushes the maximum when all partials go idle, in either order (FLINK-38454)", () => {
  for (const order of [[0, 1], [1, 0]]) {
    const [status, partials] = combine(2);
    partials[0].setWatermark(5);
    partials[1].setWatermark(2);
    status.updateCombinedWatermark();
    assert.equal(status.getCombinedWatermark(), 2);
    for (const index of order) {
      partials[index].setIdle(true);
      status.updateCombinedWatermark();
    }
    assert.equal(status.getCombinedWatermark(), 5);
    assert.equal(status.isIdle(), true);
  }
});

Deno.test("CombinedWatermarkStatus.updateCombinedWatermark() reports the idle change separately from the return value", () => {
  const [status, [a]] = combine(1);
  a.setIdle(true);
  assert.equal(status.updateCombinedWatermark(), false);
  assert.equal(status.isIdle(), true);
});

Deno.test("CombinedWatermarkStatus.updateCombinedWatermark() never lowers the combined watermark", () => {
  const [status, [a, b]] = combine(2);
  a.setWatermark(5);
  b.setWatermark(2);
  a.setIdle(true);
  b.setIdle(true);
  status.updateCombinedWatermark();
  assert.equal(status.getCombinedWatermark(), 5);
  b.setWatermark(3);
  assert.equal(status.updateCombinedWatermark(), false);
  assert.equal(status.getCombinedWatermark(), 5);
  assert.equal(status.isIdle(), false);
});

Deno.test("CombinedWatermarkStatus.remove() takes effect only at the next update", () => {
  const [status, [low, high]] = combine(2);
  low.setWatermark(1);
  high.setWatermark(10);
  status.updateCombinedWatermark();
  assert.equal(status.remove(low), true);
  assert.equal(status.remove(low), false);
  assert.equal(status.getCombinedWatermark(), 1);
  assert.equal(status.updateCombinedWatermark(), true);
  assert.equal(status.getCombinedWatermark(), 10);
});

Deno.test("CombinedWatermarkStatus.add() ignores a partial added twice", () => {
  const status = new CombinedWatermarkStatus();
  const partial = new PartialWatermark();
  status.add(partial);
  status.add(partial);
  assert.equal(status.remove(partial), true);
  assert.equal(status.remove(partial), false);
});

Deno.test("CombinedWatermarkStatus with the max policy follows the fastest active partial (Spark multipleWatermarkPolicy)", () => {
  const [status, [a, b, c]] = combine(3, "max");
  a.setWatermark(2);
  b.setWatermark(5);
  c.setWatermark(9);
  c.setIdle(true);
  assert.equal(status.updateCombinedWatermark(), true);
  assert.equal(status.getCombinedWatermark(), 5);
  b.setIdle(true);
  assert.equal(status.updateCombinedWatermark(), false);
  assert.equal(status.getCombinedWatermark(), 5);
  a.setIdle(true);
  assert.equal(status.updateCombinedWatermark(), true);
  assert.equal(status.getCombinedWatermark(), 9);
  assert.equal(status.isIdle(), true);
});

Deno.test("CombinedWatermarkStatus rejects an unknown policy", () => {
  assert.throws(
    // @ts-expect-error: testing a bad value
    () => new CombinedWatermarkStatus("avg"),
    { name: "RangeError", message: /'policy'/ },
  );
  assert.throws(
    // @ts-expect-error: testing a bad type
    () => new CombinedWatermarkStatus(1),
    { name: "TypeError", message: /'policy'/ },
  );
});

// IndexedCombinedWatermarkStatus

Deno.test("IndexedCombinedWatermarkStatus.forInputsCount() starts every input at -Infinity and active", () => {
  const inputs = IndexedCombinedWatermarkStatus.forInputsCount(2);
  assert.equal(inputs.getCombinedWatermark(), -Infinity);
  assert.equal(inputs.isIdle(), false);
  assert.ok(inputs instanceof IndexedCombinedWatermarkStatus);
});

Deno.test("IndexedCombinedWatermarkStatus.updateWatermark() returns true only when the minimum of both inputs advances", () => {
  const inputs = IndexedCombinedWatermarkStatus.forInputsCount(2);
  assert.equal(inputs.updateWatermark(0, 100), false);
  assert.equal(inputs.getCombinedWatermark(), -Infinity);
  assert.equal(inputs.updateWatermark(1, 40), true);
  assert.equal(inputs.getCombinedWatermark(), 40);
  assert.equal(inputs.updateWatermark(1, 40), false);
  assert.equal(inputs.updateWatermark(1, 30), false);
  assert.equal(inputs.updateWatermark(1, 120), true);
  assert.equal(inputs.getCombinedWatermark(), 100);
});

Deno.test("IndexedCombinedWatermarkStatus.updateStatus() lets the other input advance and is idle only when all are", () => {
  const inputs = IndexedCombinedWatermarkStatus.forInputsCount(2);
  inputs.updateWatermark(0, 100);
  inputs.updateWatermark(1, 40);
  assert.equal(inputs.updateStatus(1, true), true);
  assert.equal(inputs.getCombinedWatermark(), 100);
  assert.equal(inputs.isIdle(), false);
  assert.equal(inputs.updateStatus(0, true), false);
  assert.equal(inputs.isIdle(), true);
  assert.equal(inputs.updateStatus(1, false), false);
  assert.equal(inputs.isIdle(), false);
  assert.equal(inputs.getCombinedWatermark(), 100);
});

Deno.test("IndexedCombinedWatermarkStatus flushes the maximum when all inputs go idle (FLINK-38454)", () => {
  const inputs = IndexedCombinedWatermarkStatus.forInputsCount(2);
  inputs.updateWatermark(0, 5);
  inputs.updateWatermark(1, 2);
  assert.equal(inputs.updateStatus(0, true), false);
  assert.equal(inputs.updateStatus(1, true), true);
  assert.equal(inputs.getCombinedWatermark(), 5);
  assert.equal(inputs.isIdle(), true);
});

Deno.test("IndexedCombinedWatermarkStatus with the max policy follows the fastest input (Spark multipleWatermarkPolicy)", () => {
  const inputs = IndexedCombinedWatermarkStatus.forInputsCount(2, "max");
  assert.equal(inputs.updateWatermark(0, 100), true);
  assert.equal(inputs.getCombinedWatermark(), 100);
  assert.equal(inputs.updateWatermark(1, 40), false);
  assert.equal(inputs.getCombinedWatermark(), 100);
});

Deno.test("IndexedCombinedWatermarkStatus.forInputsCount() rejects a count below 1", () => {
  assert.throws(() => IndexedCombinedWatermarkStatus.forInputsCount(0), {
    name: "RangeError",
    message: /'inputsCount'/,
  });
  assert.throws(() => new IndexedCombinedWatermarkStatus(1.5), {
    name: "RangeError",
    message: /'inputsCount'/,
  });
  assert.throws(
    // @ts-expect-error: testing a bad value
    () => IndexedCombinedWatermarkStatus.forInputsCount(2, "avg"),
    { name: "RangeError", message: /'policy'/ },
  );
});

Deno.test("IndexedCombinedWatermarkStatus rejects an index out of range, a bad watermark and a non-boolean idle flag", () => {
  const inputs = IndexedCombinedWatermarkStatus.forInputsCount(2);
  assert.throws(() => inputs.updateWatermark(2, 1), {
    name: "RangeError",
    message: /'index'/,
  });
  assert.throws(() => inputs.updateStatus(-1, true), {
    name: "RangeError",
    message: /'index'/,
  });
  assert.throws(() => inputs.updateWatermark(0, NaN), {
    name: "RangeError",
    message: /'watermark'/,
  });
  assert.throws(
    // @ts-expect-error: testing a bad type
    () => inputs.updateStatus(0, "idle"),
    { name: "TypeError", message: /'idle'/ },
  );
});
