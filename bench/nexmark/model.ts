/**
 * The Nexmark data model (Beam's `Person`, `Auction` and `Bid`) and the
 * event that carries one of them.
 *
 * Ids, prices (in cents) and times (epoch milliseconds) are plain numbers:
 * they stay below 2^53 for any checked config.
 *
 * @module
 */

/** {@linkcode Event.kind} of a person. */
export const PERSON = 0;
/** {@linkcode Event.kind} of an auction. */
export const AUCTION = 1;
/** {@linkcode Event.kind} of a bid. */
export const BID = 2;

/** Which of the three records an event carries. */
export type EventKind = typeof PERSON | typeof AUCTION | typeof BID;

/** A new user of the auction site. */
export interface Person {
  /** Person id, from 1000. */
  readonly id: number;
  /** First and last name, e.g. "Peter Jones". */
  readonly name: string;
  /** A random `abc@xyz.com` address. */
  readonly emailAddress: string;
  /** Four space-separated groups of four digits. */
  readonly creditCard: string;
  /** One of 10 US cities. */
  readonly city: string;
  /** One of AZ, CA, ID, OR, WA, WY. */
  readonly state: string;
  /** Event time, epoch ms. */
  readonly dateTime: number;
  /** Padding up to the average person size. */
  readonly extra: string;
}

/** A new auction. */
export interface Auction {
  /** Auction id, from 1000. */
  readonly id: number;
  /** Random item name, up to 20 characters. */
  readonly itemName: string;
  /** Random description, up to 100 characters. */
  readonly description: string;
  /** Opening price, in cents. */
  readonly initialBid: number;
  /** Reserve price, in cents (at least `initialBid`). */
  readonly reserve: number;
  /** Event time, epoch ms. */
  readonly dateTime: number;
  /** When the auction closes, epoch ms (after `dateTime`). */
  readonly expires: number;
  /** The seller's person id. */
  readonly seller: number;
  /** Category id, 10 to 14. */
  readonly category: number;
  /** Padding up to the average auction size. */
  readonly extra: string;
}

/** A bid on an auction. */
export interface Bid {
  /** The auction's id. */
  readonly auction: number;
  /** The bidder's person id. */
  readonly bidder: number;
  /** Price, in cents. */
  readonly price: number;
  /** Event time, epoch ms. */
  readonly dateTime: number;
  /** Padding up to the average bid size. */
  readonly extra: string;
}

/** An event carrying a person. */
export interface PersonEvent {
  /** {@linkcode PERSON}. */
  readonly kind: typeof PERSON;
  /** The new person. */
  readonly person: Person;
  /** Always `null`. */
  readonly auction: null;
  /** Always `null`. */
  readonly bid: null;
}

/** An event carrying an auction. */
export interface AuctionEvent {
  /** {@linkcode AUCTION}. */
  readonly kind: typeof AUCTION;
  /** Always `null`. */
  readonly person: null;
  /** The new auction. */
  readonly auction: Auction;
  /** Always `null`. */
  readonly bid: null;
}

/** An event carrying a bid. */
export interface BidEvent {
  /** {@linkcode BID}. */
  readonly kind: typeof BID;
  /** Always `null`. */
  readonly person: null;
  /** Always `null`. */
  readonly auction: null;
  /** The bid. */
  readonly bid: Bid;
}

/**
 * One Nexmark event: Flink's wide row. Every event has the same four fields,
 * `kind` plus one record and two `null`s, so V8 sees a single object shape
 * wherever events flow; switching on `kind` narrows the type.
 *
 * @example Reading a bid
 * ```ts
 * import { BID, type Event } from "./model.ts";
 * import assert from "node:assert/strict";
 *
 * const event: Event = {
 *   kind: BID,
 *   person: null,
 *   auction: null,
 *   bid: { auction: 1000, bidder: 1001, price: 100, dateTime: 0, extra: "" },
 * };
 * if (event.kind === BID) assert.equal(event.bid.price, 100);
 * ```
 */
export type Event = PersonEvent | AuctionEvent | BidEvent;

/**
 * An event's `dateTime`, whatever its kind: its event time.
 *
 * @param event The event.
 * @returns Its `dateTime`, in epoch milliseconds.
 */
export function dateTimeOf(event: Event): number {
  return event.kind === BID
    ? event.bid.dateTime
    : event.kind === AUCTION
    ? event.auction.dateTime
    : event.person.dateTime;
}
