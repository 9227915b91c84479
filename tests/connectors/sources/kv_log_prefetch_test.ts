import assert from "node:assert/strict";
import {
  type AppendRecord,
  KvLog,
} from "../../../src/connectors/sources/kv_log.ts";
import {
  type KvLogReader,
  KvLogSource,
} from "../../../src/connectors/sources/kv_log_source.ts";
import { ManualClock } from "../../../src/time/clock.ts";
import { kvTest } from "../_kv_support.ts";

/**
 * `n` records from offset 0, appended 4 to a batch: the reads below ask
 * for multiples of 4, so that taking whole batches adds nothing.
 */
async function seed(log: KvLog<number>, n: number): Promise<void> {
  for (let from = 0; from < n; from += 4) {
    const records: AppendRecord<number>[] = [];
    for (let i = from; i < Math.min(from + 4, n); i++) {
      records.push({ value: i, timestamp: i });
    }
    await log.append(0, records);
  }
}

/**
 * Makes every read of `log` take `latencyMs` of `clock`'s time: a read
 * lands once the test advances the clock past its start plus the latency.
 * Records the size each read asked for.
 */
function slowReads(log: KvLog<number>, clock: ManualClock, latencyMs: number) {
  const asked: number[] = [];
  const due: { at: number; land: () => void; landed: Promise<unknown> }[] = [];
  const read = log.read.bind(log);
  log.read = (partition, from, max, options) => {
    asked.push(max);
    let land = () => {};
    const landed = new Promise<void>((resolve) => land = resolve)
      .then(() => read(partition, from, max, options));
    due.push({ at: clock.now() + latencyMs, land, landed });
    return landed;
  };
  return {
    asked,
    /**
     * Advances the clock by `ms`; resolves once the reads due then have
     * landed in the reader (a few microtasks after their KV reads).
     */
    async advance(ms: number): Promise<void> {
      clock.advance(ms);
      const landing: Promise<unknown>[] = [];
      for (let i = due.length - 1; i >= 0; i--) {
        if (due[i].at > clock.now()) continue;
        const [read] = due.splice(i, 1);
        read.land();
        landing.push(read.landed);
      }
      await Promise.all(landing);
      for (let i = 0; i < 10; i++) await Promise.resolve();
    },
  };
}

/** Takes up to `max` records, in as many polls as it takes. */
function take(reader: KvLogReader<number>, now: number, max: number): number[] {
  const out: number[] = [];
  while (out.length < max) {
    const batch = reader.poll(now, max - out.length);
    if (batch === null) break;
    out.push(...batch.values);
  }
  return out;
}

kvTest(
  "KvLogSource reader doubles its reads while its consumer waits for them, up to maxPrefetch",
  async (kv) => {
    const log = new KvLog<number>(kv, "events", { partitions: 1 });
    await seed(log, 400);
    const clock = new ManualClock(0);
    const reads = slowReads(log, clock, 30);
    const reader = new KvLogSource(log, { prefetch: 4, maxPrefetch: 32 })
      .createReader(0, 1);
    // A consumer faster than a 30 ms round trip: it takes all there is,
    // then waits for the read in flight.
    const seen: number[] = [];
    for (let round = 0; round < 8; round++) {
      const batch = take(reader, clock.now(), Infinity);
      assert.ok(batch.length <= 1.5 * 32, "at most 1.5 × maxPrefetch buffered");
      seen.push(...batch);
      assert.equal(reader.nextAvailableAt(clock.now()), clock.now() + 50);
      await reads.advance(30);
    }
    assert.deepEqual(reads.asked, [4, 8, 16, 32, 32, 32, 32, 32]);
    seen.push(...take(reader, clock.now(), Infinity));
    assert.deepEqual(seen, Array.from({ length: seen.length }, (_, i) => i));
    // Read ahead is never consumed: the position is what was polled.
    const { positions } = reader.snapshotState() as { positions: number[] };
    assert.deepEqual(positions, [seen.length]);
    await reads.advance(30);
    await reader.close();
  },
);

kvTest(
  "KvLogSource reader keeps reads at prefetch while they land before its buffer runs dry",
  async (kv) => {
    const log = new KvLog<number>(kv, "events", { partitions: 1 });
    await seed(log, 400);
    const clock = new ManualClock(0);
    const reads = slowReads(log, clock, 1);
    const reader = new KvLogSource(log, { prefetch: 8 }).createReader(0, 1);
    const seen: number[] = [];
    // The first read is waited for (nothing is buffered yet) and so grows;
    // then a consumer taking 1 record a millisecond never finds the buffer
    // empty, and the reads shrink back to prefetch.
    reader.nextAvailableAt(clock.now());
    await reads.advance(1);
    for (let ms = 0; ms < 60; ms++) {
      seen.push(...take(reader, clock.now(), 1));
      await reads.advance(1);
      assert.equal(reader.nextAvailableAt(clock.now()), clock.now());
    }
    assert.deepEqual(reads.asked.slice(0, 2), [8, 16]);
    assert.ok(reads.asked.length > 4);
    assert.deepEqual(reads.asked.slice(2), reads.asked.slice(2).map(() => 8));
    assert.deepEqual(seen, Array.from({ length: 60 }, (_, i) => i));
    await reads.advance(1);
    await reader.close();
  },
);

kvTest(
  "KvLogSource reader does not grow a read that was short because it reached the head",
  async (kv) => {
    const log = new KvLog<number>(kv, "events", { partitions: 1 });
    await seed(log, 6);
    const clock = new ManualClock(0);
    const reads = slowReads(log, clock, 30);
    const reader = new KvLogSource(log, { prefetch: 4, pollIntervalMs: 10 })
      .createReader(0, 1);
    for (let round = 0; round < 4; round++) {
      take(reader, clock.now(), Infinity);
      reader.nextAvailableAt(clock.now());
      await reads.advance(30);
    }
    // 4 (waited for, full: grows), 8 (brought 2: the head), then nothing new.
    assert.deepEqual(reads.asked, [4, 8, 8, 8]);
    await reader.close();
  },
);

kvTest("KvLogSource checks maxPrefetch", async (kv) => {
  const log = new KvLog<number>(kv, "events", { partitions: 1 });
  assert.throws(() => new KvLogSource(log, { maxPrefetch: 0 }), {
    name: "RangeError",
    message: /'maxPrefetch'/,
  });
  assert.throws(
    () => new KvLogSource(log, { prefetch: 64, maxPrefetch: 32 }),
    { name: "RangeError", message: /'maxPrefetch' must be at least/ },
  );
  new KvLogSource(log, { prefetch: 64, maxPrefetch: 64 });
  await Promise.resolve();
});
