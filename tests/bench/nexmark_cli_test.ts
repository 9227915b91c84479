import assert from "node:assert/strict";
import { childArgs, settings } from "../../bench/nexmark/settings.ts";

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

Deno.test("deno task bench gives each query's process the same options, for that query", () => {
  const options = settings([
    "--events",
    "5000",
    "--query",
    "q5,q11",
    "--parallelism",
    "2",
    "--rate",
    "300",
    "--runs",
    "2",
    "--watermark-interval-ms",
    "10",
    "--no-checkpoints",
  ]);
  const child = settings(childArgs(options, "q11"));
  assert.deepEqual(child, {
    ...options,
    queries: [options.queries[1]],
    json: true,
  });
  assert.equal(settings(childArgs(settings([]), "q0")).checkpoints, true);
});

const script = new URL("../../bench/nexmark.ts", import.meta.url).href;
const twoQueries = [
  "--query",
  "q0,q2",
  "--events",
  "2000",
  "--runs",
  "1",
  "--no-checkpoints",
  "--json",
];

// The permission flags of the `bench` task in deno.json: what a user's
// `deno task bench` grants.
function taskPermissions(): string[] {
  const config = JSON.parse(
    Deno.readTextFileSync(new URL("../../deno.json", import.meta.url)),
  );
  return (config.tasks.bench as string).split(" ").filter((word) =>
    word.startsWith("--allow-")
  );
}

async function bench(permissions: string[], args: string[]) {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...permissions, script, ...args],
    stdin: "null",
  }).output();
  const text = new TextDecoder();
  return {
    code: output.code,
    stdout: text.decode(output.stdout),
    stderr: text.decode(output.stderr),
  };
}

Deno.test("deno task bench runs each of two queries in a process of its own and reports both", async () => {
  const run = await bench(taskPermissions(), twoQueries);
  assert.equal(run.code, 0, run.stderr);
  const document = JSON.parse(run.stdout);
  assert.equal(document.setup.processPerQuery, true);
  assert.deepEqual(
    document.queries.map((q: { query: string }) => q.query),
    ["q0", "q2"],
  );
  for (const report of document.queries) {
    assert.equal(report.checked, true);
    assert.ok(report.engineEventsPerSecond > 0);
  }
  // Each child's steps advanced the parent's bar.
  assert.match(run.stderr, /q0 engine = kernel check\n/);
  assert.match(run.stderr, /q2 engine = kernel check\n/);
});

Deno.test("deno task bench asks for the children's permissions, without limits, before running several queries", async () => {
  for (
    const [permissions, missing] of [
      [["--allow-read", "--allow-write", "--allow-env"], "--allow-run"],
      [
        ["--allow-read=.", "--allow-write", "--allow-env", "--allow-run"],
        "--allow-read",
      ],
    ] as const
  ) {
    const run = await bench([...permissions], twoQueries);
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, new RegExp(`needs ${missing} without limits`));
    assert.equal(run.stdout, "");
  }
});
