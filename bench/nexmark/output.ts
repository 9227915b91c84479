/**
 * What `deno task bench` prints: the progress bar, a table per query, the
 * summary and the issue's targets.
 *
 * @module
 */

import { WINDOWED } from "./queries/mod.ts";

/** Windows each windowed query must fire for its ratio to measure windows. */
export const MIN_WINDOWS = 100;
/** Checkpoints each checkpointed run must take for its ratio to count. */
export const MIN_CHECKPOINTS = 5;

/** Everything measured for one query. */
export interface QueryReport {
  /** The query's name. */
  readonly query: string;
  /** What it computes. */
  readonly description: string;
  /** Results of the engine's runs (all equal). */
  readonly results: number;
  /** Results of the kernel's runs; differs from `results` only for q12. */
  readonly kernelResults: number;
  /** Windows the kernel's results show fired; `null` without windows. */
  readonly windows: number | null;
  /** Whether the engine's results were checked equal to the kernel's. */
  readonly checked: boolean;
  /** Results depend on processing time: no check, no target. */
  readonly processingTime: boolean;
  /** Best kernel run. */
  readonly kernelEventsPerSecond: number;
  /** Best engine run, generator excluded. */
  readonly engineEventsPerSecond: number;
  /** Best engine run, generator included. */
  readonly engineWithGeneratorEventsPerSecond: number;
  /** Engine over kernel. */
  readonly engineToKernel: number;
  /** Most JavaScript heap in use seen during the measured engine runs. */
  readonly peakHeapMb: number;
  /** The checkpointed arm, unless `--no-checkpoints`. */
  readonly checkpoints: CheckpointReport | null;
}

/** The checkpointed arm against the plain one, same events, alternated. */
export interface CheckpointReport {
  /** Events per run. */
  readonly events: number;
  /** Best run without checkpoints. */
  readonly withoutEventsPerSecond: number;
  /** Best run with a checkpoint every second. */
  readonly withEventsPerSecond: number;
  /** With over without. */
  readonly ratio: number;
  /** Checkpoints completed in the best checkpointed run. */
  readonly count: number;
  /** Median checkpoint duration; `null` without checkpoints. */
  readonly p50Ms: number | null;
  /** 99th percentile checkpoint duration; `null` without checkpoints. */
  readonly p99Ms: number | null;
}

// A step's line off a terminal: what a parent process reads off a child's
// stderr to advance its own bar (see `stepLabel`).
const BAR_WIDTH = 30;
const STEP_LINE = new RegExp(`^\\[[#-]{${BAR_WIDTH}}\\] +\\d+% (.*)$`);
/** The label of the last progress line, written by `Progress.end`. */
export const DONE = "done";

/**
 * The label of a progress line written off a terminal (`DONE` for the last
 * one), or `null` for any other line.
 *
 * @param line One line of a benchmark process's stderr.
 * @returns The step's label.
 */
export function stepLabel(line: string): string | null {
  return STEP_LINE.exec(line)?.[1] ?? null;
}

/** Progress on stderr: a bar on a terminal, a line per step otherwise. */
export class Progress {
  readonly #total: number;
  #done = 0;
  readonly #terminal = Deno.stderr.isTerminal();
  readonly #encoder = new TextEncoder();

  /**
   * A bar of `total` steps.
   *
   * @param total Steps in all.
   */
  constructor(total: number) {
    this.#total = total;
  }

  /** Starts a step. @param label What it does. */
  step(label: string): void {
    const share = Math.min(1, this.#done / this.#total);
    const filled = Math.round(share * BAR_WIDTH);
    const bar = `[${"#".repeat(filled)}${"-".repeat(BAR_WIDTH - filled)}] ${
      String(Math.round(share * 100)).padStart(3)
    }% ${label}`;
    this.#write(this.#terminal ? `\r\x1b[2K${bar}` : `${bar}\n`);
    this.#done++;
  }

  /** Clears the bar. */
  end(): void {
    this.#write(
      this.#terminal
        ? "\r\x1b[2K"
        : `[${"#".repeat(BAR_WIDTH)}] 100% ${DONE}\n`,
    );
  }

  /**
   * Writes text that is not a step (a child process's warnings) on a line
   * of its own, under the bar.
   *
   * @param text Whole lines.
   */
  note(text: string): void {
    this.#write(`${this.#terminal ? "\r\x1b[2K" : ""}${text}`);
  }

  #write(text: string): void {
    Deno.stderr.writeSync(this.#encoder.encode(text));
  }
}

const rate = (n: number): string =>
  n >= 1e6 ? `${(n / 1e6).toFixed(2)} M/s` : `${(n / 1e3).toFixed(0)} K/s`;
const percent = (x: number): string => `${(x * 100).toFixed(0)}%`;

/** Whether a windowed query fired too few windows to measure windows. */
export function fewWindows(report: QueryReport): boolean {
  // q12's processing-time windows are covered by its own note.
  return !report.processingTime && report.windows !== null &&
    report.windows < MIN_WINDOWS;
}

function fewCheckpoints(report: QueryReport): boolean {
  return report.checkpoints !== null &&
    report.checkpoints.count < MIN_CHECKPOINTS;
}

function resultsText(report: QueryReport): string {
  const kernel = report.kernelResults === report.results
    ? ""
    : ` (kernel ${report.kernelResults})`;
  const check = report.checked ? "= kernel" : "not compared";
  return `${report.results}${kernel}, ${check}`;
}

