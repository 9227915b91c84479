/**
 * Nexmark q2, selection: the auction and price of every bid on an auction
 * whose id is a multiple of 123.
 *
 * As Flink's SQL (`WHERE MOD(auction, 123) = 0`; Beam's `auctionSkip` is
 * 123 too).
 *
 * @module
 */

import type { Clock } from "../../../src/mod.ts";
import type { DataStream } from "../../../src/mod.ts";
import { BID, type Bid, type Event } from "../model.ts";
import type { NexmarkQuery } from "../query.ts";

/** A q2 result: a selected bid's auction and price. */
export interface AuctionPrice {
  /** The auction's id, a multiple of 123. */
  readonly auction: number;
  /** The bid's price, in cents. */
  readonly price: number;
}

/** The auctions kept: ids that are multiples of this. */
const AUCTION_SKIP = 123;

/** Nexmark q2: bids on every 123rd auction. */
export const q2: NexmarkQuery<AuctionPrice> = {
  name: "q2",
  description: "Selection: (auction, price) of bids with auction % 123 = 0",

  build(events: DataStream<Event>): DataStream<AuctionPrice> {
    return events
      .filter(function isSelectedBid(e) {
        return e.kind === BID && e.bid.auction % AUCTION_SKIP === 0;
      })
      .map(function auctionPrice(e) {
        const bid = e.bid as Bid;
        return { auction: bid.auction, price: bid.price };
      });
  },

  kernel(
    events: readonly Event[],
    _clock: Clock,
    emit: (result: AuctionPrice) => void,
  ): void {
    for (let i = 0; i < events.length; i++) {
      const e = events[i];
      if (e.kind === BID && e.bid.auction % AUCTION_SKIP === 0) {
        emit({ auction: e.bid.auction, price: e.bid.price });
      }
    }
  },
};
