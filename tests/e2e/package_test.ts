// weir as a package another project imports, the way the README's "Use
// weir from another project" shows: a project in a temp dir outside the
// repository links the checkout in its deno.json and imports "@weir/weir"
// and its subpaths. The checkout's own import map (hono, superjson) is
// used for weir's modules, so the other project maps nothing itself.

import assert from "node:assert/strict";

const repo = new URL("../../", import.meta.url).pathname.replace(/\/$/, "");

/** The checkout's path relative to `from`: Deno 2.5 takes only relative links. */
function relativeTo(from: string): string {
  const up = from.split("/").filter((part) => part !== "").length;
  return "../".repeat(up) + repo.replace(/^\//, "");
}

const job = `import {
  ScriptedSource,
  StreamEnvironment,
  TumblingEventTimeWindows,
  WatermarkStrategy,
} from "@weir/weir";
import { createApp } from "@weir/weir/http";
import { KvRuntime } from "@weir/weir/kv";

type Click = { page: string; at: number };

const env = new StreamEnvironment({ jobName: "clicks", parallelism: 2 });
const counts = env
  .fromSource(
    new ScriptedSource<Click>([
      { at: 0, value: { page: "/", at: 1_000 } },
      { at: 0, value: { page: "/about", at: 2_000 } },
      { at: 0, value: { page: "/", at: 3_000 } },
    ]),
    WatermarkStrategy.forBoundedOutOfOrderness<Click>(0)
      .withTimestampAssigner((click) => click.at),
    "clicks",
  )
  .keyBy((click) => click.page)
  .window(TumblingEventTimeWindows.of(60_000))
  .aggregate({
    createAccumulator: () => 0,
    add: (_click, n: number) => n + 1,
    getResult: (n) => n,
    merge: (a, b) => a + b,
  });
const out: number[] = await env.executeAndCollect(counts);
console.log(JSON.stringify({
  counts: out.toSorted(),
  http: typeof createApp,
  kv: typeof KvRuntime,
}));
`;

async function deno(cwd: string, ...args: string[]) {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args,
    cwd,
    env: { NO_COLOR: "1" },
  }).output();
  return {
    code,
    stdout: new TextDecoder().decode(stdout),
    stderr: new TextDecoder().decode(stderr),
  };
}

Deno.test("A project outside the repository links weir in its deno.json, type-checks and runs a job importing @weir/weir, @weir/weir/http and @weir/weir/kv", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  try {
    assert.ok(!dir.startsWith(repo + "/"), "the project is outside the repo");
    await Deno.writeTextFile(
      `${dir}/deno.json`,
      JSON.stringify({ links: [relativeTo(dir)] }, null, 2),
    );
    await Deno.writeTextFile(`${dir}/job.ts`, job);

    const check = await deno(dir, "check", "job.ts");
    assert.equal(check.code, 0, check.stderr);

    const run = await deno(dir, "run", "job.ts");
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout), {
      counts: [1, 2],
      http: "function",
      kv: "function",
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
