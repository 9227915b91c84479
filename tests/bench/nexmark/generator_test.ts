import assert from "node:assert/strict";
import {
  AUCTION,
  BASE_TIME,
  BID,
  type Event,
  interEventDelayNs,
  nexmarkConfig,
  NexmarkGenerator,
  NexmarkSource,
  PERSON,
} from "../../../bench/nexmark/mod.ts";

// Beam's defaults: 10 000 events/s over one generator, so 100 µs per event.
const BEAM = { firstEventRate: 10_000 } as const;

function eventAt(index: number, config = {}): Event {
  return new NexmarkGenerator(config, { index }).next();
}

function idOf(event: Event): number {
  return event.person?.id ?? event.auction?.id ?? event.bid!.auction;
}

function timeOf(event: Event): number {
  return (event.person ?? event.auction ?? event.bid!).dateTime;
}

Deno.test("NexmarkGenerator derives kinds and ids from id % 50 as Beam does", () => {
  // id 0: rem 0 is a person, lastBase0PersonId(0) = 0.
  const e0 = eventAt(0, BEAM);
  assert.equal(e0.kind, PERSON);
  assert.equal(e0.person?.id, 1000);
  // ids 1-3: auctions, lastBase0AuctionId = 0 * 3 + (rem - 1).
  for (const id of [1, 2, 3]) {
    const event = eventAt(id, BEAM);
    assert.equal(event.kind, AUCTION);
    assert.equal(event.auction?.id, 1000 + id - 1);
  }
  // id 4: a bid; the hot auction is (2 / 100) * 100 = 0, the hot bidder
  // (0 / 100) * 100 + 1 = 1.
  const e4 = eventAt(4, BEAM);
  assert.equal(e4.kind, BID);
  assert.equal(e4.bid?.auction, 1000);
  assert.equal(e4.bid?.bidder, 1001);
  // id 50: the second person; id 51: auction 1 * 3 + 0.
  assert.equal(eventAt(50, BEAM).person?.id, 1001);
  assert.equal(eventAt(51, BEAM).auction?.id, 1003);
});

Deno.test("NexmarkGenerator reproduces Nexmark's regression vectors at 10 000 events/s on one generator", () => {
  const person = eventAt(0, BEAM).person!;
  assert.equal(person.name, "Peter Jones");
  assert.equal(person.city, "Portland");
  assert.equal(person.state, "WY");
  assert.equal(person.dateTime, 1436918400000);

  const auction = eventAt(1, BEAM).auction!;
  assert.deepEqual(
    [
      auction.id,
      auction.seller,
      auction.category,
      auction.initialBid,
      auction.reserve,
      auction.expires - auction.dateTime,
    ],
    [1000, 1000, 13, 28873, 29448, 11],
  );

  const bid = eventAt(4, BEAM).bid!;
  assert.deepEqual([bid.auction, bid.bidder, bid.price], [
    1000,
    1001,
    32530001,
  ]);

  const sarah = eventAt(50, BEAM).person!;
  assert.equal(sarah.id, 1001);
  assert.equal(sarah.name, "Sarah Smith");
  assert.equal(sarah.dateTime, 1436918400000 + 5);
});

// From a Java transcription of Beam's generator run on OpenJDK 17, which
// agrees with this port on every field but `extra`'s characters over the
// first 2 M events.
Deno.test("NexmarkGenerator draws Person and Auction strings and extra lengths as Beam does", () => {
  const person = eventAt(0, BEAM).person!;
  assert.equal(person.emailAddress, "nhd@xcat.com");
  assert.equal(person.creditCard, "7241 7320 9143 4888");
  assert.equal(person.extra.length, 156);
  const auction = eventAt(1, BEAM).auction!;
  assert.equal(auction.itemName, "wkx mgee");
  assert.equal(auction.description, "eszpqxtdxrvwmmywkmogoahf");
  assert.equal(auction.extra.length, 346);
  const bid = eventAt(4, BEAM).bid!;
  assert.equal(bid.extra.length, 77);
  assert.equal(eventAt(5, BEAM).bid?.bidder, 1009);
});

