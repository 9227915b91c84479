/**
 * Nexmark q8, monitor new users: the people who joined and opened an
 * auction as seller within the same tumbling 10 s window.
 *
 * As Flink's SQL (persons per `(id, name, window)` joined with auctions per
 * `(seller, window)` on the id and the window), each such person is emitted
 * once per window, with the window start. Beam's q8 instead emits one row
 * per auction, with its reserve.
 *
 * @module
 */

import type { Clock } from "../../../src/mod.ts";
import {
  type AggregateFunction,
  type DataStream,
  type ProcessWindowFunction,
  TumblingEventTimeWindows,
} from "../../../src/mod.ts";
import { BID, dateTimeOf, type Event, PERSON } from "../model.ts";
import {
  distinctWindows,
  floorMod,
  type NexmarkQuery,
  OUT_OF_ORDERNESS_MS,
} from "../query.ts";

/** A person who joined and sold within one window. */
export interface NewUser {
  /** The person's id. */
  readonly id: number;
  /** The person's name. */
  readonly name: string;
  /** Window start, epoch ms. */
  readonly windowStart: number;
}

const SIZE_MS = 10_000;

/** What one person id saw in one window. */
interface Seen {
  /** The person's name if they joined in the window. */
  name: string | null;
  /** Whether they opened an auction in the window. */
  hasAuction: boolean;
}

const joinSides: AggregateFunction<Event, Seen, Seen> = {
  createAccumulator: () => ({ name: null, hasAuction: false }),
  add(event, seen) {
    if (event.kind === PERSON) seen.name = event.person.name;
    else seen.hasAuction = true;
    return seen;
  },
  getResult: (seen) => seen,
  merge: (a, b) => ({
    name: a.name ?? b.name,
    hasAuction: a.hasAuction || b.hasAuction,
  }),
};

const emitJoined: ProcessWindowFunction<Seen, NewUser, number> =
  function emitJoined(id, context, results, out) {
    const { name, hasAuction } = results[0];
    if (name !== null && hasAuction) {
      out({ id, name, windowStart: context.window.start });
    }
  };

/** Nexmark q8: new users who opened an auction in their first window. */
export const q8: NexmarkQuery<NewUser> = {
  name: "q8",
  description:
    "Monitor new users: persons joined in a TUMBLE(10 s) window with auctions they sell in it; once per (person, window)",
  build(events: DataStream<Event>): DataStream<NewUser> {
    return events
      .filter((event) => event.kind !== BID)
      .keyBy((event) =>
        event.kind === PERSON ? event.person.id : event.auction!.seller
      )
      .window(TumblingEventTimeWindows.of<Event>(SIZE_MS))
      .aggregate(joinSides, emitJoined);
  },
  kernel: q8Kernel,
  windows: (results) => distinctWindows(results, (r) => r.windowStart),
};

/** One live window of the kernel. */
interface Window {
  /** Persons who joined, by id. */
  readonly names: Map<number, string>;
  /** Sellers of auctions opened. */
  readonly sellers: Set<number>;
}

/**
 * The q8 kernel: per live window (`Map` by start, the current one cached)
 * the persons by id and the set of sellers; the watermark is emulated per
 * event as `max dateTime - 4 s - 1`, a window fires once its `end - 1` is at
 * or below it (the rest at the end of input), and events of fired windows
 * are dropped as late, as in the engine. Bids only move the watermark.
 */
function q8Kernel(
  events: readonly Event[],
  _clock: Clock,
  emit: (result: NewUser) => void,
): void {
  const windows = new Map<number, Window>();
  const spare: Window[] = [];
  let currentStart = NaN;
  let current: Window | undefined;
  let nextEnd = Infinity;
  let maxTimestamp = -Infinity;
  let watermark = -Infinity;

  function advance(): void {
    nextEnd = Infinity;
    for (const [windowStart, window] of windows) {
      const end = windowStart + SIZE_MS;
      if (end - 1 > watermark) {
        if (end < nextEnd) nextEnd = end;
        continue;
      }
      const sellers = window.sellers;
      window.names.forEach(function each(name, id) {
        if (sellers.has(id)) emit({ id, name, windowStart });
      });
      windows.delete(windowStart);
      window.names.clear();
      sellers.clear();
      spare.push(window);
      if (window === current) currentStart = NaN;
    }
  }

  for (let i = 0; i < events.length; i++) {
    const event = events[i];
    const timestamp = dateTimeOf(event);
    if (event.kind !== BID) {
      const start = timestamp - floorMod(timestamp, SIZE_MS);
      if (start !== currentStart) {
        if (start + SIZE_MS - 1 <= watermark) continue;
        currentStart = start;
        current = windows.get(start);
        if (current === undefined) {
          current = spare.pop() ?? { names: new Map(), sellers: new Set() };
          windows.set(start, current);
          if (start + SIZE_MS < nextEnd) nextEnd = start + SIZE_MS;
        }
      }
      if (event.kind === PERSON) {
        current!.names.set(event.person.id, event.person.name);
      } else {
        current!.sellers.add(event.auction.seller);
      }
    }
    if (timestamp > maxTimestamp) {
      maxTimestamp = timestamp;
      watermark = timestamp - OUT_OF_ORDERNESS_MS - 1;
      if (nextEnd - 1 <= watermark) advance();
    }
  }
  watermark = Infinity;
  advance();
}
