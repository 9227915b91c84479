import assert from "node:assert/strict";
import { nextReadSize } from "../../../src/connectors/sources/_kv_log_read_size.ts";

const bounds = { min: 1024, max: 16_384 };
const read = {
  asked: 2048,
  got: 2048,
  starved: false,
  heldAtStart: 1000,
  leftAtLanding: 400,
};

Deno.test("nextReadSize doubles a full read that was waited for, up to max", () => {
  assert.equal(nextReadSize(2048, { ...read, starved: true }, bounds), 4096);
  assert.equal(
    nextReadSize(16_384, { ...read, starved: true }, bounds),
    16_384,
  );
  assert.equal(
    nextReadSize(2048, { ...read, starved: true, got: 10 }, bounds),
    2048,
    "a short read reached the head: no latency to hide",
  );
});

Deno.test("nextReadSize halves a read that landed with most of the buffer unread, down to min", () => {
  assert.equal(
    nextReadSize(4096, { ...read, leftAtLanding: 501 }, bounds),
    2048,
  );
  assert.equal(
    nextReadSize(1024, { ...read, leftAtLanding: 900 }, bounds),
    1024,
  );
  assert.equal(nextReadSize(4096, read, bounds), 4096, "half consumed: kept");
  assert.equal(
    nextReadSize(4096, { ...read, heldAtStart: 0, leftAtLanding: 0 }, bounds),
    4096,
  );
});