Deno.test("NexmarkGenerator keeps bid extra within Beam's length range and cut from letters", () => {
  // avgBidByteSize 100 - 32 = 68, delta = round(13.6) = 14: 54 + [0, 28).
  const generator = new NexmarkGenerator({ numEvents: 5_000 });
  while (generator.hasNext) {
    const event = generator.next();
    if (event.kind !== BID) continue;
    const { extra } = event.bid;
    assert.ok(extra.length >= 54 && extra.length < 82, `${extra.length}`);
    assert.match(extra, /^[H-z]*$/);
  }
});

Deno.test("NexmarkGenerator spaces timestamps by the inter-event delay", () => {
  // 10 000/s: 100 µs per event, floor(n / 10) ms.
  for (const [n, ms] of [[0, 0], [9, 0], [10, 1], [12_345, 1_234]]) {
    assert.equal(timeOf(eventAt(n, BEAM)), BASE_TIME + ms, `event ${n}`);
  }
  // The default 10 M/s: 100 ns per event, floor(n / 10 000) ms.
  assert.equal(interEventDelayNs(nexmarkConfig()), 100);
  assert.equal(timeOf(eventAt(9_999)), BASE_TIME);
  assert.equal(timeOf(eventAt(10_000)), BASE_TIME + 1);
  // 1 000/s over 3 generators: each generator is 3 ms per event.
  const slow = { firstEventRate: 1_000, numEventGenerators: 3 };
  assert.equal(interEventDelayNs(nexmarkConfig(slow)), 3_000_000);
  assert.equal(timeOf(eventAt(7, slow)), BASE_TIME + 21);
  // The base time moves everything.
  assert.equal(timeOf(eventAt(10, { ...BEAM, baseTime: 0 })), 1);
});

Deno.test("NexmarkGenerator shuffles ids within out-of-order groups and holds the watermark at the group start", () => {
  // Group 3: offset (n * 953) % 3, and 953 % 3 = 2, so offsets 0, 2, 1.
  // At 1 000/s event number n is at n ms.
  const config = { firstEventRate: 1_000, outOfOrderGroupSize: 3 };
  const generator = new NexmarkGenerator(config);
  const times: number[] = [];
  const watermarks: number[] = [];
  const auctionIds: (number | undefined)[] = [];
  for (let i = 0; i < 6; i++) {
    watermarks.push(generator.watermark - BASE_TIME);
    const event = generator.next();
    times.push(timeOf(event) - BASE_TIME);
    auctionIds.push(event.auction?.id);
  }
  assert.deepEqual(times, [0, 2, 1, 3, 5, 4]);
  assert.deepEqual(watermarks, [0, 0, 0, 3, 3, 3]);
  // The shuffled id picks the kind and the ids: id 2 comes second.
  assert.deepEqual(auctionIds, [
    undefined,
    1001,
    1000,
    1002,
    undefined,
    undefined,
  ]);
});

Deno.test("NexmarkGenerator.watermark is the next event's time in order, and Infinity at the end", () => {
  const generator = new NexmarkGenerator({ ...BEAM, numEvents: 25 });
  const values: Event[] = [];
  const timestamps: number[] = [];
  for (let i = 0; i < 25; i++) {
    const watermark = generator.watermark;
    assert.equal(generator.fill(values, timestamps, 1), 1);
    assert.equal(timestamps[0], watermark);
  }
  assert.equal(generator.watermark, Infinity);
});

Deno.test("NexmarkGenerator makes exactly 2 % persons, 6 % auctions and 92 % bids over 50 000 events", () => {
  const generator = new NexmarkGenerator({ numEvents: 50_000 });
  const counts = [0, 0, 0];
  while (generator.hasNext) counts[generator.next().kind]++;
  assert.deepEqual(counts, [1_000, 3_000, 46_000]);
});

Deno.test("NexmarkGenerator gives the same events for the same config", () => {
  const config = { numEvents: 3_000, outOfOrderGroupSize: 5 };
  const a = new NexmarkGenerator(config);
  const b = new NexmarkGenerator(config);
  const eventsA: Event[] = [];
  const eventsB: Event[] = [];
  while (a.hasNext) eventsA.push(a.next());
  while (b.hasNext) eventsB.push(b.next());
  assert.deepEqual(eventsA, eventsB);
});

