// POST /ingest/:stream with an Idempotency-Key (IETF
// draft-ietf-httpapi-idempotency-key-header), and a batch appended whole
// or not at all whatever the answer.

import assert from "node:assert/strict";
import {
  errorOf,
  ingestTest,
  postJson,
  readValues,
} from "./_ingest_support.ts";
import { observe, type Observed } from "../_support/observed_kv.ts";
import { faultyKv, isFinal } from "../_support/faulty_kv.ts";
import { KvLog } from "../../src/connectors/sources/kv_log.ts";

const AT = 1_767_225_600_000;
const batch = [
  { at: AT, key: "a", n: 1 },
  { at: AT + 1, key: "b", n: 2 },
  { at: AT + 2, n: 3 },
];

ingestTest(
  "POST /ingest/:stream appends a batch sent twice with one Idempotency-Key once and answers the repeat with the first offsets",
  async ({ app, log }) => {
    const headers = { "Idempotency-Key": "8e03978e-40d5-43e8-bc93" };
    const first = await postJson(app, batch, headers);
    assert.equal(first.status, 202);
    assert.equal(first.headers.get("Idempotent-Replayed"), null);
    const answer = await first.json();
    assert.deepEqual(
      [answer.accepted, answer.appended, answer.duplicate],
      [3, 3, false],
    );
    const again = await postJson(app, batch, headers);
    assert.equal(again.status, 202);
    assert.equal(again.headers.get("Idempotent-Replayed"), "true");
    assert.deepEqual(await again.json(), {
      ...answer,
      appended: 0,
      duplicate: true,
    });
    // The quoted form (an RFC 8941 sf-string) is the same key.
    const quoted = await postJson(app, batch, {
      "Idempotency-Key": '"8e03978e-40d5-43e8-bc93"',
    });
    assert.equal((await quoted.json()).duplicate, true);
    assert.equal((await readValues(log)).flat().length, 3);
    // Another key is another batch.
    const other = await postJson(app, batch, { "Idempotency-Key": "k2" });
    assert.equal((await other.json()).appended, 3);
    assert.equal((await readValues(log)).flat().length, 6);
  },
  { partitions: 2 },
);

ingestTest(
  "POST /ingest/:stream answers 422 to an Idempotency-Key sent again with another body, appending nothing",
  async ({ app, log }) => {
    const headers = { "Idempotency-Key": "order-17" };
    assert.equal((await postJson(app, batch, headers)).status, 202);
    const res = await postJson(app, batch.slice(0, 2), headers);
    assert.equal(res.status, 422);
    const error = await errorOf(res);
    assert.equal(error.code, "IDEMPOTENCY_KEY_REUSED");
    assert.match(
      error.message,
      /'Idempotency-Key' "order-17" was used for another body within the last 24 h/,
    );
    // Same records as NDJSON: another body too.
    const ndjson = await Promise.resolve(app.request("/ingest/clicks", {
      method: "POST",
      headers: { "Content-Type": "application/x-ndjson", ...headers },
      body: batch.map((r) => JSON.stringify(r)).join("\n"),
    }));
    assert.equal(ndjson.status, 422);
    await ndjson.body?.cancel();
    assert.equal((await readValues(log)).flat().length, 3);
  },
);

ingestTest(
  "POST /ingest/:stream refuses an Idempotency-Key that is empty, too long, not printable ASCII or more than one",
  async ({ app, log }) => {
    for (
      const key of [
        "",
        '""',
        "k".repeat(256),
        "clé",
        "two words",
        '"a", "b"',
        "a,b",
        '"unterminated',
      ]
    ) {
      const res = await postJson(app, batch, { "Idempotency-Key": key });
      assert.equal(res.status, 400, key);
      const error = await errorOf(res);
      assert.equal(error.code, "BAD_REQUEST");
      assert.match(
        error.message,
        /'Idempotency-Key' must be one key of 1 to 255 printable ASCII/,
      );
    }
    assert.equal(
      (await postJson(app, batch, { "Idempotency-Key": "k".repeat(255) }))
        .status,
      202,
    );
    assert.equal((await readValues(log)).flat().length, 3);
  },
);

