import assert from "node:assert/strict";
import { kvCommand, kvFlags } from "../../src/cli/kv.ts";
import { supervisorCommand } from "../../src/cli/supervisor.ts";

const PLACE = { onDeploy: false, port: undefined };
const KV_RESTORE =
  "latest resumes from the actors' committed state (not the latest checkpoint); none starts over; <id> from checkpoint <id>";

Deno.test("kvFlags() says --restore latest resumes from the actors' committed state, not the latest checkpoint", () => {
  const restore = kvFlags(PLACE).find((f) => f.name === "restore")!;
  assert.equal(restore.default, "latest");
  assert.equal(restore.about, KV_RESTORE);
  for (const command of [kvCommand(PLACE), supervisorCommand(PLACE)]) {
    const flag = command.flags.find((f) => f.name === "restore")!;
    assert.equal(flag.about, KV_RESTORE, command.name);
  }
});
