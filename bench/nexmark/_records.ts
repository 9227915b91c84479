// Beam's PersonGenerator, AuctionGenerator, BidGenerator, PriceGenerator and
// StringsGenerator: the random draws of one event, in Beam's order. Internal
// to the generator; every function trusts a checked config.

import type { NexmarkConfig } from "./config.ts";
import type { JavaRandom } from "./java_random.ts";
import type { Auction, Bid, Person } from "./model.ts";

const FIRST_PERSON_ID = 1000;
const FIRST_AUCTION_ID = 1000;
const FIRST_CATEGORY_ID = 10;
const NUM_CATEGORIES = 5;
// Ids past the newest person or auction a random pick may reach, so a bid
// can name a person or auction that does not exist yet.
const PERSON_ID_LEAD = 10;
const AUCTION_ID_LEAD = 10;
// Hot sellers, bidders and auctions are the first of each block of 100.
const HOT_BLOCK = 100;

const FIRST_NAMES = [
  "Peter",
  "Paul",
  "Luke",
  "John",
  "Saul",
  "Vicky",
  "Kate",
  "Julie",
  "Sarah",
  "Deiter",
  "Walter",
];
const LAST_NAMES = [
  "Shultz",
  "Abrams",
  "Spencer",
  "White",
  "Bartels",
  "Walton",
  "Smith",
  "Jones",
  "Noris",
];
const US_CITIES = [
  "Phoenix",
  "Los Angeles",
  "San Francisco",
  "Boise",
  "Portland",
  "Bend",
  "Redmond",
  "Seattle",
  "Kent",
  "Cheyenne",
];
const US_STATES = ["AZ", "CA", "ID", "OR", "WA", "WY"];

// nextString's longest draw (maxLength 100 gives at most 99 characters).
const MAX_STRING = 100;
// Reused buffers: the character codes drawn, and one array per trimmed
// length for String.fromCharCode.apply, which builds the string in one go
// (about a third cheaper than concatenating character by character).
const CODES: number[] = new Array<number>(MAX_STRING).fill(0);
const BY_LENGTH: number[][] = Array.from(
  { length: MAX_STRING + 1 },
  (_, n) => new Array<number>(n).fill(0),
);

/** What the draws need besides the random generator: the config and the shared padding. */
export interface DrawContext {
  /** The checked config. */
  readonly config: NexmarkConfig;
  /** Letters that `extra` fields are cut from (see {@linkcode makePadding}). */
  readonly padding: string;
  /** How many start offsets the padding leaves for the longest `extra`. */
  readonly paddingStarts: number;
}

/** Beam's `lastBase0PersonId`: the newest person at event `id` (one per 50 events). */
export function lastBase0PersonId(id: number): number {
  return Math.floor(id / 50);
}

/** Beam's `lastBase0AuctionId`: the newest auction at event `id` (3 per 50 events, after the person). */
export function lastBase0AuctionId(id: number): number {
  const epoch = Math.floor(id / 50);
  const offset = id - epoch * 50;
  // A person (offset 0) looks back to the last auction of the previous
  // epoch; a bid (offset >= 4) to the last auction of this one.
  if (offset < 1) return (epoch - 1) * 3 + 2;
  if (offset >= 4) return epoch * 3 + 2;
  return epoch * 3 + offset - 1;
}

function nextBase0PersonId(
  random: JavaRandom,
  id: number,
  config: NexmarkConfig,
): number {
  const numPeople = lastBase0PersonId(id) + 1;
  const active = Math.min(numPeople, config.numActivePeople);
  return numPeople - active + random.nextInt(active + PERSON_ID_LEAD);
}

function nextBase0AuctionId(
  random: JavaRandom,
  id: number,
  config: NexmarkConfig,
): number {
  const max = lastBase0AuctionId(id);
  const min = Math.max(max - config.numInFlightAuctions, 0);
  return min + random.nextInt(max - min + 1 + AUCTION_ID_LEAD);
}

function nextPrice(random: JavaRandom): number {
  // Log-uniform from $1 to $1,000,000, in cents.
  return Math.round(Math.pow(10, random.nextDouble() * 6) * 100);
}

function nextString(random: JavaRandom, maxLength: number): string {
  const len = 3 + random.nextInt(maxLength - 3);
  for (let i = 0; i < len; i++) {
    CODES[i] = random.nextInt(13) === 0 ? 32 : 97 + random.nextInt(26);
  }
  // Java's trim() strips characters <= ' '; only spaces occur here.
  let start = 0;
  let end = len;
  while (start < end && CODES[start] === 32) start++;
  while (end > start && CODES[end - 1] === 32) end--;
  const out = BY_LENGTH[end - start];
  for (let i = start; i < end; i++) out[i - start] = CODES[i];
  return String.fromCharCode.apply(null, out);
}

// Beam's nextExtra draws the length exactly; the characters come from the
// shared padding instead of nextExactString. extra is the last draw of every
// event and the generator reseeds per event, so nothing else changes.
function nextExtra(
  random: JavaRandom,
  id: number,
  currentSize: number,
  averageSize: number,
  context: DrawContext,
): string {
  if (currentSize > averageSize) return "";
  const wanted = averageSize - currentSize;
  const delta = Math.round(wanted * 0.2);
  const length = wanted - delta + (delta === 0 ? 0 : random.nextInt(2 * delta));
  // Vary the content by id without a modulo of a double.
  const starts = context.paddingStarts;
  const start = id - Math.floor(id / starts) * starts;
  return context.padding.substring(start, start + length);
}

