import assert from "node:assert/strict";
import { RecordFailedError } from "../../src/runtime/dead_letter.ts";
import { FilterOperator } from "../../src/runtime/operators/filter.ts";
import { MapOperator } from "../../src/runtime/operators/map.ts";
import { ProcessOperator } from "../../src/runtime/operators/process.ts";
import { KeyedProcessOperator } from "../../src/runtime/operators/keyed_process.ts";
import { hashPartitioner } from "../../src/runtime/partitioner.ts";
import { PassThroughOperator } from "../../src/runtime/pass_through.ts";
import { guardHarness, thrown } from "../_support/guard_harness.ts";

// A map that throws on the record "bad", as user code does on bad data.
function parse() {
  return new MapOperator<unknown, unknown>((v) => {
    if (v === "bad") throw new TypeError(`Cannot parse '${v}'`);
    return String(v).toUpperCase();
  });
}

const descriptors = [{ id: "map-2", name: "Map", state: {} }];

Deno.test('Subtask under "dead-letter" sets a throwing record aside with its operator, position, error and time, and goes on', () => {
  const h = guardHarness({ operators: () => [parse()], descriptors });
  h.push(["a", "bad", "c"], [10, 20, 30]);
  assert.deepEqual(h.out, ["A@10", "C@30"]);
  const [letter, ...rest] = h.letters();
  assert.equal(rest.length, 0);
  assert.deepEqual({ ...letter, id: undefined }, {
    id: undefined,
    operator: "Map",
    subtask: 0,
    value: "bad",
    timestamp: 20,
    error: { name: "TypeError", message: "Cannot parse 'bad'" },
    position: "channel 0, record 1",
    reason: "dead-letter",
    at: 1_000,
  });
  assert.match(letter.id, /^[0-9a-f]{16}$/);
  assert.deepEqual(h.letters(), [], "taken once");
});

Deno.test("Subtask counts positions per input channel across batches", () => {
  const h = guardHarness({
    operators: () => [parse()],
    numInputChannels: 2,
  });
  h.push(["a", "b"], [1, 2], 1);
  h.push(["c"], [3], 0);
  h.push(["d", "bad"], [4, 5], 1);
  assert.deepEqual(h.letters().map((l) => l.position), ["channel 1, record 3"]);
});

Deno.test("Subtask names dead letters by uid, and two operators of one name get two ids for one record", () => {
  const named = guardHarness({
    operators: () => [parse()],
    descriptors: [{ id: "map-2", uid: "parser", name: "Map", state: {} }],
  });
  named.push(["bad"]);
  const [byUid] = named.letters();
  assert.equal(byUid.operator, "parser");
  const other = guardHarness({
    operators: () => [parse()],
    descriptors: [{ id: "map-5", name: "Map", state: {} }],
  });
  other.push(["bad"]);
  const plain = guardHarness({ operators: () => [parse()], descriptors });
  plain.push(["bad"]);
  const [a] = other.letters();
  const [b] = plain.letters();
  assert.equal(a.operator, b.operator);
  assert.notEqual(a.id, b.id);
});

Deno.test('Subtask under "fail" throws RecordFailedError with the letter and the cause, and sets the record aside as "quarantined" once its strike is in the quarantine', () => {
  const first = guardHarness({
    operators: () => [parse()],
    errorPolicy: "fail",
    descriptors,
  });
  first.push(["a"], [1]);
  const error = thrown(() => first.push(["b", "bad", "c"], [2, 3, 4]));
  assert.ok(error instanceof RecordFailedError);
  assert.equal(error.code, "RECORD_FAILED");
  assert.equal(error.name, "RecordFailedError");
  assert.ok(error.cause instanceof TypeError);
  assert.equal(error.letter.position, "channel 0, record 2");
  assert.equal(error.letter.operator, "Map");
  assert.match(error.message, /channel 0, record 2.*'Map'.*Cannot parse/);
  assert.deepEqual(first.letters(), [], "nothing set aside under fail");

  // The runtime restarts from the checkpoint before, quarantining the id.
  const again = guardHarness({
    operators: () => [parse()],
    errorPolicy: "fail",
    quarantine: new Set([error.strike]),
    descriptors,
  });
  again.push(["a"], [1]);
  again.push(["b", "bad", "c"], [2, 3, 4]);
  assert.deepEqual(again.out, ["A@1", "B@2", "C@4"]);
  const [letter] = again.letters();
  assert.equal(letter.id, error.letter.id);
  assert.equal(letter.reason, "quarantined");
  // Another bad record at another position still fails.
  assert.ok(
    thrown(() => again.push(["bad"], [5])) instanceof RecordFailedError,
  );
});