Deno.test("NexmarkGenerator.fill() writes events and their times, and returns 0 at the end", () => {
  const generator = new NexmarkGenerator({ numEvents: 250 });
  const reference = new NexmarkGenerator({ numEvents: 250 });
  const sizes: number[] = [];
  for (;;) {
    const values: Event[] = [];
    const timestamps: number[] = [];
    const count = generator.fill(values, timestamps, 100);
    sizes.push(count);
    if (count === 0) break;
    assert.equal(values.length, count);
    for (let i = 0; i < count; i++) {
      assert.deepEqual(values[i], reference.next());
      assert.equal(timestamps[i], timeOf(values[i]));
    }
  }
  assert.deepEqual(sizes, [100, 100, 50, 0]);
  assert.equal(generator.eventsGenerated, 250);
  assert.equal(generator.hasNext, false);
  assert.throws(() => generator.next(), { name: "RangeError" });
});

Deno.test("NexmarkGenerator.skipTo() and the index option resume at the same event", () => {
  const whole = new NexmarkGenerator({ numEvents: 500 });
  const events: Event[] = [];
  while (whole.hasNext) events.push(whole.next());
  const skipped = new NexmarkGenerator({ numEvents: 500 });
  skipped.skipTo(321);
  assert.deepEqual(skipped.next(), events[321]);
  assert.deepEqual(
    new NexmarkGenerator({ numEvents: 500 }, { index: 499 }).next(),
    events[499],
  );
  assert.equal(
    new NexmarkGenerator({ numEvents: 500 }, { index: 500 }).hasNext,
    false,
  );
  for (const index of [-1, 501, 1.5]) {
    assert.throws(() => skipped.skipTo(index), {
      name: "RangeError",
      message: /'index'/,
    });
  }
});

Deno.test("NexmarkGenerator.split() covers the id range exactly once, in contiguous ranges on parallel timelines", () => {
  const config = { ...BEAM, numEvents: 1_003, firstEventId: 7 };
  const whole = new NexmarkGenerator(config);
  const byId = new Map<number, Event>();
  for (let id = 7; whole.hasNext; id++) byId.set(id, whole.next());

  const parts = new NexmarkGenerator(config).split(4);
  assert.deepEqual(
    parts.map((p) => [p.config.firstEventId, p.config.numEvents]),
    [[7, 250], [257, 250], [507, 250], [757, 253]],
  );
  const seen: number[] = [];
  for (const part of parts) {
    const first = part.next();
    // Every part starts at baseTime.
    assert.equal(timeOf(first), BASE_TIME);
    part.skipTo(0);
    for (let id = part.config.firstEventId; part.hasNext; id++) {
      const event = part.next();
      seen.push(id);
      // Same seed, same draws: only the times differ from the whole stream.
      const expected = byId.get(id)!;
      assert.equal(event.kind, expected.kind);
      assert.equal(idOf(event), idOf(expected));
    }
  }
  assert.deepEqual(seen, [...byId.keys()]);
  assert.throws(() => whole.split(0), { name: "RangeError", message: /'n'/ });
  assert.throws(() => whole.split(1_004), { name: "RangeError" });
});

Deno.test("nexmarkConfig() rejects bad fields, naming the field and the value", () => {
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ numEvents: 0 }, /'numEvents'.*current value is 0$/],
    [{ numEvents: 1.5 }, /'numEvents'.*current value is 1.5$/],
    [{ firstEventRate: -10 }, /'firstEventRate'.*current value is -10$/],
    [{ numEventGenerators: 0 }, /'numEventGenerators'.*current value is 0$/],
    [{ hotAuctionRatio: 0 }, /'hotAuctionRatio'/],
    [{ numActivePeople: 2 ** 31 }, /'numActivePeople'.*2147483648$/],
    [{ outOfOrderGroupSize: NaN }, /'outOfOrderGroupSize'.*NaN$/],
    [{ firstEventId: -1 }, /'firstEventId'.*-1$/],
    [{ avgBidByteSize: Infinity }, /'avgBidByteSize'.*Infinity$/],
    [{ firstEventRate: 1, numEvents: 2 ** 52 }, /'numEvents'/],
  ];
  for (const [options, message] of cases) {
    assert.throws(() => nexmarkConfig(options), {
      name: "RangeError",
      message,
    });
  }
  assert.throws(
    () => nexmarkConfig({ numEvents: "10" as unknown as number }),
    { name: "TypeError", message: /'numEvents'.*"10"$/ },
  );
  assert.throws(() => new NexmarkGenerator({ baseTime: 0.5 }), {
    name: "RangeError",
    message: /'baseTime'/,
  });
  assert.equal(nexmarkConfig({ baseTime: -5, firstEventId: 0 }).baseTime, -5);
});

