import assert from "node:assert/strict";
import { MemoryStorage } from "../../src/actors/mod.ts";
import { StreamEnvironment } from "../../src/api/mod.ts";
import { parseRestore, restoreFlagError } from "../../src/cli/restore_flag.ts";
import { ManualClock } from "../../src/time/mod.ts";

Deno.test("parseRestore() reads latest, none or a checkpoint id, and refuses anything else naming the flag", () => {
  assert.equal(parseRestore("latest"), "latest");
  assert.equal(parseRestore("none"), "none");
  assert.equal(parseRestore("7"), 7);
  for (const value of ["0", "-1", "1.5", "oldest"]) {
    assert.throws(() => parseRestore(value), {
      name: "RangeError",
      message:
        `Cannot start as '--restore' must be latest, none or a checkpoint id: current value is ${value}`,
    });
  }
});

Deno.test("restoreFlagError() says a checkpoint id that names no complete checkpoint is a wrong --restore, keeping the complete ones", async () => {
  const env = new StreamEnvironment({
    jobName: "j",
    clock: new ManualClock(),
    checkpointStorage: new MemoryStorage(),
  });
  const thrown = await env.findCheckpoint(999).then(
    () => assert.fail("no checkpoint 999"),
    (error) => error,
  );
  const error = restoreFlagError(thrown, 999);
  assert.ok(error instanceof RangeError);
  assert.equal(
    error.message,
    "Cannot start as '--restore' must name a complete checkpoint: current value is 999, but it has no manifest (it was never completed, or was deleted); the complete ones are none",
  );
  assert.equal(error.cause, thrown);
  const listed = new RangeError(
    "Cannot load a checkpoint as 'id' must name a complete checkpoint: current value is 999, but it has no manifest; the complete ones are 29, 30, 31",
  );
  assert.equal(
    (restoreFlagError(listed, 999) as Error).message,
    "Cannot start as '--restore' must name a complete checkpoint: current value is 999, but it has no manifest; the complete ones are 29, 30, 31",
  );
});

Deno.test("restoreFlagError() returns any other error as it is", () => {
  const other = new RangeError("Cannot save checkpoint as 'x' must be y");
  assert.equal(restoreFlagError(other, 3), other);
  const missing = new RangeError(
    "Cannot load a checkpoint as 'id' must name a complete checkpoint: current value is 3, but it has no manifest; the complete ones are none",
  );
  assert.equal(restoreFlagError(missing, "latest"), missing);
  assert.equal(restoreFlagError("text", 3), "text");
});
