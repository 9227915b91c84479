import assert from "node:assert/strict";
import { main } from "../../examples/demo.ts";

Deno.test("main() of the demo refuses a flag it does not take, naming the example (run as deno task demo or deno task dev demo)", async () => {
  await assert.rejects(() => main(["--port", "1"]), {
    name: "RangeError",
    message:
      "Cannot start as '--port' is not a flag of the demo example: see --help",
  });
});