Deno.test('Subtask under "fail" quarantines a record by its strike, wherever it comes after the restore, and its letter keeps its id', () => {
  const setup = {
    operators: () => [parse()],
    errorPolicy: "fail" as const,
    descriptors,
  };
  const first = guardHarness(setup);
  const error = thrown(() => first.push(["a", "b", "bad"], [1, 2, 3]));
  assert.ok(error instanceof RecordFailedError);
  assert.match(error.strike, /^[0-9a-f]{16}$/);
  assert.equal(error.letter.position, "channel 0, record 2");
  // After the restore an upstream source interleaves its partitions in
  // another order: the record comes first on the channel.
  const again = guardHarness({
    ...setup,
    quarantine: new Set([error.strike]),
  });
  again.push(["bad", "a", "b"], [3, 1, 2]);
  assert.deepEqual(again.out, ["A@1", "B@2"]);
  const [letter] = again.letters();
  assert.equal(letter.reason, "quarantined");
  assert.equal(letter.position, "channel 0, record 0");
  assert.equal(letter.id, error.letter.id, "one letter for the record");
  // The same value at another timestamp is another record: it fails.
  assert.ok(
    thrown(() => again.push(["bad"], [4])) instanceof RecordFailedError,
  );
});

Deno.test("Subtask gives a failing record downstream the same id wherever it comes in its channel: a position there is for people only", () => {
  const setup = { operators: () => [parse()], descriptors };
  const h = guardHarness(setup);
  h.push(["a", "b"], [1, 2]);
  const snapshot = h.snapshot();
  assert.deepEqual(snapshot.received, [2]);
  h.push(["c", "bad"], [3, 4]);
  const [before] = h.letters();
  const restored = guardHarness(setup, snapshot);
  // Batches may be cut differently after a restore: positions still agree.
  restored.push(["c"], [3]);
  restored.push(["bad"], [4]);
  const [after] = restored.letters();
  assert.equal(after.position, "channel 0, record 3");
  assert.equal(after.id, before.id);
  // Elsewhere in the channel (an upstream source interleaved its
  // partitions in another order): another position, the same id.
  const fresh = guardHarness(setup);
  fresh.push(["bad"], [4]);
  const [moved] = fresh.letters();
  assert.equal(moved.position, "channel 0, record 0");
  assert.equal(moved.id, before.id);
  // Another timestamp is another record.
  fresh.push(["bad"], [5]);
  assert.notEqual(fresh.letters()[0].id, before.id);
});

Deno.test("Subtask identifies a record a chained operator rejects after a filter by operator, timestamp and value, whatever the batches", () => {
  const operators =
    () => [new FilterOperator<unknown>((v) => v !== "x"), parse()];
  const h = guardHarness({ operators });
  h.push(["x", "bad", "c"], [1, 2, 3]);
  const [letter] = h.letters();
  assert.equal(letter.position, "channel 0, batch from record 0, item 0");
  const other = guardHarness({ operators });
  other.push(["x"], [1]);
  other.push(["bad"], [2]);
  assert.equal(other.letters()[0].id, letter.id);
});

Deno.test("Subtask gives two identical records rejected after a filter one id: the known limit of DeadLetter.id", () => {
  const h = guardHarness({
    operators: () => [new FilterOperator<unknown>((v) => v !== "x"), parse()],
  });
  h.push(["x", "bad", "bad"], [5, 5, 5]);
  const letters = h.letters();
  assert.deepEqual(letters.map((l) => l.position), [
    "channel 0, batch from record 0, item 0",
    "channel 0, batch from record 0, item 1",
  ]);
  assert.equal(letters[0].id, letters[1].id, "the log keeps one of them");
});

Deno.test("Subtask sets no record aside while it replays input to rebuild event time", () => {
  const h = guardHarness({ operators: () => [parse()], errorPolicy: "fail" });
  h.subtask.beginReplay();
  h.push(["bad"], [1]);
  h.subtask.endReplay();
  assert.deepEqual(h.letters(), []);
});

