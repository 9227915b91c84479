/**
 * Nexmark for weir's benchmarks: Beam's deterministic event generator (with
 * an exact `java.util.Random`), its data model, and a weir source.
 *
 * @example The first bid at Beam's default rate
 * ```ts
 * import { BID, NexmarkGenerator } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const generator = new NexmarkGenerator({ firstEventRate: 10_000 });
 * generator.skipTo(4);
 * const event = generator.next();
 * assert.equal(event.kind, BID);
 * assert.equal(event.bid?.price, 32530001);
 * ```
 *
 * @module
 */

export {
  auctionHorizonEvents,
  BASE_TIME,
  interEventDelayNs,
  type NexmarkConfig,
  nexmarkConfig,
} from "./config.ts";
export { NexmarkGenerator, type NexmarkGeneratorOptions } from "./generator.ts";
export { JavaRandom } from "./java_random.ts";
export {
  AUCTION,
  type Auction,
  type AuctionEvent,
  BID,
  type Bid,
  type BidEvent,
  type Event,
  type EventKind,
  PERSON,
  type Person,
  type PersonEvent,
} from "./model.ts";
export { NexmarkSource, type NexmarkSourceOptions } from "./source.ts";