function windowsText(report: QueryReport): string {
  if (report.windows === null) return "-";
  return fewWindows(report)
    ? `${report.windows} < ${MIN_WINDOWS} (!)`
    : String(report.windows);
}

/**
 * Prints one query's table, with warnings for too few windows or
 * checkpoints.
 *
 * @param report The query's measurements.
 */
export function printQuery(report: QueryReport): void {
  console.log(`\n${report.query}: ${report.description}`);
  const rows: Record<string, Record<string, string>> = {
    "kernel (hand-written loop)": {
      "events/s": rate(report.kernelEventsPerSecond),
      "results": String(report.kernelResults),
      "windows": windowsText(report),
    },
    "engine, generator excluded": {
      "events/s": rate(report.engineEventsPerSecond),
      "of kernel": percent(report.engineToKernel),
      "results": resultsText(report),
      "peak heap MB": report.peakHeapMb.toFixed(0),
    },
    "engine, generator included": {
      "events/s": rate(report.engineWithGeneratorEventsPerSecond),
    },
  };
  const cp = report.checkpoints;
  if (cp !== null) {
    rows[`engine + generator, ${cp.events} events, no checkpoints`] = {
      "events/s": rate(cp.withoutEventsPerSecond),
    };
    rows[
      `same, checkpoint every second (${cp.count}${
        fewCheckpoints(report) ? ` < ${MIN_CHECKPOINTS} (!)` : ""
      })`
    ] = {
      "events/s": rate(cp.withEventsPerSecond),
      "of kernel": `${percent(cp.ratio)} of no checkpoints`,
      "results": `p50 ${cp.p50Ms?.toFixed(1) ?? "-"} ms`,
      "peak heap MB": `p99 ${cp.p99Ms?.toFixed(1) ?? "-"} ms`,
    };
  }
  console.table(rows);
  if (fewWindows(report)) {
    console.log(
      `WARNING: ${report.query} fired ${report.windows} windows, fewer than ${MIN_WINDOWS}: its ratio measures forwarding more than windows (raise --events or lower --rate)`,
    );
  }
  if (report.processingTime) {
    console.log(
      `NOTE: ${report.query} uses processing-time windows: its results depend on the clock, so they are not compared with the kernel's and it counts toward no target`,
    );
  }
  if (fewCheckpoints(report)) {
    console.log(
      `WARNING: ${report.query}'s checkpointed run took ${
        cp!.count
      } checkpoints, fewer than ${MIN_CHECKPOINTS}`,
    );
  }
}

/**
 * Prints the summary table, one row per query.
 *
 * @param header The line above it.
 * @param reports Every query's measurements.
 */
export function printSummary(
  header: string,
  reports: readonly QueryReport[],
): void {
  console.log(`\n${header}`);
  console.table(Object.fromEntries(reports.map((r) => [r.query, {
    "kernel": rate(r.kernelEventsPerSecond),
    "engine": rate(r.engineEventsPerSecond),
    "engine/kernel": percent(r.engineToKernel),
    "with generator": rate(r.engineWithGeneratorEventsPerSecond),
    "results": resultsText(r),
    "windows": windowsText(r),
    "peak heap MB": r.peakHeapMb.toFixed(0),
    "checkpoints 1/s": r.checkpoints === null
      ? "-"
      : `${percent(r.checkpoints.ratio)} (${r.checkpoints.count})`,
    "cp p50/p99 ms": r.checkpoints?.p50Ms == null
      ? "-"
      : `${r.checkpoints.p50Ms.toFixed(1)}/${r.checkpoints.p99Ms!.toFixed(1)}`,
  }])));
}

/**
 * The issue's targets, each with whether this run met it. A windowed
 * query that fired too few windows, q12 (processing time) and a
 * checkpointed run with too few checkpoints count toward none: their
 * lines say "n/a" and why.
 *
 * @param reports Every query's measurements.
 * @returns One line per target.
 */
export function targets(reports: readonly QueryReport[]): string[] {
  const lines: string[] = [];
  const check = (ok: boolean | null, text: string) =>
    lines.push(`${ok === null ? "n/a   " : ok ? "met   " : "MISSED"}  ${text}`);
  for (const report of reports) {
    const name = report.query;
    const why = report.processingTime
      ? " (processing time: does not count)"
      : fewWindows(report)
      ? ` (${report.windows} windows < ${MIN_WINDOWS}: does not count)`
      : "";
    const counts = why === "";
    if (name === "q5" || name === "q7") {
      check(
        counts ? report.engineEventsPerSecond >= 1e6 : null,
        `${name} >= 1 M events/s: ${rate(report.engineEventsPerSecond)}${why}`,
      );
    }
    if (name === "q0" || name === "q1" || name === "q2") {
      check(
        report.engineEventsPerSecond >= 5e6,
        `${name} >= 5 M events/s, generator excluded: ${
          rate(report.engineEventsPerSecond)
        }`,
      );
    }
    if (WINDOWED.has(name)) {
      check(
        counts ? report.engineToKernel >= 1 / 3 : null,
        `${name} engine >= 1/3 of kernel: ${
          percent(report.engineToKernel)
        }${why}`,
      );
    }
    const cp = report.checkpoints;
    if (cp !== null) {
      check(
        cp.count >= MIN_CHECKPOINTS ? cp.ratio >= 0.8 : null,
        `${name} with checkpoints every second >= 80% of without: ${
          percent(cp.ratio)
        }${
          cp.count >= MIN_CHECKPOINTS
            ? ""
            : ` (${cp.count} checkpoints < ${MIN_CHECKPOINTS}: does not count)`
        }`,
      );
    }
  }
  return lines;
}
