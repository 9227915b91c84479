/**
 * Runs one query of `deno task bench` in a Deno process of its own, so that
 * it is measured on a fresh heap and with the engine's code compiled for its
 * functions alone, as Flink's Nexmark runs each query as its own job.
 *
 * @module
 */

import { fileURLToPath } from "node:url";
import { DONE, type Progress, type QueryReport, stepLabel } from "./output.ts";

// What a child needs (the query's sources, deno.json and a KV file for the
// checkpoints, in the temp folder): it gets exactly these, without limits,
// and the parent must hold them so (Deno cannot tell a child the limits it
// was given: a path-limited grant is refused by name, not widened).
const CHILD_PERMISSIONS = ["read", "write", "env"] as const;

/**
 * Why this process cannot run queries in children, or `null` when it can:
 * the runner checks it before any work, so that a missing permission fails
 * at once, by name.
 *
 * @returns `null`, or the flags it lacks, e.g. `"--allow-run"`.
 */
export function missingChildPermissions(): string | null {
  const missing = (["run", ...CHILD_PERMISSIONS] as const).filter((name) =>
    Deno.permissions.querySync({ name }).state !== "granted"
  );
  return missing.length === 0
    ? null
    : missing.map((name) => `--allow-${name}`).join(" ");
}

/** What a child process ran. */
export interface ChildRun {
  /** The query's measurements. */
  readonly report: QueryReport;
  /** What it wrote on stderr besides progress steps (warnings); may be "". */
  readonly notes: string;
}

/**
 * Runs `script` in a new Deno process with `args` (which must ask for one
 * query and `--json`), advancing `progress` with each of its steps.
 *
 * @param query The query's name, for labels and messages.
 * @param script The benchmark's entry point.
 * @param args Its command line.
 * @param progress Advanced by one step per step of the child.
 * @returns The child's one report.
 * @throws Error with the child's message (its stderr) when it fails.
 */
export async function runChild(
  query: string,
  script: URL,
  args: readonly string[],
  progress: Progress,
): Promise<ChildRun> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      ...CHILD_PERMISSIONS.map((name) => `--allow-${name}`),
      // The project's settings (unstable KV, imports), wherever the parent
      // was started from.
      "--config",
      fileURLToPath(new URL("../../deno.json", import.meta.url)),
      script.href,
      ...args,
    ],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  // Both pipes are read at once, so that neither fills and blocks the child.
  const [stdout, notes, status] = await Promise.all([
    new Response(child.stdout).text(),
    readSteps(query, child.stderr, progress),
    child.status,
  ]);
  if (!status.success) {
    // The query and how its process ended always, then what it said (a
    // failed check's message; a warning printed before a crash is not it).
    const ended = status.signal === null
      ? `exited with code ${status.code}`
      : `was killed by ${status.signal}`;
    const said = notes.trim();
    throw new Error(
      `Benchmark failed as ${query}'s process ${ended}${
        said === "" ? "" : `:\n${said}`
      }`,
    );
  }
  let report: QueryReport | undefined;
  try {
    report = (JSON.parse(stdout) as { queries: QueryReport[] }).queries[0];
  } catch {
    // Left undefined: said below.
  }
  if (report?.query !== query) {
    throw new Error(
      `Benchmark failed as ${query}'s process printed no report of it: ${
        JSON.stringify(stdout.slice(0, 200))
      }`,
    );
  }
  return { report, notes };
}

// Steps advance the bar; every other line is kept, in order.
async function readSteps(
  query: string,
  stderr: ReadableStream<Uint8Array>,
  progress: Progress,
): Promise<string> {
  let pending = "";
  let notes = "";
  const line = (text: string) => {
    const label = stepLabel(text);
    if (label === null) notes += `${text}\n`;
    else if (label !== DONE) {
      progress.step(label.startsWith(query) ? label : `${query}: ${label}`);
    }
  };
  for await (const chunk of stderr.pipeThrough(new TextDecoderStream())) {
    const lines = (pending + chunk).split("\n");
    pending = lines.pop()!;
    lines.forEach(line);
  }
  if (pending !== "") line(pending);
  return notes;
}
