/**
 * Nexmark q1, currency conversion: every bid with its price converted from
 * dollars to euros.
 *
 * As Flink's SQL: `price := 0.908 * price`. Flink types the result
 * `DECIMAL(23, 3)`; here it is the double `0.908 * price` (prices are whole
 * cents below 1e8, so the product is exact to well under a thousandth).
 * Beam uses `price * 89 / 100` in integer arithmetic instead.
 *
 * @module
 */

import type { Clock } from "../../../src/mod.ts";
import type { DataStream } from "../../../src/mod.ts";
import { BID, type Bid, type Event } from "../model.ts";
import type { NexmarkQuery } from "../query.ts";

/** A q1 result: a bid with its price in euros. */
export interface ConvertedBid {
  /** The auction's id. */
  readonly auction: number;
  /** The bidder's person id. */
  readonly bidder: number;
  /** `0.908 *` the bid's price (cents of a euro). */
  readonly price: number;
  /** Event time, epoch ms. */
  readonly dateTime: number;
  /** The bid's padding. */
  readonly extra: string;
}

/** Flink's dollar-to-euro factor. */
const EUROS_PER_DOLLAR = 0.908;

function convert(bid: Bid): ConvertedBid {
  return {
    auction: bid.auction,
    bidder: bid.bidder,
    price: EUROS_PER_DOLLAR * bid.price,
    dateTime: bid.dateTime,
    extra: bid.extra,
  };
}

/** Nexmark q1: bids with prices in euros. */
export const q1: NexmarkQuery<ConvertedBid> = {
  name: "q1",
  description: "Currency conversion: every bid with price * 0.908 (a double, " +
    "not Flink's DECIMAL(23,3))",

  build(events: DataStream<Event>): DataStream<ConvertedBid> {
    return events
      .filter(function isBid(e) {
        return e.kind === BID;
      })
      .map(function convertBid(e) {
        return convert(e.bid as Bid);
      });
  },

  kernel(
    events: readonly Event[],
    _clock: Clock,
    emit: (result: ConvertedBid) => void,
  ): void {
    for (let i = 0; i < events.length; i++) {
      const e = events[i];
      if (e.kind === BID) emit(convert(e.bid));
    }
  },
};
