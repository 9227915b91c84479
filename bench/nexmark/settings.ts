/**
 * The command line of `deno task bench`: reading it, and writing it back for
 * one query's own process.
 *
 * @module
 */

import { parseArgs } from "node:util";
import type { NexmarkQuery } from "./query.ts";
import { QUERIES } from "./queries/mod.ts";

type Query = NexmarkQuery<unknown, unknown>;

/** What the command line asked for. */
export interface Settings {
  readonly events: number;
  readonly queries: readonly Query[];
  readonly parallelism: number;
  readonly rate: number;
  readonly runs: number;
  /** Processing time between periodic watermarks. */
  readonly watermarkIntervalMs: number;
  readonly checkpoints: boolean;
  readonly json: boolean;
}

/** Reads the command line; errors name the flag and its value. */
export function settings(args: string[]): Settings {
  const { values } = parseArgs({
    args,
    options: {
      events: { type: "string", default: "1000000" },
      query: { type: "string", multiple: true },
      parallelism: { type: "string", default: "1" },
      rate: { type: "string", default: "1000" },
      runs: { type: "string", default: "3" },
      "watermark-interval-ms": { type: "string", default: "200" },
      "no-checkpoints": { type: "boolean", default: false },
      json: { type: "boolean", default: false },
    },
    strict: true,
  });
  const positive = (name: string, text: string, max: number): number => {
    const n = Number(text);
    if (!/^[1-9][0-9]*$/.test(text) || n > max) {
      throw new RangeError(
        `Cannot run the Nexmark benchmark as '--${name}' must be an integer from 1 to ${max}: current value is ${
          JSON.stringify(text)
        }`,
      );
    }
    return n;
  };
  const names = (values.query ?? []).flatMap((q) => q.split(","));
  const queries = names.length === 0 ? QUERIES : names.map((name) => {
    const found = QUERIES.find((q) => q.name === name);
    if (found === undefined) {
      throw new RangeError(
        `Cannot run the Nexmark benchmark as '--query' must name a query: current value is ${
          JSON.stringify(name)
        }; the queries are ${QUERIES.map((q) => q.name).join(", ")}`,
      );
    }
    return found;
  });
  const events = positive("events", values.events!, Number.MAX_SAFE_INTEGER);
  return {
    events,
    queries,
    // One generator split per subtask, so at most one per event.
    parallelism: positive("parallelism", values.parallelism!, events),
    // The generator's limit: a gap of 1 ns between events.
    rate: positive("rate", values.rate!, 1_000_000_000),
    runs: positive("runs", values.runs!, 1_000),
    watermarkIntervalMs: positive(
      "watermark-interval-ms",
      values["watermark-interval-ms"]!,
      3_600_000,
    ),
    checkpoints: !values["no-checkpoints"],
    json: values.json!,
  };
}

/**
 * The command line that runs one query of `options` as they are, with
 * `--json`: what the runner gives each query's own process.
 *
 * @param options The parsed command line.
 * @param query The one query's name.
 * @returns Arguments for `settings`.
 */
export function childArgs(options: Settings, query: string): string[] {
  return [
    "--events",
    String(options.events),
    "--query",
    query,
    "--parallelism",
    String(options.parallelism),
    "--rate",
    String(options.rate),
    "--runs",
    String(options.runs),
    "--watermark-interval-ms",
    String(options.watermarkIntervalMs),
    ...(options.checkpoints ? [] : ["--no-checkpoints"]),
    "--json",
  ];
}
