// The dashboard's static files, read beside their module and kept.

import assert from "node:assert/strict";
import { dashboardAsset } from "../../../src/observe/dashboard/assets.ts";

Deno.test("dashboardAsset() reads dashboard.js and dashboard.css beside the module", async () => {
  const script = await dashboardAsset("dashboard.js");
  const style = await dashboardAsset("dashboard.css");
  assert.match(script, /function drawSubtasks\(/);
  assert.match(script, /function drawDeadLetters\(/);
  assert.match(style, /\.dead-letters td/);
});

Deno.test("dashboardAsset() reads each file once and keeps its text", () => {
  assert.equal(dashboardAsset("dashboard.js"), dashboardAsset("dashboard.js"));
  assert.notEqual(
    dashboardAsset("dashboard.js"),
    dashboardAsset("dashboard.css"),
  );
});
