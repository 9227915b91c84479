import assert from "node:assert/strict";
import { ConsoleSink } from "../../../src/connectors/sinks/console.ts";
import { SinkOperator } from "../../../src/runtime/operators/sink.ts";
import { guardHarness } from "../../_support/guard_harness.ts";

function capture<T>(
  format?: (value: T, timestamp: number, subtask: number) => string,
): { sink: ConsoleSink<T>; lines: string[] } {
  const lines: string[] = [];
  const sink = new ConsoleSink<T>({
    format,
    write: (line) => lines.push(line),
  });
  return { sink, lines };
}

Deno.test("ConsoleSink formats each record through the given format and write", () => {
  const { sink, lines } = capture<string>((value, ts, subtask) =>
    `${subtask}|${ts}|${value}`
  );
  sink.createWriter(1, 2).write(["a", "b"], [10, 20]);
  sink.createWriter(0, 2).write(["c"], [30]);
  assert.deepEqual(lines, ["1|10|a", "1|20|b", "0|30|c"]);
});

Deno.test("ConsoleSink prints bare values at parallelism 1 by default", () => {
  const { sink, lines } = capture<unknown>();
  sink.createWriter(0, 1).write(["text", 42, { id: 1 }], [0, 0, 0]);
  assert.deepEqual(lines, ["text", "42", "{ id: 1 }"]);
});

Deno.test("ConsoleSink prefixes lines with the subtask from 1 at parallelism above 1 by default (Flink's print)", () => {
  const { sink, lines } = capture<string>();
  sink.createWriter(0, 3).write(["a"], [0]);
  sink.createWriter(2, 3).write(["b"], [0]);
  assert.deepEqual(lines, ["1> a", "3> b"]);
});

Deno.test("ConsoleSink writes to console.log without an injected write", () => {
  const original = console.log;
  const logged: unknown[][] = [];
  console.log = (...args: unknown[]) => logged.push(args);
  try {
    new ConsoleSink<string>().createWriter(0, 1).write(["hello"], [0]);
  } finally {
    console.log = original;
  }
  assert.deepEqual(logged, [["hello"]]);
});

Deno.test("ConsoleSink rejects a format or write that is not a function", () => {
  assert.throws(
    () => new ConsoleSink({ write: "x" as unknown as (line: string) => void }),
    { name: "TypeError", message: /ConsoleSink.*'write'/ },
  );
  assert.throws(
    () =>
      new ConsoleSink({
        format: 1 as unknown as (value: unknown) => string,
      }),
    { name: "TypeError", message: /ConsoleSink.*'format'/ },
  );
});

Deno.test("ConsoleSink prints nothing of a batch whose format throws, so the subtask sets aside that record alone and prints the others once", () => {
  const { sink, lines } = capture<string>((value) => {
    if (value === "bad") throw new TypeError("Cannot format 'bad'");
    return value;
  });
  const writer = sink.createWriter(0, 1);
  assert.equal(writer.atomicWrites, true);
  assert.throws(() => writer.write(["a", "bad"], [1, 2]), TypeError);
  assert.deepEqual(lines, []);
  const h = guardHarness({ operators: () => [new SinkOperator(writer)] });
  h.push(["a", "bad", "c"], [1, 2, 3]);
  assert.deepEqual(lines, ["a", "c"]);
  assert.deepEqual(h.letters().map((l) => l.value), ["bad"]);
});
