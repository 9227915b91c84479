/**
 * Nexmark q3, local item suggestion: who sells in category 10 in Oregon,
 * Idaho or California.
 *
 * An incremental join of auctions and persons on `auction.seller =
 * person.id`, for auctions of category 10 and persons whose state is OR, ID
 * or CA; each match gives `(name, city, state, id)` with the auction's id.
 * As in Flink's SQL, this is a regular join without a TTL: a seller, once
 * seen, is kept for the whole run, and so is an auction whose seller has
 * not arrived (Beam's generator lets an auction name one of the next 10
 * persons), including auctions by sellers of other states, which never
 * match. Beam's version differs: it drops waiting auctions after 600 s of
 * event time.
 *
 * The engine job keys both sides by the person id and keeps, per seller,
 * the person's name, city and state once known and the ids of the auctions
 * waiting for it: an auction whose seller is known is emitted at once,
 * waiting ones are emitted in arrival order when the seller arrives.
 *
 * @module
 */

import type { Clock } from "../../../src/mod.ts";
import type { DataStream, KeyedProcessFunction } from "../../../src/mod.ts";
import {
  AUCTION,
  type Auction,
  type Event,
  PERSON,
  type Person,
} from "../model.ts";
import type { NexmarkQuery } from "../query.ts";

/** A q3 result: a local seller of a category-10 auction. */
export interface LocalItem {
  /** The seller's name. */
  readonly name: string;
  /** The seller's city. */
  readonly city: string;
  /** The seller's state: OR, ID or CA. */
  readonly state: string;
  /** The auction's id. */
  readonly id: number;
}

/** The seller fields a match needs. */
interface SellerInfo {
  name: string;
  city: string;
  state: string;
}

/** Per-seller state of the engine job. */
interface SellerState {
  /** The seller, once seen. */
  person?: SellerInfo;
  /** Ids of auctions waiting for the seller, in arrival order. */
  pending: number[];
}

/** The auctions' category. */
const CATEGORY = 10;

function isLocal(state: string): boolean {
  return state === "OR" || state === "ID" || state === "CA";
}

function item(person: SellerInfo, id: number): LocalItem {
  return { name: person.name, city: person.city, state: person.state, id };
}

const joinSellers: KeyedProcessFunction<Event, LocalItem, number, SellerState> =
  {
    processElement(e, ctx, out) {
      const seller = ctx.state;
      if (e.kind === PERSON) {
        const p = e.person;
        const person = { name: p.name, city: p.city, state: p.state };
        if (seller === undefined) {
          ctx.setState({ person, pending: [] });
          return;
        }
        seller.person = person;
        const pending = seller.pending;
        for (let i = 0; i < pending.length; i++) out(item(person, pending[i]));
        pending.length = 0;
        return;
      }
      const id = (e.auction as Auction).id;
      if (seller === undefined) ctx.setState({ pending: [id] });
      else if (seller.person !== undefined) out(item(seller.person, id));
      else seller.pending.push(id);
    },
  };

/** Nexmark q3: local sellers of category-10 auctions. */
export const q3: NexmarkQuery<LocalItem> = {
  name: "q3",
  description: "Local item suggestion: auctions of category 10 joined with " +
    "their sellers in OR, ID or CA (regular join, no TTL)",

  build(events: DataStream<Event>): DataStream<LocalItem> {
    return events
      .filter(function isJoined(e) {
        return e.kind === PERSON
          ? isLocal(e.person.state)
          : e.kind === AUCTION && e.auction.category === CATEGORY;
      })
      .keyBy(function sellerId(e) {
        return e.kind === PERSON ? e.person.id : (e.auction as Auction).seller;
      })
      .process(joinSellers);
  },

  kernel(
    events: readonly Event[],
    _clock: Clock,
    emit: (result: LocalItem) => void,
  ): void {
    // The person records themselves: nothing is copied.
    const sellers = new Map<number, Person>();
    const waiting = new Map<number, number[]>();
    for (let i = 0; i < events.length; i++) {
      const e = events[i];
      if (e.kind === PERSON) {
        const person = e.person;
        if (!isLocal(person.state)) continue;
        sellers.set(person.id, person);
        const pending = waiting.get(person.id);
        if (pending === undefined) continue;
        for (let j = 0; j < pending.length; j++) {
          emit(item(person, pending[j]));
        }
        waiting.delete(person.id);
      } else if (e.kind === AUCTION) {
        const auction = e.auction;
        if (auction.category !== CATEGORY) continue;
        const person = sellers.get(auction.seller);
        if (person !== undefined) {
          emit(item(person, auction.id));
          continue;
        }
        const pending = waiting.get(auction.seller);
        if (pending === undefined) waiting.set(auction.seller, [auction.id]);
        else pending.push(auction.id);
      }
    }
  },
};
