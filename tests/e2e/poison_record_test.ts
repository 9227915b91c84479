// No record can kill a job, on the command line: a job whose
// durable log holds a record its key selector cannot take (before, every
// start replayed it from the log and died again, `--restore none`
// included) runs to its end and keeps serving, with every other record
// counted, the record in the dead-letter log and a loud line saying so. A
// restart that reads the log again (`--restore latest`) changes nothing:
// the same table, the letter listed once. Under `--error-policy fail` the
// job restarts once from the start, then quarantines the record; the
// strike is durable, so the next process quarantines it at once.

import assert from "node:assert/strict";
import { readTable } from "../../src/connectors/sinks/kv_table.ts";
import { KvStorage } from "../../src/actors/kv/kv_storage.ts";
import { DeadLetterLog } from "../../src/actors/dead_letter_log.ts";
import type { DeadLetter } from "../../src/runtime/dead_letter.ts";
import { freePort } from "../_support/free_port.ts";
import { Dev } from "../_support/dev_process.ts";
import {
  type EventCount,
  POISON,
  RECORDS,
  seedEvents,
  TABLE,
} from "./jobs/poison_counts.ts";

const JOB = "tests/e2e/jobs/poison_counts.ts";
const NAME = "poison_counts";

/** Every window count of the records but the poison one, by brute force. */
function expected(): string[] {
  const counts = new Map<string, number>();
  for (let i = 0; i < RECORDS; i++) {
    if (i === POISON) continue;
    const id = `k${i % 3}@${Math.floor(i / 1_000) * 1_000}`;
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return [...counts].map(([id, n]) => `${id}=${n}`).sort();
}

async function read(
  store: string,
): Promise<{ rows: string[]; letters: DeadLetter[] }> {
  const kv = await Deno.openKv(store);
  try {
    const rows = await readTable<EventCount>(kv, TABLE);
    const log = new DeadLetterLog(
      new KvStorage(kv, ["weir", NAME, "dead-letters"]),
    );
    return {
      rows: [...rows.values()].map((r) => `${r.id}=${r.count}`).sort(),
      letters: await log.list(),
    };
  } finally {
    kv.close();
  }
}

/** Runs the job to its end, checks that it serves, stops it; returns its lines. */
async function runToEnd(store: string, args: string[]): Promise<string[]> {
  const port = freePort();
  const dev = new Dev([JOB, "--store", store, "--port", String(port), ...args]);
  await dev.line(/serving http:\/\/127\.0\.0\.1:\d+/);
  await dev.line(new RegExp(`job '${NAME}' finished`));
  // Still serving after the poison record.
  const response = await fetch(`http://127.0.0.1:${port}/jobs/${NAME}`);
  assert.equal(response.status, 200);
  await response.body?.cancel();
  dev.child.kill("SIGINT");
  assert.equal(await dev.exit(), 0, dev.lines.join("\n"));
  return dev.lines;
}

async function seeded(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "weir-poison-" });
  const store = `${dir}/weir.sqlite`;
  const kv = await Deno.openKv(store);
  await seedEvents(kv);
  kv.close();
  return store;
}

Deno.test("deno task dev: a poison record in the durable log is set aside and the job finishes; a restart changes nothing and lists the letter once", async () => {
  const store = await seeded();
  const lines = await runToEnd(store, []);
  assert.match(lines.join("\n"), /errorPolicy "dead-letter" \(default\)/);
  const said = lines.filter((l) => l.startsWith("weir: set aside a record"));
  assert.equal(said.length, 1, lines.join("\n"));
  assert.match(
    said[0],
    /^weir: set aside a record of window-\d+ key subtask \d at .*: TypeError: Cannot hash key .*null.* \(dead-letter log: GET \/jobs\/poison_counts\/dead-letters\)$/,
  );
  const first = await read(store);
  assert.deepEqual(first.rows, expected());
  assert.equal(first.letters.length, 1);
  assert.deepEqual(first.letters[0].value, { key: null, ts: POISON });
  assert.equal(first.letters[0].reason, "dead-letter");

  // The whole log again (no checkpoints): the same letter, not a new one.
  const again = await runToEnd(store, ["--restore", "latest"]);
  assert.deepEqual(
    again.filter((l) => l.startsWith("weir: set aside")),
    [],
    "nothing new to say",
  );
  assert.deepEqual(await read(store), first);
});

Deno.test("deno task dev --error-policy fail: the job restarts once, quarantines the poison record, and the next process quarantines it at once", async () => {
  const store = await seeded();
  const lines = await runToEnd(store, ["--error-policy", "fail"]);
  assert.match(lines.join("\n"), /errorPolicy "fail" \(command line\)/);
  const restarts = lines.filter((l) => l.includes("restarts from"));
  assert.equal(restarts.length, 1, lines.join("\n"));
  assert.match(
    restarts[0],
    /^weir: job 'poison_counts' restarts from the start as a record of window-\d+ key .* failed \(errorPolicy "fail"\): TypeError: Cannot hash key/,
  );
  const first = await read(store);
  assert.deepEqual(first.rows, expected());
  assert.equal(first.letters.length, 1);
  assert.equal(first.letters[0].reason, "quarantined");

  const again = await runToEnd(store, [
    "--error-policy",
    "fail",
    "--restore",
    "latest",
  ]);
  assert.deepEqual(again.filter((l) => l.includes("restarts from")), []);
  assert.deepEqual(await read(store), first);
});
