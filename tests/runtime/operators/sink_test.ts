import assert from "node:assert/strict";
import { SinkOperator } from "../../../src/runtime/operators/sink.ts";
import { RecordFailedError } from "../../../src/runtime/dead_letter.ts";
import { OperatorHarness } from "../../_support/operator_harness.ts";
import { guardHarness, thrown } from "../../_support/guard_harness.ts";

class CollectingSink {
  readonly written: string[] = [];
  finished = 0;
  write(values: readonly string[], timestamps: readonly number[]): void {
    this.written.push(...values.map((v, i) => `${v}@${timestamps[i]}`));
  }
  finish(): void {
    this.finished++;
  }
}

Deno.test("SinkOperator writes each batch to its sink and emits no records", () => {
  const sink = new CollectingSink();
  const h = new OperatorHarness<string, never>(new SinkOperator(sink)).open();
  h.batch(["a", "b"], [1, 2]).batch([], []);
  assert.deepEqual(sink.written, ["a@1", "b@2"]);
  assert.deepEqual(h.batches, []);
});

Deno.test("SinkOperator forwards watermarks and statuses so the subtask's metrics see them", () => {
  const h = new OperatorHarness<string, never>(
    new SinkOperator(new CollectingSink()),
  ).open();
  h.watermark(5).status("idle").status("active").watermark(Infinity);
  assert.deepEqual(h.take(), ["W5", "idle", "active", "WInfinity"]);
});

Deno.test("SinkOperator.finish() finishes the sink once; a sink without finish() is fine", () => {
  const sink = new CollectingSink();
  new OperatorHarness<string, never>(new SinkOperator(sink)).open().finish();
  assert.equal(sink.finished, 1);
  const plain = new OperatorHarness<number, never>(
    new SinkOperator<number>({ write() {} }),
  ).open();
  plain.finish();
  assert.equal(plain.operator.snapshotState(), null);
});

Deno.test("SinkOperator rejects a sink without write(), naming 'sink'", () => {
  assert.throws(
    () => new SinkOperator({} as unknown as CollectingSink),
    { name: "TypeError", message: /'sink'/ },
  );
});

// --- a record the sink refuses is set aside -----------------------------

Deno.test("SinkOperator sets aside a record whose write throws, retrying the batch record by record, when the writer declares atomicWrites", () => {
  const written: string[] = [];
  const h = guardHarness({
    operators: () => [
      new SinkOperator<string>({
        atomicWrites: true,
        write(values) {
          // All or nothing, as SinkWriter.write asks.
          if (values.includes("bad")) {
            throw new RangeError("Cannot store 'bad'");
          }
          written.push(...values);
        },
      }),
    ],
  });
  h.push(["a", "bad", "c"], [1, 2, 3]);
  assert.deepEqual(written, ["a", "c"]);
  assert.deepEqual(h.letters().map((l) => [l.value, l.position]), [
    ["bad", "channel 0, record 1"],
  ]);
});

Deno.test("SinkOperator lets a write that throws fail the job when the writer does not declare atomicWrites, staging nothing twice", () => {
  // A two-phase writer that stages record by record: the records before
  // the throw are staged when it throws.
  const staged: number[] = [];
  const h = guardHarness({
    operators: () => [
      new SinkOperator<number>({
        write(values) {
          for (const v of values) {
            if (v < 0) throw new RangeError("Cannot stage a negative number");
            staged.push(v);
          }
        },
      }),
    ],
  });
  const error = thrown(() => h.push([1, 2, -3, 4], [1, 2, 3, 4]));
  assert.ok(error instanceof RangeError);
  assert.deepEqual(staged, [1, 2]);
  assert.deepEqual(h.letters(), []);
});

Deno.test("SinkOperator sets aside a record its writer's check refuses, before it is written or held", () => {
  for (const stepSnapshots of [false, true]) {
    const written: string[] = [];
    const h = guardHarness({
      operators: () => [
        new SinkOperator<string>({
          check(value) {
            if (value.length > 3) {
              throw new RangeError("Cannot store a long value");
            }
          },
          write(values) {
            written.push(...values);
          },
          snapshotState: () => null,
        }),
      ],
      stepSnapshots,
    });
    h.push(["a", "long!", "c"], [1, 2, 3]);
    h.subtask.snapshot(1);
    assert.deepEqual(written, ["a", "c"]);
    assert.deepEqual(h.letters().map((l) => l.position), [
      "channel 0, record 1",
    ]);
  }
});

Deno.test("SinkOperator sets aside the records its writer refused when it closed a transaction, at the checkpoint and at the end of input", async () => {
  const staged: string[] = [];
  let refused: string[] = [];
  const writer = {
    write(values: readonly string[]) {
      staged.push(...values);
    },
    // Judges records when it closes a transaction, as KvTableSink does.
    snapshotState() {
      refused = staged.filter((v) => v.length > 3);
      staged.length = 0;
      return null;
    },
    finish() {
      this.snapshotState();
      return Promise.resolve();
    },
    takeRefused() {
      const taken = refused.map((value) => ({
        value,
        timestamp: 9,
        error: new RangeError("Cannot store a long value"),
      }));
      refused = [];
      return taken;
    },
  };
  const h = guardHarness({ operators: () => [new SinkOperator(writer)] });
  h.push(["a", "long!"], [1, 2]);
  assert.deepEqual(h.letters(), []);
  h.subtask.snapshot(1);
  assert.deepEqual(h.letters().map((l) => [l.value, l.position]), [
    ["long!", "checkpoint 1"],
  ]);
  h.push(["b", "long?"], [3, 4]);
  h.subtask.receive(0, { kind: "end" });
  await h.subtask.settle();
  assert.deepEqual(h.letters().map((l) => [l.value, l.position]), [
    ["long?", "end of input"],
  ]);
});

Deno.test('SinkOperator under "fail" throws RecordFailedError for a record its writer refused at the end of input, leaving the final commit handled', async () => {
  let failedCommit: Promise<void> | null = null;
  const writer = {
    write() {},
    finish() {
      failedCommit = Promise.reject(new Error("Cannot commit"));
      return failedCommit;
    },
    takeRefused: () => [{
      value: "long!",
      timestamp: 1,
      error: new RangeError("Cannot store a long value"),
    }],
  };
  const h = guardHarness({
    operators: () => [new SinkOperator(writer)],
    errorPolicy: "fail",
  });
  const error = thrown(() => h.subtask.receive(0, { kind: "end" }));
  assert.ok(error instanceof RecordFailedError);
  assert.equal(error.letter.position, "end of input");
  // A turn later it is rejected, but was handled: an unhandled rejection
  // would fail this test.
  await new Promise((resolve) => setTimeout(resolve, 0));
  await assert.rejects(failedCommit!);
});
