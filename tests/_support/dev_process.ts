// `main.ts` as the command-line tests run it: the command `deno task dev`
// runs, and a process whose output a test reads line by line.

const ROOT = new URL("../../", import.meta.url).pathname;

/** Options of {@linkcode mainCommand}. */
export interface MainCommandOptions {
  /** Environment variables of the process. */
  readonly env?: Record<string, string>;
  /** @default {"piped"} */
  readonly stdout?: "piped" | "null" | "inherit";
  /** @default {"piped"} */
  readonly stderr?: "piped" | "null" | "inherit";
}

/**
 * `main.ts` with `args`, run from the repository's root with the
 * permissions of `deno task dev`.
 */
export function mainCommand(
  args: string[],
  options: MainCommandOptions = {},
): Deno.Command {
  return new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-read",
      "--allow-write",
      "--allow-env",
      "--allow-net",
      "--allow-run",
      "--unstable-kv",
      "--unstable-cron",
      "main.ts",
      ...args,
    ],
    cwd: ROOT,
    env: options.env,
    stdout: options.stdout ?? "piped",
    stderr: options.stderr ?? "piped",
  });
}

/**
 * A running `main.ts` (what `deno task dev` runs), its stdout and stderr
 * read line by line, so a test waits for what the process says rather
 * than for time to pass.
 */
export class Dev {
  /** The process. */
  readonly child: Deno.ChildProcess;
  /** What it printed so far, stdout and stderr interleaved. */
  readonly lines: string[] = [];
  #waiters: Array<() => void> = [];
  /** Resolves once both outputs are read to their end. */
  readonly done: Promise<void>;

  constructor(args: string[], env: Record<string, string> = {}) {
    this.child = mainCommand(args, { env }).spawn();
    this.done = Promise.all([
      this.#read(this.child.stdout),
      this.#read(this.child.stderr),
    ]).then(() => {});
  }

  async #read(stream: ReadableStream<Uint8Array>): Promise<void> {
    const lines = stream.pipeThrough(new TextDecoderStream());
    let rest = "";
    for await (const chunk of lines) {
      const parts = (rest + chunk).split("\n");
      rest = parts.pop()!;
      this.lines.push(...parts);
      for (const wake of this.#waiters.splice(0)) wake();
    }
    if (rest !== "") this.lines.push(rest);
    for (const wake of this.#waiters.splice(0)) wake();
  }

  /** Waits for a line matching `pattern` (or for the process to end: then fails). */
  async line(pattern: RegExp): Promise<RegExpMatchArray> {
    for (;;) {
      for (const line of this.lines) {
        const match = line.match(pattern);
        if (match !== null) return match;
      }
      const ended = await Promise.race([
        this.child.status.then(() => true),
        new Promise<boolean>((resolve) =>
          this.#waiters.push(() => resolve(false))
        ),
      ]);
      if (ended) {
        await this.done;
        const match = this.lines.map((l) => l.match(pattern)).find((m) => m);
        if (match) return match;
        throw new Error(
          `the process ended without a line matching ${pattern}:\n${
            this.lines.join("\n")
          }`,
        );
      }
    }
  }

  /** Waits for the process to end; returns its exit code. */
  async exit(): Promise<number> {
    const { code } = await this.child.status;
    await this.done;
    return code;
  }
}
