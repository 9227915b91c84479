// A runtime's dead letters, written and reported: each new
// letter is counted and said once, loudly, with where to read it back; a
// letter already in the log (a record processed again after a restore) is
// neither; a flood is summed up after 10 lines a minute.

import assert from "node:assert/strict";
import { ManualClock } from "../../src/time/clock.ts";
import { MemoryStorage } from "../../src/actors/local/memory_storage.ts";
import { DeadLetterLog } from "../../src/actors/dead_letter_log.ts";
import { DeadLetterRecorder } from "../../src/actors/_dead_letter_recorder.ts";
import type { DeadLetter } from "../../src/runtime/dead_letter.ts";

function letter(n: number, at: number): DeadLetter {
  return {
    id: `id-${n}`,
    operator: "parse",
    subtask: 1,
    value: { n },
    timestamp: n,
    error: { name: "TypeError", message: `bad ${n}` },
    position: `channel 0, record ${n}`,
    reason: "dead-letter",
    at,
  };
}

Deno.test("DeadLetterRecorder writes letters once, counts and says only the new ones, and sums up a flood", async () => {
  const clock = new ManualClock(0);
  const lines: string[] = [];
  const log = new DeadLetterLog(new MemoryStorage());
  const recorder = new DeadLetterRecorder({
    job: "clicks",
    log,
    clock,
    print: (line) => lines.push(line),
  });
  await recorder.write([letter(0, 0)]);
  assert.deepEqual(lines, [
    "weir: set aside a record of parse subtask 1 at channel 0, record 0: TypeError: bad 0 (dead-letter log: GET /jobs/clicks/dead-letters)",
  ]);
  // Again (a restore processed the record again): nothing new.
  await recorder.write([letter(0, 5)]);
  assert.equal(recorder.count, 1);
  assert.equal(lines.length, 1);
  // A flood of 120 (more than one append holds): 10 lines this minute.
  await recorder.write(Array.from({ length: 120 }, (_, i) => letter(i + 1, 0)));
  assert.equal(recorder.count, 121);
  assert.equal(await log.count(), 121);
  assert.equal(lines.length, 10);
  clock.set(60_000);
  await recorder.write([letter(500, 60_000)]);
  assert.deepEqual(lines.slice(10), [
    "weir: set aside 111 more records of job 'clicks' in the last minute without a line each (dead-letter log: GET /jobs/clicks/dead-letters)",
    "weir: set aside a record of parse subtask 1 at channel 0, record 500: TypeError: bad 500 (dead-letter log: GET /jobs/clicks/dead-letters)",
  ]);
});