Deno.test("Subtask sets aside, as a letter of '<target> key', a record whose key is null, an object or an array, at any downstream parallelism", () => {
  for (const numChannels of [1, 3]) {
    const h = guardHarness({
      operators: () => [new PassThroughOperator()],
      partitioner: hashPartitioner((v) => (v as { k: unknown }).k, 128),
      numChannels,
      target: "window-3",
    });
    h.push([{ k: "a" }, { k: null }, { k: {} }, { k: [] }, { k: 1 }]);
    assert.equal(h.out.length, 2, `both good records go on (${numChannels})`);
    const letters = h.letters();
    assert.deepEqual(letters.map((l) => l.operator), [
      "window-3 key",
      "window-3 key",
      "window-3 key",
    ]);
    assert.deepEqual(letters.map((l) => l.value), [{ k: null }, { k: {} }, {
      k: [],
    }]);
    assert.match(letters[0].error.message, /Cannot hash key/);
    assert.equal(letters[0].position, "channel 0, record 1");
  }
});

Deno.test("Subtask sets aside a record whose key selector throws, by the subtask that routes it", () => {
  const h = guardHarness({
    operators: () => [new FilterOperator<unknown>(() => true)],
    partitioner: hashPartitioner((v) => (v as { k: string }).k.length, 128),
    numChannels: 2,
  });
  h.push([{ k: "a" }], [1]);
  h.push([{ k: "b" }, {}], [2, 3]);
  const [letter] = h.letters();
  assert.equal(letter.operator, "edge 0 key");
  assert.equal(letter.error.name, "TypeError");
  // The filter made new batches: the record is identified by its value.
  assert.equal(letter.position, "channel 0, batch from record 1, item 1");
  assert.equal(h.out.length, 2);
});

Deno.test("Subtask sets aside what the watermark rebuilt by a replay fires once the replay ends", () => {
  const h = guardHarness({
    operators: () => [
      new ProcessOperator<unknown, unknown>((v, _ctx, out) => {
        out(v);
      }),
      new KeyedProcessOperator<unknown, unknown, string, undefined>({
        processElement(_v, ctx) {
          ctx.registerEventTimeTimer(5);
        },
        onTimer() {
          throw new Error("Cannot fire");
        },
      }, { keySelector: String }),
    ],
  });
  h.push(["a"], [1]);
  h.subtask.beginReplay();
  h.watermark(10);
  h.subtask.endReplay();
  const [letter] = h.letters();
  assert.deepEqual(letter.value, { key: "a", timestamp: 5 });
  assert.equal(letter.position, "watermark 10");
});

Deno.test('Subtask under "fail" names the site of a failure, and sets aside as "quarantined" every record that fails at a quarantined site, whatever its content', () => {
  const setup = {
    operators: () => [parse()],
    errorPolicy: "fail" as const,
    descriptors,
  };
  const error = thrown(() => guardHarness(setup).push(["bad"], [1]));
  assert.ok(error instanceof RecordFailedError);
  assert.equal(error.site, "site:map-2|0");
  const again = guardHarness({ ...setup, quarantine: new Set([error.site]) });
  // Another timestamp: another strike, set aside all the same.
  again.push(["a", "bad", "bad"], [2, 3, 4]);
  assert.deepEqual(again.out, ["A@2"]);
  assert.deepEqual(again.letters().map((l) => [l.timestamp, l.reason]), [
    [3, "quarantined"],
    [4, "quarantined"],
  ]);
  // Another operator key is another site: it fails.
  const other = guardHarness({
    ...setup,
    descriptors: [{ id: "map-5", name: "Map", state: {} }],
    quarantine: new Set([error.site]),
  });
  assert.ok(
    thrown(() => other.push(["bad"], [3])) instanceof RecordFailedError,
  );
});

Deno.test("Subtask sets aside a record that cannot be printed, thrown with an error that cannot be either, with its message cut to 2,048 characters", () => {
  const unprintable = Object.create(null);
  const h = guardHarness({
    operators: () => [
      new MapOperator<unknown, unknown>((v) => {
        if (v === "long") throw new RangeError("x".repeat(10_000));
        throw unprintable;
      }),
    ],
  });
  h.push([unprintable, "long"], [1, 2]);
  const [first, second] = h.letters();
  assert.equal(first.value, unprintable);
  assert.deepEqual(first.error, {
    name: "object",
    message: "(a object that cannot be printed)",
  });
  assert.equal(second.error.name, "RangeError");
  assert.equal(
    second.error.message,
    `${"x".repeat(2_048)}… (cut: 10000 characters)`,
  );
});
