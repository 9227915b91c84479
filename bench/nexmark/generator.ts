/**
 * A deterministic Nexmark event generator: Beam's algorithm, fast.
 *
 * @module
 */

import {
  auctionHorizonEvents,
  interEventDelayNs,
  type NexmarkConfig,
  nexmarkConfig,
} from "./config.ts";
import { JavaRandom } from "./java_random.ts";
import {
  AUCTION,
  type Auction,
  BID,
  type Bid,
  type Event,
  type EventKind,
  PERSON,
  type Person,
} from "./model.ts";
import {
  type DrawContext,
  makePadding,
  maxExtraLength,
  nextAuction,
  nextBid,
  nextPerson,
} from "./_records.ts";

/** Options of a {@linkcode NexmarkGenerator}. */
export interface NexmarkGeneratorOptions {
  /**
   * How many events to skip: the generator starts at this event index, as
   * {@linkcode NexmarkGenerator.skipTo} would.
   * @default {0}
   */
  readonly index?: number;
}

// Distinct start offsets into the padding, so `extra` differs between events.
const PADDING_STARTS = 2048;

/**
 * Generates the Nexmark event stream of Beam's `Generator`: event `i` (from
 * 0) has id `firstEventId + i'`, where `i'` is `i` shuffled within groups of
 * `outOfOrderGroupSize`; id `% 50` picks a person (0), an auction (1–3) or a
 * bid (4–49), and every field is drawn from `new java.util.Random(id)` in
 * Beam's order. The same config always gives the same events.
 *
 * Event time: event number `n` (the shuffled index) is at
 * `baseTime + floor(n * delayNs / 1e6)` ms, where `delayNs` is
 * {@linkcode interEventDelayNs}. Two deviations from Beam, neither changing
 * a random draw:
 * - Beam rounds the gap to whole microseconds, which is 0 above 2 M events/s
 *   (every event would share one timestamp); the gap here is rounded to
 *   nanoseconds. Timestamps are identical whenever the rate divides 1e6
 *   (10 000/s, Beam's default, gives 100 µs).
 * - `extra` has Beam's length but is cut from one shared padding string,
 *   rather than drawn character by character: it is the last draw of every
 *   event and the random generator is reseeded per event, so every other
 *   field is exactly Beam's.
 *
 * Cost: one reused `JavaRandom`; per event, only the event, its record and
 * its strings are allocated (a bid's `extra` is a slice of the padding).
 * Bids take about 7 random draws; auctions and persons, about 8 % of events,
 * draw their strings character by character as Beam does.
 *
 * @example The first events at Beam's default rate
 * ```ts
 * import { NexmarkGenerator, PERSON } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const generator = new NexmarkGenerator({ firstEventRate: 10_000 });
 * const first = generator.next();
 * assert.equal(first.kind, PERSON);
 * assert.equal(first.person?.name, "Peter Jones");
 * assert.equal(generator.eventsGenerated, 1);
 * ```
 */
export class NexmarkGenerator {
  /** The checked config: this generator makes `numEvents` events, with ids from `firstEventId`. */
  readonly config: NexmarkConfig;
  readonly #random = new JavaRandom(0);
  readonly #context: DrawContext;
  readonly #delayNs: number;
  readonly #horizonEvents: number;
  readonly #groupSize: number;
  readonly #firstEventId: number;
  readonly #numEvents: number;
  #count = 0;
  // The event time of the event made last, for fill().
  #lastTimestamp = 0;

