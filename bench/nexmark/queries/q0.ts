/**
 * Nexmark q0, pass-through: every bid, unchanged.
 *
 * Flink's SQL is `SELECT auction, bidder, price, dateTime, extra FROM bid`,
 * a projection that copies the row; here the bid record itself is passed on
 * (it has exactly those fields), so q0 measures the engine's per-record
 * overhead alone. Beam's `Query0` also round-trips each event through its
 * coder; weir has no serialisation on the local path, so there is none here.
 *
 * @module
 */

import type { Clock } from "../../../src/mod.ts";
import type { DataStream } from "../../../src/mod.ts";
import { BID, type Bid, type Event } from "../model.ts";
import type { NexmarkQuery } from "../query.ts";

/** A q0 result: the bid itself. */
export type PassThroughBid = Bid;

/** Nexmark q0: bids, passed through. */
export const q0: NexmarkQuery<PassThroughBid> = {
  name: "q0",
  description:
    "Pass-through: every bid as it is (no copy, no coder round trip)",

  build(events: DataStream<Event>): DataStream<PassThroughBid> {
    return events
      .filter(function isBid(e) {
        return e.kind === BID;
      })
      .map(function bidOf(e) {
        return e.bid as Bid;
      });
  },

  kernel(
    events: readonly Event[],
    _clock: Clock,
    emit: (result: PassThroughBid) => void,
  ): void {
    for (let i = 0; i < events.length; i++) {
      const e = events[i];
      if (e.kind === BID) emit(e.bid);
    }
  },
};