const seen: Observed[] = [];

ingestTest(
  "POST /ingest/:stream keeps an Idempotency-Key in the batch's own commit, for idempotencyTtlMs",
  async ({ app }) => {
    const observed = seen.at(-1)!;
    const res = await postJson(app, batch, { "Idempotency-Key": "k1" });
    assert.equal(res.status, 202);
    await res.body?.cancel();
    // One commit: the records of both partitions, the heads and the key.
    assert.deepEqual(observed.commits, [true]);
    const keySet = observed.sets.find((s) => s.key.includes("k1"));
    assert.deepEqual(keySet?.options, { expireIn: 3_600_000 });
    assert.ok(observed.sets.some((s) => s.key.includes("head")));
  },
  {
    partitions: 2,
    idempotencyTtlMs: 3_600_000,
    wrapKv(kv) {
      const { kv: wrapped, seen: observed } = observe(kv);
      seen.push(observed);
      return wrapped;
    },
  },
);

let crash = false;

ingestTest(
  "POST /ingest/:stream that fails at its commit answers 503 and, as it did not land, leaves neither records nor its Idempotency-Key, so a retry appends once",
  async ({ app, log }) => {
    crash = true;
    const headers = { "Idempotency-Key": "retry-me" };
    const failed = await postJson(app, batch, headers);
    // The store could not say whether the commit landed.
    assert.equal(failed.status, 503);
    assert.equal((await errorOf(failed)).code, "UNAVAILABLE");
    assert.deepEqual(await readValues(log), [[], []]);
    assert.equal(await log.recall("retry-me"), null);
    crash = false;
    const retried = await postJson(app, batch, headers);
    assert.equal((await retried.json()).appended, 3);
    assert.equal((await readValues(log)).flat().length, 3);
  },
  {
    partitions: 2,
    wrapKv: (kv) =>
      observe(kv, () => {
        if (crash) throw new Error("the process died at the commit");
      }).kv,
  },
);

let loseAnswer = false;

ingestTest(
  "POST /ingest/:stream whose commit lands but loses its answer gets 202 as appended, not as a repeat, and the batch is stored once",
  async ({ app, log }) => {
    loseAnswer = true;
    const headers = { "Idempotency-Key": "lost-answer" };
    const res = await postJson(app, batch, headers);
    assert.equal(res.status, 202);
    assert.equal(res.headers.get("Idempotent-Replayed"), null);
    const answer = await res.json();
    assert.deepEqual(
      [answer.appended, answer.duplicate],
      [3, false],
    );
    assert.equal(loseAnswer, false, "the answer was lost once");
    assert.equal((await readValues(log)).flat().length, 3);
    const again = await postJson(app, batch, headers);
    assert.equal((await again.json()).duplicate, true);
  },
  {
    partitions: 2,
    wrapKv: (kv) =>
      faultyKv(kv, {
        async commit(commit) {
          const result = await commit.send();
          if (loseAnswer && isFinal(commit)) {
            loseAnswer = false;
            throw new Error("connection reset by peer");
          }
          return result;
        },
      }),
  },
);

let lockedReads = 0;

ingestTest(
  "POST /ingest/:stream retries an Idempotency-Key lookup that SQLite's lock failed, and answers 503 leaving nothing when it stays locked",
  async ({ app, log }) => {
    lockedReads = 2;
    const headers = { "Idempotency-Key": "locked" };
    const ok = await postJson(app, batch, headers);
    assert.equal(ok.status, 202);
    assert.equal((await ok.json()).appended, 3);
    lockedReads = Infinity;
    const res = await postJson(app, batch, { "Idempotency-Key": "stuck" });
    assert.equal(res.status, 503);
    assert.equal(res.headers.get("Retry-After"), "1");
    assert.equal((await errorOf(res)).code, "UNAVAILABLE");
    lockedReads = 0;
    assert.equal((await readValues(log)).flat().length, 3);
    assert.equal(await log.recall("stuck"), null);
  },
  {
    partitions: 2,
    retry: { attempts: 3, sleep: () => Promise.resolve() },
    wrapKv: (kv) =>
      faultyKv(kv, {
        read() {
          if (lockedReads-- > 0) throw new TypeError("database is locked");
        },
      }),
  },
);

