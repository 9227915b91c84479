import assert from "node:assert/strict";
import { CollectSink } from "../../../src/connectors/sinks/collect.ts";

Deno.test("CollectSink collects the records of every writer in arrival order", () => {
  const sink = new CollectSink<string>();
  const writers = [0, 1, 2].map((s) => sink.createWriter(s, 3));
  writers[2].write(["c1"], [30]);
  writers[0].write(["a1", "a2"], [10, 11]);
  writers[1].write([], []);
  writers[2].write(["c2"], [31]);
  assert.deepEqual(sink.values, ["c1", "a1", "a2", "c2"]);
  assert.deepEqual(sink.records, [
    { value: "c1", timestamp: 30, subtask: 2 },
    { value: "a1", timestamp: 10, subtask: 0 },
    { value: "a2", timestamp: 11, subtask: 0 },
    { value: "c2", timestamp: 31, subtask: 2 },
  ]);
});

Deno.test("CollectSink counts the writers that finished", () => {
  const sink = new CollectSink<number>();
  const a = sink.createWriter(0, 2);
  const b = sink.createWriter(1, 2);
  assert.equal(sink.finishedWriters, 0);
  a.finish?.();
  assert.equal(sink.finishedWriters, 1);
  b.finish?.();
  assert.equal(sink.finishedWriters, 2);
});

Deno.test("CollectSink keeps -Infinity timestamps and object values as they are", () => {
  const sink = new CollectSink<{ id: number }>();
  const value = { id: 1 };
  sink.createWriter(0, 1).write([value], [-Infinity]);
  assert.equal(sink.values[0], value);
  assert.equal(sink.records[0].timestamp, -Infinity);
  assert.equal(sink.name, "collect");
});

Deno.test("CollectSink declares atomicWrites: its write only appends, so a record's failure can be found record by record", () => {
  assert.equal(new CollectSink<string>().createWriter(0, 1).atomicWrites, true);
});
