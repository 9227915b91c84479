import assert from "node:assert/strict";
import { runChild } from "../../../bench/nexmark/children.ts";
import { Progress } from "../../../bench/nexmark/output.ts";

const script = (code: string) =>
  new URL(`data:application/typescript,${encodeURIComponent(code)}`);

Deno.test("a query's process that fails fails naming the query, how it ended and what it said", async () => {
  await assert.rejects(
    runChild(
      "q5",
      script(
        `console.error("Benchmark check failed as q5's engine differs"); Deno.exit(1);`,
      ),
      [],
      new Progress(1),
    ),
    {
      message:
        "Benchmark failed as q5's process exited with code 1:\nBenchmark check failed as q5's engine differs",
    },
  );
  await assert.rejects(
    runChild("q5", script("Deno.exit(3);"), [], new Progress(1)),
    { message: "Benchmark failed as q5's process exited with code 3" },
  );
  // A warning printed before the end is not taken for the reason.
  await assert.rejects(
    runChild(
      "q5",
      script(
        `console.error("Warning: something"); Deno.kill(Deno.pid, "SIGKILL");`,
      ),
      [],
      new Progress(1),
    ),
    {
      message:
        "Benchmark failed as q5's process was killed by SIGKILL:\nWarning: something",
    },
  );
  await assert.rejects(
    runChild("q5", script(`console.log("hello");`), [], new Progress(1)),
    {
      message:
        `Benchmark failed as q5's process printed no report of it: "hello\\n"`,
    },
  );
});

Deno.test("a query's process hands back its report and its other lines", async () => {
  const steps: string[] = [];
  const progress = new Progress(2);
  progress.step = (label) => void steps.push(label);
  const run = await runChild(
    "q5",
    script(`
      console.error("[------------------------------]   0% generating 10 events");
      console.error("[###############---------------]  50% q5 kernel, run 1/2");
      console.error("Warning: something");
      console.error("[##############################] 100% done");
      console.log(JSON.stringify({ setup: {}, queries: [{ query: "q5" }] }));
    `),
    [],
    progress,
  );
  assert.deepEqual(run.report, { query: "q5" });
  assert.equal(run.notes, "Warning: something\n");
  assert.deepEqual(steps, ["q5: generating 10 events", "q5 kernel, run 1/2"]);
});
