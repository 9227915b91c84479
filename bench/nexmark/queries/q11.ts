/**
 * Nexmark q11, user sessions: the bids of each bidder in event-time
 * sessions that close after 10 s without a bid.
 *
 * As Flink's SQL `SESSION(dateTime, 10 s)` per bidder: `start` is the first
 * bid's time and `end` the last bid's plus the gap. Sessions merge when the
 * next bid is at or before `end` (windows that touch merge, as in Flink).
 * Beam's q11 also fires a session early at every 100 000 bids, which no
 * session reaches at benchmark sizes (a hot bidder makes about 3 500).
 *
 * @module
 */

import type { Clock } from "../../../src/mod.ts";
import {
  type AggregateFunction,
  type DataStream,
  EventTimeSessionWindows,
  type ProcessWindowFunction,
} from "../../../src/mod.ts";
import { BID, type Event } from "../model.ts";
import type { NexmarkQuery } from "../query.ts";

/** One session of one bidder. */
export interface UserSession {
  /** The bidder's person id. */
  readonly bidder: number;
  /** Bids in the session. */
  readonly count: number;
  /** The first bid's time, epoch ms. */
  readonly start: number;
  /** The last bid's time plus the gap, epoch ms (exclusive). */
  readonly end: number;
}

const GAP_MS = 10_000;

const countBids: AggregateFunction<Event, number, number> = {
  createAccumulator: () => 0,
  add: (_event, count) => count + 1,
  getResult: (count) => count,
  merge: (a, b) => a + b,
};

const withSession: ProcessWindowFunction<number, UserSession, number> =
  function withSession(bidder, context, counts, out) {
    const { start, end } = context.window;
    out({ bidder, count: counts[0], start, end });
  };

/** Nexmark q11: bid counts per bidder session. */
export const q11: NexmarkQuery<UserSession> = {
  name: "q11",
  description:
    "User sessions: bids per bidder per SESSION(10 s) window, with its start and end",
  build(events: DataStream<Event>): DataStream<UserSession> {
    return events
      .filter((event) => event.kind === BID)
      .keyBy((event) => event.bid!.bidder)
      .window(EventTimeSessionWindows.withGap<Event>(GAP_MS))
      .aggregate(countBids, withSession);
  },
  kernel: q11Kernel,
  // Each result is one session: a window of its own.
  windows: (results) => results.length,
};

/** A bidder's open session in the kernel; reused for their next one. */
interface OpenSession {
  start: number;
  end: number;
  count: number;
}

/**
 * The q11 kernel: per bidder (`Map` by id) the open session only. The
 * bids of one generator arrive in timestamp order, so a bid at `t` can
 * only touch its bidder's newest session: it extends it when `t <= end` (`[t, t + gap)` touches
 * `[start, end)`), and otherwise no later bid can reach the old session,
 * which is therefore final: it is emitted and a new one starts. That is
 * exactly what merging windows gives for such input, and no bid is late
 * (the watermark stays 4 s behind the newest bid), so the kernel needs no
 * watermark; open sessions are emitted at the end of input.
 *
 * @throws {RangeError} If a bid is earlier than its bidder's previous one.
 */
function q11Kernel(
  events: readonly Event[],
  _clock: Clock,
  emit: (result: UserSession) => void,
): void {
  const sessions = new Map<number, OpenSession>();
  for (let i = 0; i < events.length; i++) {
    const event = events[i];
    if (event.kind !== BID) continue;
    const bid = event.bid;
    const t = bid.dateTime;
    const session = sessions.get(bid.bidder);
    if (session === undefined) {
      sessions.set(bid.bidder, { start: t, end: t + GAP_MS, count: 1 });
    } else if (t > session.end) {
      const { start, end, count } = session;
      emit({ bidder: bid.bidder, count, start, end });
      session.start = t;
      session.end = t + GAP_MS;
      session.count = 1;
    } else if (t >= session.end - GAP_MS) {
      session.end = t + GAP_MS;
      session.count++;
    } else {
      throw new RangeError(
        `Cannot run the q11 kernel as bids of a bidder must be in timestamp order: bidder ${bid.bidder} bid at ${t} after ${
          session.end - GAP_MS
        }`,
      );
    }
  }
  sessions.forEach(function each({ start, end, count }, bidder) {
    emit({ bidder, count, start, end });
  });
}
