import assert from "node:assert/strict";
import { settings } from "../../bench/nexmark.ts";

Deno.test("deno task bench reads its flags, with defaults", () => {
  const defaults = settings([]);
  assert.equal(defaults.events, 1_000_000);
  assert.equal(defaults.rate, 1_000);
  assert.equal(defaults.parallelism, 1);
  assert.equal(defaults.queries.length, 11);
  assert.equal(defaults.checkpoints, true);
  assert.equal(defaults.watermarkIntervalMs, 200);
  const chosen = settings([
    "--events",
    "5000",
    "--query",
    "q5,q7",
    "--query",
    "q0",
    "--parallelism",
    "2",
    "--no-checkpoints",
    "--watermark-interval-ms",
    "10",
    "--json",
  ]);
  assert.deepEqual(chosen.queries.map((q) => q.name), ["q5", "q7", "q0"]);
  assert.equal(chosen.events, 5_000);
  assert.equal(chosen.parallelism, 2);
  assert.equal(chosen.checkpoints, false);
  assert.equal(chosen.watermarkIntervalMs, 10);
  assert.equal(chosen.json, true);
});

Deno.test("deno task bench names the flag and the value it refuses", () => {
  assert.throws(() => settings(["--events", "0x10"]), {
    message:
      /'--events' must be an integer from 1 to \d+: current value is "0x10"/,
  });
  assert.throws(() => settings(["--events", "3", "--parallelism", "5"]), {
    message:
      /'--parallelism' must be an integer from 1 to 3: current value is "5"/,
  });
  assert.throws(() => settings(["--rate", "2000000000"]), {
    message: /'--rate' must be an integer from 1 to 1000000000/,
  });
  assert.throws(() => settings(["--watermark-interval-ms", "0"]), {
    message:
      /'--watermark-interval-ms' must be an integer from 1 to 3600000: current value is "0"/,
  });
  assert.throws(() => settings(["--query", "q6"]), {
    message:
      /'--query' must name a query: current value is "q6"; the queries are q0, q1/,
  });
  assert.throws(() => settings(["--bogus"]), { name: "TypeError" });
});
