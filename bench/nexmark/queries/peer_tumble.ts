/**
 * `peer-tumble`: a keyed 10 s tumbling count where every record opens a
 * pane and every pane fires. Record `i` has key `i·7919 % 1000` and
 * timestamp `t0 + 10·i` ms (watermark 4 s behind), so each 10 s window holds
 * 1000 records, one per key: 1 M records fire 1 M panes over 1000 windows.
 * It measures the window operator's per-pane cost, not Nexmark's
 * forwarding; its input is its own, not Nexmark events.
 *
 * @module
 */

import {
  type AggregateFunction,
  type Clock,
  type DataStream,
  type ProcessWindowFunction,
  type Source,
  type SourceBatch,
  type SourceReader,
  TumblingEventTimeWindows,
} from "../../../src/mod.ts";
import { BASE_TIME } from "../config.ts";
import { mergeByTimestamp, type PregeneratedEvents } from "../pregenerated.ts";
import {
  distinctWindows,
  floorMod,
  type NexmarkQuery,
  OUT_OF_ORDERNESS_MS,
  type QueryInput,
} from "../query.ts";

/** The records of one pane. */
export interface PaneCount {
  /** The key, `i·7919 % 1000`. */
  readonly key: number;
  /** Window start, epoch ms. */
  readonly start: number;
  /** Records of the key in the window. */
  readonly count: number;
}

const SIZE_MS = 10_000;
const STEP_MS = 10;
const KEYS = 1000;

/** Record `i`'s key. */
export const peerKey = (i: number): number => (i * 7919) % KEYS;
/** Record `i`'s timestamp. */
export const peerTime = (i: number): number => BASE_TIME + STEP_MS * i;

const count: AggregateFunction<number, number, number> = {
  createAccumulator: () => 0,
  add: (_i, n) => n + 1,
  getResult: (n) => n,
  merge: (a, b) => a + b,
};

const withWindow: ProcessWindowFunction<number, PaneCount, number> =
  function withWindow(key, context, counts, out) {
    out({ key, start: context.window.start, count: counts[0] });
  };

/** Record indices `p, p + P, ...` below `events`: partition `p` of `P`. */
function indices(events: number, p: number, partitions: number): number[] {
  const out: number[] = [];
  for (let i = p; i < events; i += partitions) out.push(i);
  return out;
}

/** Makes record indices as it is read: partition `p` has `p, p + P, ...`. */
class PeerSource implements Source<number> {
  readonly name = "peer-tumble";
  readonly #events: number;
  readonly #partitions: number;

  constructor(events: number, partitions: number) {
    this.#events = events;
    this.#partitions = partitions;
  }

  createReader(
    subtaskIndex: number,
    parallelism: number,
  ): SourceReader<number> {
    const events = this.#events;
    const total = this.#partitions;
    const mine: number[] = [];
    for (let p = subtaskIndex; p < total; p += parallelism) mine.push(p);
    // The next record index of each of mine.
    const next = [...mine];
    let cursor = 0;
    const remaining = () => next.some((i) => i < events);
    return {
      partitions: mine.map((p) => `peer-${p}`),
      get finished() {
        return !remaining();
      },
      poll(_now: number, maxRecords: number): SourceBatch<number> | null {
        for (let tries = 0; tries < mine.length; tries++) {
          const at = cursor;
          cursor = (cursor + 1) % mine.length;
          if (next[at] >= events) continue;
          const values: number[] = [];
          const timestamps: number[] = [];
          let i = next[at];
          for (; i < events && values.length < maxRecords; i += total) {
            values.push(i);
            timestamps.push(peerTime(i));
          }
          next[at] = i;
          return { partition: at, values, timestamps };
        }
        return null;
      },
      nextAvailableAt: (now: number) => remaining() ? now : Infinity,
      snapshotState: () => ({ next: [...next], cursor }),
      restoreState(state: unknown): void {
        const saved = state as { next: number[]; cursor: number };
        saved.next.forEach((i, at) => next[at] = i);
        cursor = saved.cursor;
      },
    };
  }
}

const input: QueryInput<number> = {
  description: "record i: key i·7919 % 1000, timestamp t0 + 10·i ms",
  pregenerate(events: number, partitions: number): PregeneratedEvents<number> {
    const parts: number[][] = [];
    const timestamps: number[][] = [];
    for (let p = 0; p < partitions; p++) {
      parts.push(indices(events, p, partitions));
      timestamps.push(parts[p].map(peerTime));
    }
    return {
      partitions: parts,
      timestamps,
      merged: mergeByTimestamp(parts, timestamps),
      count: events,
    };
  },
  source: (events, partitions) => new PeerSource(events, partitions),
};

/** `peer-tumble`: per key, records per tumbling 10 s window. */
export const peerTumble: NexmarkQuery<PaneCount, number> = {
  name: "peer-tumble",
  description:
    "Keyed TUMBLE(10 s) count, key i·7919 % 1000, ts t0 + 10·i: every record opens a pane, every pane fires",
  build(records: DataStream<number>): DataStream<PaneCount> {
    return records
      .keyBy(peerKey)
      .window(TumblingEventTimeWindows.of<number>(SIZE_MS))
      .aggregate(count, withWindow);
  },
  kernel: peerTumbleKernel,
  windows: (results) => distinctWindows(results, (r) => r.start),
  input,
};

/**
 * The kernel: counts per key for each live window (`Map` by start), the
 * watermark emulated per record as `max timestamp - 4 s - 1`; a window
 * fires once its `end - 1` is at or below it (the rest at the end), and a
 * record of a fired window is dropped as late, as in the engine.
 */
function peerTumbleKernel(
  records: readonly number[],
  _clock: Clock,
  emit: (result: PaneCount) => void,
): void {
  const windows = new Map<number, Map<number, number>>();
  let watermark = -Infinity;
  let maxTimestamp = -Infinity;
  let nextEnd = Infinity;

  function advance(): void {
    nextEnd = Infinity;
    for (const [start, counts] of windows) {
      if (start + SIZE_MS - 1 <= watermark) {
        counts.forEach((n, key) => emit({ key, start, count: n }));
        windows.delete(start);
      } else if (start + SIZE_MS < nextEnd) {
        nextEnd = start + SIZE_MS;
      }
    }
  }

  for (let r = 0; r < records.length; r++) {
    const i = records[r];
    const timestamp = peerTime(i);
    const start = timestamp - floorMod(timestamp, SIZE_MS);
    if (start + SIZE_MS - 1 > watermark) {
      let counts = windows.get(start);
      if (counts === undefined) {
        counts = new Map();
        windows.set(start, counts);
        if (start + SIZE_MS < nextEnd) nextEnd = start + SIZE_MS;
      }
      const key = peerKey(i);
      counts.set(key, (counts.get(key) ?? 0) + 1);
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
