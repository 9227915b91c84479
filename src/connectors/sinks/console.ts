/**
 * A sink that prints one line per record (Flink's `print()`).
 *
 * @module
 */

import { requireFunction } from "../../time/validate.ts";
import type { Sink, SinkWriter } from "../../runtime/sink.ts";

/** Options of a {@linkcode ConsoleSink}. */
export interface ConsoleSinkOptions<T> {
  /**
   * Turns a record into its line.
   * @default {undefined} Flink's format: `"<subtask + 1>> <value>"` when the
   *   parallelism is above 1, else `"<value>"`; strings print as they are,
   *   other values as `Deno.inspect` shows them
   */
  readonly format?: (value: T, timestamp: number, subtask: number) => string;
  /**
   * Where each line goes; inject one to capture or redirect the output.
   * @default {console.log}
   */
  readonly write?: (line: string) => void;
}

/**
 * Writes each record as one line, in the order its writer receives them.
 *
 * Lines of different subtasks interleave as the runtime calls the writers.
 * Nothing is buffered: `write` is called once per record, so a slow `write`
 * slows the job down.
 *
 * A batch is formatted whole before its first line is printed: a `format`
 * that throws prints nothing of it, and the writer declares
 * `atomicWrites`, so the job's error policy sets aside just the record
 * whose `format` throws. Output is at least once, as for any sink without
 * transactions: lines printed after the last checkpoint print again after
 * a restore, and so may the lines before a `write` that throws midway.
 *
 * @typeParam T The record type.
 *
 * @example Capturing the lines of two subtasks
 * ```ts
 * import { ConsoleSink } from "./console.ts";
 * import assert from "node:assert/strict";
 *
 * const lines: string[] = [];
 * const sink = new ConsoleSink<number>({ write: (line) => lines.push(line) });
 * sink.createWriter(0, 2).write([7], [1_000]);
 * sink.createWriter(1, 2).write([8], [2_000]);
 * assert.deepEqual(lines, ["1> 7", "2> 8"]);
 * ```
 */
export class ConsoleSink<T> implements Sink<T> {
  /** `"console"`. */
  readonly name = "console";
  readonly #format:
    | ((value: T, timestamp: number, subtask: number) => string)
    | undefined;
  readonly #write: (line: string) => void;

  /**
   * Creates the sink.
   *
   * @param options How to format a record and where the line goes.
   * @throws {TypeError} If `format` or `write` is given and not a function.
   */
  constructor(options: ConsoleSinkOptions<T> = {}) {
    const action = "create ConsoleSink";
    this.#format = options.format === undefined
      ? undefined
      : requireFunction(options.format, { action, param: "format" });
    this.#write = options.write === undefined
      ? (line) => console.log(line)
      : requireFunction(options.write, { action, param: "write" });
  }

  /**
   * Creates the writer of one subtask.
   *
   * @param subtaskIndex The subtask, from 0; passed to `format`.
   * @param parallelism The number of sink subtasks; the default format
   *   prefixes lines with the subtask only when it is above 1.
   * @returns A writer that prints each record.
   */
  createWriter(subtaskIndex: number, parallelism: number): SinkWriter<T> {
    const write = this.#write;
    const format = this.#format ??
      (parallelism > 1
        ? (value: T) => `${subtaskIndex + 1}> ${show(value)}`
        : show);
    return {
      atomicWrites: true,
      write(values, timestamps) {
        // Every line is formatted before the first is printed, so a format
        // that throws prints nothing of the batch (see atomicWrites).
        const lines = new Array<string>(values.length);
        for (let i = 0; i < values.length; i++) {
          lines[i] = format(values[i], timestamps[i], subtaskIndex);
        }
        for (const line of lines) write(line);
      },
    };
  }
}

function show(value: unknown): string {
  return typeof value === "string" ? value : Deno.inspect(value);
}
