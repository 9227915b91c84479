// Exactly-once ingest under concurrency: 16 clients send 200
// events each, in batches, to two services ("processes": each its own app,
// KvLog and Deno.Kv handle) sharing one KV file, so their appends really
// race. A seeded random plan resends batches under the same Idempotency-Key,
// sometimes while the first send is still in flight, and retries every 503.
// Afterwards every event is in the log exactly once, every batch whole and
// in order, and the answers add up.

import assert from "node:assert/strict";
import type { Hono } from "hono";
import { createApp } from "../../src/http/app.ts";
import { KvLog } from "../../src/connectors/sources/kv_log.ts";
import { ManualClock } from "../../src/time/clock.ts";

type Json = Record<string, unknown>;

const CLIENTS = 16;
const EVENTS = 200;
const PARTITIONS = 4;
const SEED = 0x16_16;
// A client retries a 503 this often before the test calls it lost.
const MAX_RETRIES = 50;

/** mulberry32: a small seeded generator, so the plan is the same every run. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

interface Batch {
  readonly id: string;
  readonly body: string;
  readonly events: readonly string[];
  /** The Idempotency-Key, or `null` for a batch sent without one. */
  readonly key: string | null;
  /** Sent twice at once (keyed batches only). */
  readonly concurrentResend: boolean;
  /** Sent again after its answer (keyed batches only). */
  readonly laterResend: boolean;
}

function plan(random: () => number): Batch[][] {
  const keys = ["k0", "k1", "k2", "k3", "k4", 42, 7];
  return Array.from({ length: CLIENTS }, (_, client) => {
    const batches: Batch[] = [];
    for (let n = 0; n < EVENTS;) {
      const size = Math.min(EVENTS - n, 1 + Math.floor(random() * 25));
      const records = Array.from({ length: size }, (_, i) => {
        const record: Json = {
          id: `c${client}-e${n + i}`,
          at: 1_767_225_600_000 + n + i,
        };
        // Keyed records hash to a partition; keyless ones go round-robin.
        if (random() < 0.7) {
          record.key = keys[Math.floor(random() * keys.length)];
        }
        return record;
      });
      const keyed = random() < 0.8;
      batches.push({
        id: `c${client}-b${batches.length}`,
        body: JSON.stringify(records),
        events: records.map((r) => r.id as string),
        key: keyed ? `c${client}-b${batches.length}` : null,
        concurrentResend: keyed && random() < 0.3,
        laterResend: keyed && random() < 0.3,
      });
      n += size;
    }
    return batches;
  });
}

interface Tally {
  statuses: Map<number, number>;
  unavailable: number;
  appended: number;
  duplicates: number;
}

// One send, retried while the answer is 503; returns the final answer.
async function send(tally: Tally, batch: Batch, app: Hono): Promise<Json> {
  for (let retry = 0;; retry++) {
    const headers: Record<string, string> = {
      "Content-Type": "application/json",
    };
    if (batch.key !== null) headers["Idempotency-Key"] = batch.key;
    const res = await app.request("/ingest/events", {
      method: "POST",
      headers,
      body: batch.body,
    });
    const answer = await res.json() as Json;
    tally.statuses.set(
      res.status,
      (tally.statuses.get(res.status) ?? 0) + 1,
    );
    if (res.status === 503 && retry < MAX_RETRIES) {
      tally.unavailable++;
      continue;
    }
    assert.equal(
      res.status,
      202,
      `${batch.id}: ${JSON.stringify(answer)}`,
    );
    if (answer.duplicate === true) tally.duplicates++;
    else tally.appended += answer.accepted as number;
    return answer;
  }
}

Deno.test({
  name:
    "POST /ingest/:stream appends each batch exactly once under 16 concurrent clients, two services on one KV file and resends",
  sanitizeOps: true,
  sanitizeResources: true,
  async fn() {
    const dir = await Deno.makeTempDir();
    const path = `${dir}/store.sqlite`;
    const kvs = [await Deno.openKv(path), await Deno.openKv(path)];
    try {
      // Counts the races lost to the other service (each waits a while).
      let backoffs = 0;
      const sleep = (ms: number) => {
        backoffs++;
        return new Promise<void>((resolve) => setTimeout(resolve, ms));
      };
      const apps: Hono[] = kvs.map((kv) => {
        const log = new KvLog<Json>(kv, "events", {
          partitions: PARTITIONS,
          retry: { sleep },
        });
        return createApp({
          jobs: new Map(),
          streams: new Map([["events", {
            name: "events",
            log,
            timestampField: "at",
          }]]),
          clock: new ManualClock(0),
        });
      });
      const random = seeded(SEED);
      const batches = plan(random);
      const tally: Tally = {
        statuses: new Map(),
        unavailable: 0,
        appended: 0,
        duplicates: 0,
      };
      const pick = () => apps[Math.floor(random() * apps.length)];
      await Promise.all(batches.map(async (own) => {
        for (const batch of own) {
          const sends = [send(tally, batch, pick())];
          if (batch.concurrentResend) sends.push(send(tally, batch, pick()));
          await Promise.all(sends);
          if (batch.laterResend) await send(tally, batch, pick());
        }
      }));

      // Every event exactly once, every batch whole, in order, per partition.
      const reader = new KvLog<Json>(kvs[0], "events", {
        partitions: PARTITIONS,
      });
      const seen = new Map<string, number>();
      const where = new Map<string, [number, number]>();
      for (let p = 0; p < PARTITIONS; p++) {
        const records = await reader.read(p, 0, 1_000_000);
        assert.equal(records.length, await reader.head(p));
        for (const r of records) {
          const id = r.value.id as string;
          seen.set(id, (seen.get(id) ?? 0) + 1);
          where.set(id, [p, r.offset]);
        }
      }
      const all = batches.flat();
      const extra = [...seen].filter(([, n]) => n > 1);
      const missing = all.flatMap((b) => b.events).filter((e) => !seen.has(e));
      assert.deepEqual(
        { duplicated: extra.length, missing: missing.length },
        { duplicated: 0, missing: 0 },
        `duplicated e.g. ${JSON.stringify(extra.slice(0, 5))}`,
      );
      assert.equal(seen.size, CLIENTS * EVENTS);
      for (const batch of all) {
        // A batch's records in one partition are adjacent and in order.
        const byPartition = new Map<number, number[]>();
        for (const e of batch.events) {
          const [p, offset] = where.get(e)!;
          byPartition.set(p, [...(byPartition.get(p) ?? []), offset]);
        }
        for (const offsets of byPartition.values()) {
          offsets.forEach((o, i) => assert.equal(o, offsets[0] + i));
        }
      }
      assert.equal(tally.appended, CLIENTS * EVENTS);
      const resends = all.filter((b) => b.concurrentResend).length +
        all.filter((b) => b.laterResend).length;
      assert.equal(tally.duplicates, resends);
      console.log(
        `ingest concurrency: ${all.length} batches, ${resends} resends, ${tally.unavailable} answers 503 (retried), ${backoffs} lost races retried inside, statuses ${
          JSON.stringify([...tally.statuses])
        }, duplicates in the log ${extra.length}`,
      );
    } finally {
      for (const kv of kvs) kv.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
