import assert from "node:assert/strict";
import { main } from "../../examples/durable.ts";

Deno.test("main() of durable refuses a flag it does not take, naming the example (run as deno task durable or deno task dev durable)", async () => {
  await assert.rejects(() => main(["--store", "x"]), {
    name: "RangeError",
    message:
      "Cannot start as '--store' is not a flag of the durable example: see --help",
  });
});

Deno.test("main() of durable refuses --restore without a value, naming the flag", async () => {
  await assert.rejects(() => main(["--restore"]), {
    name: "RangeError",
    message: "Cannot start as '--restore' needs a value (latest|none|<id>)",
  });
});
