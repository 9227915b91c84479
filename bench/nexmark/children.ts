/**
 * Runs one query of `deno task bench` in a Deno process of its own, so that
 * it is measured on a fresh heap and with the engine's code compiled for its
 * functions alone, as Flink's Nexmark runs each query as its own job.
 *
 * @module
 */

import { DONE, type Progress, type QueryReport, stepLabel } from "./output.ts";

// Permissions the child gets when this process has them, so that it runs as
// this one does. The child needs read, write and env; run only to pass on.
const PERMISSIONS = [
  "read",
  "write",
  "env",
  "net",
  "sys",
  "ffi",
  "run",
] as const;

/**
 * Whether this process may start children; the runner checks it before any
 * work, so that a missing `--allow-run` fails at once.
 *
 * @returns Whether `--allow-run` was granted.
 */
export function mayRunChildren(): boolean {
  return Deno.permissions.querySync({ name: "run" }).state === "granted";
}

function permissionFlags(): string[] {
  return PERMISSIONS.filter((name) =>
    Deno.permissions.querySync({ name }).state === "granted"
  ).map((name) => `--allow-${name}`);
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
      ...permissionFlags(),
      // The project's settings (unstable KV, imports), wherever the parent
      // was started from.
      "--config",
      decodeURIComponent(
        new URL("../../deno.json", import.meta.url).pathname,
      ),
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
    throw new Error(
      notes.trim() ||
        `Benchmark failed as ${query}'s process exited with code ${status.code}`,
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