let racing: ((n: number) => Promise<void>) | null = null;

ingestTest(
  "POST /ingest/:stream answers 503 when another process keeps winning the race, and leaves nothing behind",
  async ({ app, log, kv }) => {
    // Another appender commits to the stream just before each commit.
    const other = new KvLog<Record<string, unknown>>(kv, "clicks", {
      partitions: 2,
    });
    racing = async () => {
      await other.append(0, [{ value: { other: true }, timestamp: AT }]);
    };
    const headers = { "Idempotency-Key": "busy" };
    const res = await postJson(app, batch, headers);
    assert.equal(res.status, 503);
    assert.equal(res.headers.get("Retry-After"), "1");
    assert.equal((await errorOf(res)).code, "ATOMIC_CONFLICT");
    const stored = (await readValues(log)).flat();
    assert.ok(stored.every((r) => r.other === true), "nothing of the batch");
    assert.equal(await log.recall("busy"), null);
    racing = null;
    const retried = await postJson(app, batch, headers);
    assert.equal((await retried.json()).appended, 3);
    assert.equal((await readValues(log)).flat().filter((r) => r.n).length, 3);
  },
  {
    partitions: 2,
    retry: { attempts: 4, sleep: () => Promise.resolve() },
    wrapKv: (kv) =>
      observe(kv, async (n) => {
        await racing?.(n);
      }).kv,
  },
);

ingestTest(
  "POST /ingest/:stream appends concurrent sends of one batch under one Idempotency-Key once",
  async ({ app, log }) => {
    const headers = { "Idempotency-Key": "burst" };
    const answers = await Promise.all(
      Array.from(
        { length: 8 },
        async () => await (await postJson(app, batch, headers)).json(),
      ),
    );
    assert.deepEqual(
      answers.map((a) => a.duplicate).filter((d) => d === false),
      [false],
    );
    const offsets = answers.map((a) => JSON.stringify(a.offsets));
    assert.equal(new Set(offsets).size, 1, "every answer has the offsets");
    assert.equal((await readValues(log)).flat().length, 3);
  },
  { partitions: 2 },
);

ingestTest(
  "POST /ingest/:stream records an empty batch's Idempotency-Key too",
  async ({ app, log }) => {
    const headers = { "Idempotency-Key": "nothing" };
    const first = await (await postJson(app, [], headers)).json();
    assert.deepEqual([first.accepted, first.duplicate], [0, false]);
    const again = await (await postJson(app, [], headers)).json();
    assert.deepEqual([again.accepted, again.duplicate], [0, true]);
    assert.equal(await log.head(0), 0);
  },
);

ingestTest(
  "POST /ingest/:stream appends a 1 MiB body over 64 partitions with its Idempotency-Key as one append, and replays it",
  async ({ app, log }) => {
    const records = Array.from({ length: 4_800 }, (_, i) => ({
      at: AT + i,
      key: `k${i}`,
      pad: "x".repeat(i % 3 === 0 ? 20 : 250),
    }));
    const body = JSON.stringify(records);
    assert.ok(body.length > 1_000_000 && body.length <= 1_048_576);
    const headers = { "Idempotency-Key": "big" };
    const first = await postJson(app, body, headers);
    assert.equal(first.status, 202);
    const answer = await first.json();
    assert.equal(answer.offsets.length, 64);
    const again = await (await postJson(app, body, headers)).json();
    assert.deepEqual(again.offsets, answer.offsets);
    assert.equal(again.duplicate, true);
    assert.equal((await readValues(log)).flat().length, 4_800);
  },
  { partitions: 64 },
);
