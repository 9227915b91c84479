import assert from "node:assert/strict";
import { runtimeFlag, serveFlags } from "../../src/cli/serve.ts";

const PLACE = { onDeploy: false, port: undefined };

Deno.test("runtimeFlag() says the local runtime keeps its state in memory and its checkpoints in the store", () => {
  const flag = runtimeFlag(PLACE);
  assert.equal(flag.default, "local");
  assert.equal(
    flag.about,
    "the runtime: local (one process; state in memory, checkpoints in the store) or kv (actors' state in the store)",
  );
  assert.equal(runtimeFlag({ onDeploy: true, port: undefined }).default, "kv");
});

Deno.test("serveFlags() says --restore latest is the latest checkpoint on the local runtime", () => {
  const restore = serveFlags(PLACE).find((f) => f.name === "restore")!;
  assert.equal(restore.default, "latest");
  assert.equal(
    restore.about,
    "where the job restarts from: its latest checkpoint, none (start over) or checkpoint <id>",
  );
});