/**
 * A bound on the longest `extra` a config can draw: `wanted + delta - 1`,
 * where `wanted` is at most the largest average size `d` and `delta` is
 * `round(0.2 * wanted)`.
 */
export function maxExtraLength(config: NexmarkConfig): number {
  const d = Math.max(
    config.avgPersonByteSize,
    config.avgAuctionByteSize,
    config.avgBidByteSize,
  );
  return d + Math.round(d * 0.2);
}

/**
 * Makes `length` characters as Beam's `nextExactString` draws them from
 * `Random(0)`, so padding has Beam's character mix ('H' to 'z': Java's `%`
 * keeps the sign of negative draws).
 */
export function makePadding(random: JavaRandom, length: number): string {
  random.setSeed(0);
  const codes = new Uint16Array(length);
  let rnd = 0;
  for (let i = 0; i < length; i++) {
    if (i % 6 === 0) rnd = random.nextInt();
    codes[i] = 97 + (rnd % 26);
    rnd = Math.trunc(rnd / 26);
  }
  let s = "";
  for (let i = 0; i < length; i += 4096) {
    s += String.fromCharCode(...codes.subarray(i, i + 4096));
  }
  return s;
}

/** Beam's `PersonGenerator.nextPerson` for event `id` at time `dateTime`. */
export function nextPerson(
  random: JavaRandom,
  id: number,
  dateTime: number,
  context: DrawContext,
): Person {
  const name = FIRST_NAMES[random.nextInt(11)] + " " +
    LAST_NAMES[random.nextInt(9)];
  const emailAddress = nextString(random, 7) + "@" + nextString(random, 5) +
    ".com";
  let creditCard = "";
  for (let i = 0; i < 4; i++) {
    if (i > 0) creditCard += " ";
    // Java's %04d; cheaper than padStart on this path.
    const n = random.nextInt(10000);
    creditCard += n < 10
      ? "000" + n
      : n < 100
      ? "00" + n
      : n < 1000
      ? "0" + n
      : n;
  }
  const city = US_CITIES[random.nextInt(10)];
  const state = US_STATES[random.nextInt(6)];
  const size = 8 + name.length + emailAddress.length + creditCard.length +
    city.length + state.length;
  return {
    id: lastBase0PersonId(id) + FIRST_PERSON_ID,
    name,
    emailAddress,
    creditCard,
    city,
    state,
    dateTime,
    extra: nextExtra(
      random,
      id,
      size,
      context.config.avgPersonByteSize,
      context,
    ),
  };
}

/**
 * Beam's `AuctionGenerator.nextAuction` for event `id` at time `dateTime`;
 * `horizonMs` is how much later the auction `numInFlightAuctions` ahead
 * starts, which sets the auction's length.
 */
export function nextAuction(
  random: JavaRandom,
  id: number,
  dateTime: number,
  horizonMs: number,
  context: DrawContext,
): Auction {
  const config = context.config;
  let seller = random.nextInt(config.hotSellersRatio) > 0
    ? Math.floor(lastBase0PersonId(id) / HOT_BLOCK) * HOT_BLOCK
    : nextBase0PersonId(random, id, config);
  seller += FIRST_PERSON_ID;
  const category = FIRST_CATEGORY_ID + random.nextInt(NUM_CATEGORIES);
  const initialBid = nextPrice(random);
  const expires = dateTime + 1 + random.nextInt(Math.max(horizonMs * 2, 1));
  const itemName = nextString(random, 20);
  const description = nextString(random, 100);
  const reserve = initialBid + nextPrice(random);
  // 8 for the id and 8 each for the five other numbers, as Beam counts.
  const size = 8 + itemName.length + description.length + 40;
  return {
    id: lastBase0AuctionId(id) + FIRST_AUCTION_ID,
    itemName,
    description,
    initialBid,
    reserve,
    dateTime,
    expires,
    seller,
    category,
    extra: nextExtra(random, id, size, config.avgAuctionByteSize, context),
  };
}

/** Beam's `BidGenerator.nextBid` for event `id` at time `dateTime`. */
export function nextBid(
  random: JavaRandom,
  id: number,
  dateTime: number,
  context: DrawContext,
): Bid {
  const config = context.config;
  let auction = random.nextInt(config.hotAuctionRatio) > 0
    ? Math.floor(lastBase0AuctionId(id) / HOT_BLOCK) * HOT_BLOCK
    : nextBase0AuctionId(random, id, config);
  auction += FIRST_AUCTION_ID;
  // The hot bidder is the second of its block, so it is not the hot seller.
  let bidder = random.nextInt(config.hotBiddersRatio) > 0
    ? Math.floor(lastBase0PersonId(id) / HOT_BLOCK) * HOT_BLOCK + 1
    : nextBase0PersonId(random, id, config);
  bidder += FIRST_PERSON_ID;
  const price = nextPrice(random);
  return {
    auction,
    bidder,
    price,
    dateTime,
    // Beam counts a bid's four numbers as 32 bytes.
    extra: nextExtra(random, id, 32, config.avgBidByteSize, context),
  };
}