Deno.test("NexmarkSource spreads one sub-generator per partition over subtasks and reads each event once", () => {
  const source = new NexmarkSource({ ...BEAM, numEvents: 1_000 }, {
    partitions: 3,
  });
  const ids: number[] = [];
  for (let subtask = 0; subtask < 2; subtask++) {
    const reader = source.createReader(subtask, 2);
    assert.deepEqual(
      reader.partitions,
      subtask === 0 ? ["nexmark-0", "nexmark-2"] : ["nexmark-1"],
    );
    let previous: Event[] | null = null;
    for (let batch = reader.poll(0, 128); batch; batch = reader.poll(0, 128)) {
      assert.notEqual(batch.values, previous, "a fresh array per poll");
      previous = batch.values;
      assert.equal(batch.values.length, batch.timestamps.length);
      batch.values.forEach((event, i) => {
        assert.equal(batch.timestamps[i], timeOf(event));
      });
      ids.push(...batch.values.map(idOf));
      assert.equal(reader.nextAvailableAt(5), reader.finished ? Infinity : 5);
    }
    assert.equal(reader.finished, true);
    assert.equal(reader.nextAvailableAt(5), Infinity);
  }
  const expected: number[] = [];
  const whole = new NexmarkGenerator({ ...BEAM, numEvents: 1_000 });
  while (whole.hasNext) expected.push(idOf(whole.next()));
  assert.deepEqual(
    ids.toSorted((a, b) => a - b),
    expected.toSorted((a, b) => a - b),
  );
});

Deno.test("NexmarkSource restores a snapshot and resumes at the same event", () => {
  const source = new NexmarkSource({ numEvents: 2_000 }, { partitions: 2 });
  const original = source.createReader(0, 1);
  original.poll(0, 300);
  original.poll(0, 500);
  original.poll(0, 100);
  const snapshot = structuredClone(original.snapshotState());
  assert.deepEqual(snapshot, {
    partitions: ["nexmark-0", "nexmark-1"],
    positions: [400, 500],
    cursor: 1,
  });
  const rest: Event[] = [];
  for (let b = original.poll(0, 64); b; b = original.poll(0, 64)) {
    rest.push(...b.values);
  }

  const restored = source.createReader(0, 1);
  restored.restoreState(snapshot);
  const again: Event[] = [];
  for (let b = restored.poll(0, 64); b; b = restored.poll(0, 64)) {
    again.push(...b.values);
  }
  assert.deepEqual(again, rest);

  assert.throws(() => restored.restoreState({ ...snapshot, cursor: 2 }), {
    name: "RangeError",
    message: /'state.cursor'/,
  });
  assert.throws(
    () => restored.restoreState({ ...snapshot, positions: [0, 1_001] }),
    { name: "RangeError", message: /'state.positions\[1\]'/ },
  );
  assert.throws(
    () => restored.restoreState({ ...snapshot, partitions: ["nexmark-0"] }),
    { name: "RangeError", message: /'state.partitions'/ },
  );
  assert.throws(() => restored.restoreState(null), {
    name: "TypeError",
    message: /'state'/,
  });
});

Deno.test("NexmarkSource defaults to one partition per event generator and checks its arguments", () => {
  assert.equal(new NexmarkSource({ numEventGenerators: 4 }).numPartitions, 4);
  assert.throws(() => new NexmarkSource({}, { partitions: 0 }), {
    name: "RangeError",
    message: /'partitions'/,
  });
  assert.throws(() => new NexmarkSource({ numEvents: 0 }), {
    name: "RangeError",
    message: /'numEvents'/,
  });
  const source = new NexmarkSource();
  assert.throws(() => source.createReader(2, 2), {
    name: "RangeError",
    message: /'subtaskIndex'/,
  });
  assert.equal(source.createReader(1, 2).finished, true);
});