  /**
   * Creates a generator.
   *
   * @param config Fields to override; see {@linkcode nexmarkConfig}.
   * @param options Where to start.
   * @throws {RangeError} If a config field or `index` is out of range.
   * @throws {TypeError} If a config field is not a number.
   */
  constructor(
    config: Partial<NexmarkConfig> = {},
    options: NexmarkGeneratorOptions = {},
  ) {
    this.config = nexmarkConfig(config);
    this.#delayNs = interEventDelayNs(this.config);
    this.#horizonEvents = auctionHorizonEvents(this.config);
    this.#groupSize = this.config.outOfOrderGroupSize;
    this.#firstEventId = this.config.firstEventId;
    this.#numEvents = this.config.numEvents;
    this.#context = {
      config: this.config,
      padding: makePadding(
        this.#random,
        PADDING_STARTS + maxExtraLength(this.config),
      ),
      paddingStarts: PADDING_STARTS,
    };
    this.skipTo(options.index ?? 0);
  }

  /** Whether events remain. */
  get hasNext(): boolean {
    return this.#count < this.#numEvents;
  }

  /** How many events this generator has made (or skipped): the index of the next one. */
  get eventsGenerated(): number {
    return this.#count;
  }

  /**
   * Event time no later event will be before (Beam's
   * `nextEventNumberForWatermark`): `timestamp(floor(n / g) * g)` for the
   * next event index `n` and group size `g`; the next event's time when `g`
   * is 1. `Infinity` once every
   * event has been made.
   */
  get watermark(): number {
    if (this.#count >= this.#numEvents) return Infinity;
    const g = this.#groupSize;
    return this.#timestamp(Math.floor(this.#count / g) * g);
  }

  /**
   * Moves to event `index`, as if `index` events had been made: a restored
   * source resumes without regenerating (every event is drawn from its own
   * seed, so nothing before it is needed).
   *
   * @param index From 0 to `numEvents`.
   * @throws {RangeError} If `index` is not an integer in that range.
   */
  skipTo(index: number): void {
    if (!Number.isSafeInteger(index) || index < 0 || index > this.#numEvents) {
      throw new RangeError(
        `Cannot position the Nexmark generator as 'index' must be an integer from 0 to ${this.#numEvents}: current value is ${index}`,
      );
    }
    this.#count = index;
  }

  /**
   * Makes the next event.
   *
   * @returns The event; its time is the `dateTime` of its record.
   * @throws {RangeError} If no event remains.
   */
  next(): Event {
    if (this.#count >= this.#numEvents) {
      throw new RangeError(
        `Cannot generate a Nexmark event as 'numEvents' (${this.#numEvents}) have all been generated`,
      );
    }
    return this.#make(this.#count++);
  }

  /**
   * Makes up to `max` events into `values[0..]` and their times (each
   * event's `dateTime`) into `timestamps[0..]`, writing in index order so
   * that empty arrays stay packed. Entries past the returned count are left
   * as they were.
   *
   * @param values Receives the events.
   * @param timestamps Receives the event times, epoch ms.
   * @param max The most events to make.
   * @returns How many events were made: 0 at the end.
   */
  fill(values: Event[], timestamps: number[], max: number): number {
    const remaining = this.#numEvents - this.#count;
    // NaN and anything below 1 make nothing; a fraction rounds down.
    const count = max >= 1 ? Math.min(Math.floor(max), remaining) : 0;
    let index = this.#count;
    for (let i = 0; i < count; i++) {
      const event = this.#make(index++);
      values[i] = event;
      timestamps[i] = this.#lastTimestamp;
    }
    this.#count = index;
    return count;
  }

  /**
   * Splits this generator's id range into `n` generators with contiguous
   * ranges of `floor(numEvents / n)` events (the last takes the rest), in id
   * order (Beam's `GeneratorConfig.split`). They run on parallel timelines:
   * each starts at `baseTime`. The split ignores this generator's position.
   * With out-of-order groups, a range whose size is not a multiple of the
   * group size shuffles its last, partial group past its end, as in Beam.
   *
   * @param n How many generators, from 1 to `numEvents`.
   * @returns `n` fresh generators at index 0.
   * @throws {RangeError} If `n` is not an integer in that range.
   */
  split(n: number): NexmarkGenerator[] {
    const total = this.#numEvents;
    if (!Number.isSafeInteger(n) || n < 1 || n > total) {
      throw new RangeError(
        `Cannot split the Nexmark generator as 'n' must be an integer from 1 to ${total} (numEvents): current value is ${n}`,
      );
    }
    const size = Math.floor(total / n);
    const result: NexmarkGenerator[] = [];
    for (let i = 0; i < n; i++) {
      result.push(
        new NexmarkGenerator({
          ...this.config,
          firstEventId: this.#firstEventId + i * size,
          numEvents: i === n - 1 ? total - size * (n - 1) : size,
        }),
      );
    }
    return result;
  }

  // Beam's Generator.nextEvent for the `count`-th event of this generator.
  #make(count: number): Event {
    const g = this.#groupSize;
    // Beam's nextAdjustedEventNumber; (n * 953) % g without the product,
    // which could pass 2^53.
    const number = g === 1
      ? count
      : Math.floor(count / g) * g + ((count % g) * (953 % g)) % g;
    const id = this.#firstEventId + number;
    const timestamp = this.#timestamp(number);
    this.#lastTimestamp = timestamp;
    const random = this.#random;
    random.setSeed(id);
    const rem = id % 50;
    if (rem >= 4) {
      return makeEvent(
        BID,
        null,
        null,
        nextBid(random, id, timestamp, this.#context),
      );
    }
    if (rem >= 1) {
      const horizonMs = this.#timestamp(number + this.#horizonEvents) -
        timestamp;
      return makeEvent(
        AUCTION,
        null,
        nextAuction(random, id, timestamp, horizonMs, this.#context),
        null,
      );
    }
    return makeEvent(
      PERSON,
      nextPerson(random, id, timestamp, this.#context),
      null,
      null,
    );
  }

  // baseTime + floor(number * delayNs / 1e6), exactly: the quotient of two
  // doubles can round up to the next integer for large products.
  #timestamp(number: number): number {
    const ns = number * this.#delayNs;
    let ms = Math.floor(ns / 1e6);
    if (ms * 1e6 > ns) ms--;
    return this.config.baseTime + ms;
  }
}

// One literal site, so every event has the same hidden class.
function makeEvent(
  kind: EventKind,
  person: Person | null,
  auction: Auction | null,
  bid: Bid | null,
): Event {
  return { kind, person, auction, bid } as Event;
}
