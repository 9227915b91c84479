/**
 * The command line's flags: each command declares its own (name, value,
 * default, what it does), and the one parser reads them, so `--help`
 * prints exactly what is parsed and an unknown flag is an error naming
 * it.
 *
 * @module
 */

import { parseArgs } from "node:util";

/** A flag of a command: `--name <value>`, or `--name` for a switch. */
export interface Flag {
  /** Its name, without the dashes. */
  readonly name: string;
  /** What its value is (`<n>`, `<path>`); absent for a switch. */
  readonly value?: string;
  /** Its value when not given; absent when it has none. */
  readonly default?: string;
  /** What it does, in one line. */
  readonly about: string;
}

/** A command of the command line, as its `--help` shows it. */
export interface Command {
  /** Its name, e.g. `"kv"`. */
  readonly name: string;
  /** How it is invoked, e.g. `deno task dev [job-file] --runtime kv`. */
  readonly usage: string;
  /** What it does: a few lines. */
  readonly summary: string;
  /** Its flags, `--help` left out. */
  readonly flags: readonly Flag[];
  /** One or more command lines using it. */
  readonly examples: readonly string[];
}

/** The arguments as parsed against a set of flags. */
export interface ParsedArgs {
  /** The arguments that are not flags, in order. */
  readonly positionals: string[];
  /** Each flag's value: the one given, else its default (switches: "true" or absent). */
  readonly values: Readonly<Record<string, string | undefined>>;
  /** The flags given, in order (`-h` as `help`). */
  readonly given: string[];
  /** Where each positional is in the arguments. */
  readonly positionalIndexes: number[];
}

/** `--help` and `-h`, which every command takes. */
export const HELP: Flag = { name: "help", about: "prints this help" };

/**
 * Reads `args` against `flags` (and `--help`/`-h`).
 *
 * @param args The arguments, e.g. `Deno.args`.
 * @param flags The flags known.
 * @param of What takes them, for the error naming an unknown flag.
 * @returns The positionals and each flag's value.
 * @throws {RangeError} If a flag is unknown (naming it), a flag that
 * takes a value has none, or a switch is given one. A negative number
 * (`--port -1`) is a value, for the flag's own check to refuse.
 *
 * @example
 * ```ts
 * import { parseFlags } from "./flags.ts";
 * import assert from "node:assert/strict";
 *
 * const flags = [{ name: "port", value: "<n>", default: "8000", about: "" }];
 * const parsed = parseFlags(["job.ts", "-h"], flags);
 * assert.deepEqual(parsed.positionals, ["job.ts"]);
 * assert.equal(parsed.values.port, "8000");
 * assert.deepEqual(parsed.given, ["help"]);
 * assert.throws(() => parseFlags(["--prot", "1"], flags), /'--prot'/);
 * ```
 */
export function parseFlags(
  args: readonly string[],
  flags: readonly Flag[],
  of = "weir's command line",
): ParsedArgs {
  const options: Record<
    string,
    { type: "string" | "boolean"; short?: string }
  > = { help: { type: "boolean", short: "h" } };
  for (const flag of flags) {
    options[flag.name] = {
      type: flag.value === undefined ? "boolean" : "string",
    };
  }
  const { joined, origins } = joinValues(args, flags);
  let tokens;
  try {
    ({ tokens } = parseArgs({
      args: joined,
      options,
      allowPositionals: true,
      strict: true,
      tokens: true,
    }));
  } catch (error) {
    const unknown = error instanceof Error &&
      /^Unknown option '([^']+)'/.exec(error.message);
    if (unknown) {
      throw new RangeError(
        `Cannot start as '${unknown[1]}' is not a flag of ${of}: see --help`,
      );
    }
    throw new RangeError(
      `Cannot start as ${error instanceof Error ? error.message : error}`,
    );
  }
  const values: Record<string, string | undefined> = {};
  for (const flag of flags) values[flag.name] = flag.default;
  const positionals: string[] = [];
  const positionalIndexes: number[] = [];
  const given: string[] = [];
  for (const token of tokens) {
    if (token.kind === "positional") {
      positionals.push(token.value);
      positionalIndexes.push(origins[token.index]);
    } else if (token.kind === "option") {
      given.push(token.name);
      values[token.name] = token.value ?? "true";
    }
  }
  return { positionals, values, given, positionalIndexes };
}

/** A value that starts with a dash but is no flag: a negative number. */
const NEGATIVE = /^-[\d.]/;

/**
 * `args` with each valued flag and its value as one `--name=value`, so
 * node:util's parseArgs takes a negative number as the value rather than
 * calling it ambiguous; `origins` gives each joined argument's index in
 * `args`. A missing value is refused here, naming the flag.
 */
function joinValues(
  args: readonly string[],
  flags: readonly Flag[],
): { joined: string[]; origins: number[] } {
  const byName = new Map([...flags, HELP].map((flag) => [flag.name, flag]));
  const joined: string[] = [];
  const origins: number[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    joined.push(arg);
    origins.push(i);
    // After `--`, every argument is a positional.
    if (arg === "--") {
      for (let rest = i + 1; rest < args.length; rest++) {
        joined.push(args[rest]);
        origins.push(rest);
      }
      break;
    }
    if (!arg.startsWith("--")) continue;
    const equals = arg.indexOf("=");
    const flag = byName.get(arg.slice(2, equals === -1 ? undefined : equals));
    if (flag === undefined) continue;
    if (flag.value === undefined) {
      if (equals !== -1) {
        throw new RangeError(
          `Cannot start as '--${flag.name}' takes no value: current value is ${
            arg.slice(equals + 1)
          }`,
        );
      }
      continue;
    }
    if (equals !== -1) continue;
    const next = args[i + 1];
    if (
      next === undefined || (next.startsWith("-") && !NEGATIVE.test(next))
    ) {
      throw new RangeError(
        `Cannot start as '--${flag.name}' needs a value (${flag.value})`,
      );
    }
    joined[joined.length - 1] = `${arg}=${next}`;
    i++;
  }
  return { joined, origins };
}

/**
 * Refuses the flags given that `command` does not take, naming the first.
 *
 * @param parsed The arguments as parsed.
 * @param command The command they run.
 * @param also Flags taken besides the command's own (those that chose it).
 * @throws {RangeError} If a flag given does not apply to the command.
 */
export function refuseOtherFlags(
  parsed: ParsedArgs,
  command: Command,
  also: readonly string[] = [],
): void {
  const taken = new Set([
    HELP.name,
    ...also,
    ...command.flags.map((f) => f.name),
  ]);
  const other = parsed.given.find((name) => !taken.has(name));
  if (other !== undefined) {
    throw new RangeError(
      `Cannot start as '--${other}' does not apply to the ${command.name} command: see its --help`,
    );
  }
}

/**
 * The help of `command`: usage, what it does, every flag with its default,
 * and examples.
 *
 * @param command The command.
 * @returns Lines to print.
 */
export function formatHelp(command: Command): string {
  const left = (flag: Flag) =>
    `  --${flag.name}${flag.value === undefined ? "" : ` ${flag.value}`}`;
  const flags = [...command.flags, HELP];
  const name = (flag: Flag) => flag === HELP ? "  -h, --help" : left(flag);
  const width = Math.max(...flags.map((f) => name(f).length)) + 2;
  const lines = flags.map((flag) => {
    const shown = flag.default === undefined
      ? ""
      : ` (default: ${flag.default === "" ? '""' : flag.default})`;
    return `${name(flag).padEnd(width)}${flag.about}${shown}`;
  });
  return [
    `Usage: ${command.usage}`,
    "",
    command.summary,
    "",
    "Flags:",
    ...lines,
    "",
    "Examples:",
    ...command.examples.map((e) => `  ${e}`),
  ].join("\n");
}

/**
 * Reads an integer flag.
 *
 * @param flag Its name, for the error.
 * @param value Its value.
 * @param options The least (`min`) and greatest (`max`) values allowed,
 * the `rule` they make, in words, and the `action` refused (`"start"`).
 * @returns The integer.
 * @throws {RangeError} If it is not an integer in `[min, max]`, with `rule`.
 */
export function parseInteger(
  flag: string,
  value: string,
  { min, max = Number.MAX_SAFE_INTEGER, rule, action = "start" }: {
    min: number;
    max?: number;
    rule: string;
    action?: string;
  },
): number {
  const n = Number(value);
  // Number("") is 0: an empty value (`--port=`) is no number.
  if (value.trim() === "" || !Number.isSafeInteger(n) || n < min || n > max) {
    throw new RangeError(
      `Cannot ${action} as '--${flag}' must be ${rule}: current value is ${value}`,
    );
  }
  return n;
}
