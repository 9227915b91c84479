/**
 * How records of one subtask are spread over the subtasks downstream.
 *
 * @module
 */

import { hashKey, keyGroupOf, subtaskForKeyGroup } from "./key_groups.ts";
import type { RejectRecord } from "./stream_operator.ts";
import { rethrowRecord } from "./_record_guard.ts";

/**
 * Receives the records for one downstream channel.
 *
 * @param channel The downstream subtask index.
 * @param values The records for it.
 * @param timestamps Their timestamps.
 */
export type ChannelSend<T> = (
  channel: number,
  values: T[],
  timestamps: number[],
) => void;

/**
 * Routes a batch to downstream channels (Flink's `StreamPartitioner`).
 * Watermarks and statuses are not routed: they go to every channel.
 */
export interface Partitioner<T> {
  /** The partitioner's name, for plans: `forward`, `rebalance`, `broadcast` or `hash`. */
  readonly name: string;
  /**
   * Splits a batch over `numChannels` channels and sends each part.
   * Cost: one pass over the batch, and a second to copy the records into
   * their parts; at most one batch per channel. The hash partitioner keeps
   * a channel per record between calls (4 bytes each, for the largest
   * batch) and, for a maxParallelism up to 2^15, a channel per key group
   * (4 bytes each); for a larger one it finds each record's channel as
   * it goes.
   *
   * A record the partitioner cannot place (its key selector throws, its
   * key cannot be hashed) goes to `reject` with its index and is sent
   * nowhere; without `reject` the error propagates.
   */
  route(
    values: readonly T[],
    timestamps: readonly number[],
    numChannels: number,
    send: ChannelSend<T>,
    reject?: RejectRecord,
  ): void;
}

/**
 * Sends every record to the channel with the producer's own index: for
 * operators with equal parallelism that are not chained.
 *
 * @param subtaskIndex The producing subtask's index.
 * @returns The partitioner.
 */
export function forwardPartitioner<T>(subtaskIndex: number): Partitioner<T> {
  return {
    name: "forward",
    route(values, timestamps, numChannels, send) {
      send(subtaskIndex % numChannels, values as T[], timestamps as number[]);
    },
  };
}

/**
 * Sends whole batches round-robin, starting at the producer's own index.
 *
 * @param subtaskIndex The producing subtask's index.
 * @returns The partitioner.
 */
export function rebalancePartitioner<T>(subtaskIndex: number): Partitioner<T> {
  let next = subtaskIndex;
  return {
    name: "rebalance",
    route(values, timestamps, numChannels, send) {
      send(next++ % numChannels, values as T[], timestamps as number[]);
    },
  };
}

/**
 * Sends every record to every channel. The arrays are shared, not copied:
 * emitted batches are never modified.
 *
 * @returns The partitioner.
 */
export function broadcastPartitioner<T>(): Partitioner<T> {
  return {
    name: "broadcast",
    route(values, timestamps, numChannels, send) {
      for (let c = 0; c < numChannels; c++) {
        send(c, values as T[], timestamps as number[]);
      }
    },
  };
}

/**
 * Sends each record to the subtask owning its key's key group, so all
 * records of a key meet in one subtask at any parallelism.
 *
 * A record whose key selector throws, or whose key cannot be hashed (null,
 * an object, an array: see `hashKey`), is handed to `route`'s `reject` and
 * sent nowhere, at any parallelism: the upstream subtask sets it aside
 * under the job's error policy, so no record can crash-loop a keyed job.
 *
 * @param keySelector Extracts the key of a record.
 * @param maxParallelism The number of key groups.
 * @returns The partitioner.
 */
export function hashPartitioner<T>(
  keySelector: (value: T) => unknown,
  maxParallelism: number,
): Partitioner<T> {
  // The channel of each key group, built for the last numChannels: only for
  // a bounded maxParallelism (the table takes 4 bytes a key group; any
  // positive safe integer is accepted), else computed per record.
  const tabled = Number.isInteger(maxParallelism) && maxParallelism > 0 &&
    maxParallelism <= MAX_TABLED_KEY_GROUPS;
  let owners = new Int32Array(0);
  let ownersFor = 0;
  // Each record's channel (-1 for one rejected), reused from batch to batch.
  // route takes it while it reads it and puts it back before sending: a
  // call of route inside another (a key selector or reject routing through
  // this partitioner) finds it taken and gets its own, so none overwrites
  // the channels another is reading.
  let spare = new Int32Array(0);
  return {
    name: "hash",
    route(values, timestamps, numChannels, send, reject = rethrowRecord) {
      const n = values.length;
      if (numChannels === 1) {
        routeToOne(values, timestamps, keySelector, send, reject);
        return;
      }
      // The two passes below need a table, from two channels to one per key
      // group (0 sends nothing and rejects as ever), and arrays to slice.
      if (
        !tabled || !(numChannels >= 2 && numChannels <= maxParallelism) ||
        numChannels !== (numChannels | 0) || !Array.isArray(values) ||
        !Array.isArray(timestamps)
      ) {
        routeEach(values, timestamps, numChannels, send, reject);
        return;
      }
      if (n === 0) return;
      if (ownersFor !== numChannels) {
        owners = new Int32Array(maxParallelism);
        for (let g = 0; g < maxParallelism; g++) {
          owners[g] = subtaskForKeyGroup(g, maxParallelism, numChannels);
        }
        ownersFor = numChannels;
      }
      // In locals: the loops below call user code, after which the
      // optimiser would load captured variables again.
      const ownerOf = owners;
      const channels = spare.length >= n ? spare : new Int32Array(n);
      spare = EMPTY_CHANNELS;
      const counts = new Int32Array(numChannels);
      // First pass: the channel of each record, and how many each gets.
      let i = 0;
      while (i < n) {
        try {
          for (; i < n; i++) {
            const channel =
              ownerOf[keyGroupOf(keySelector(values[i]), maxParallelism)];
            channels[i] = channel;
            counts[channel]++;
          }
        } catch (error) {
          channels[i] = -1;
          reject(values[i], timestamps[i], error, i);
          i++;
        }
      }
      // Second pass: each channel's records, in arrays of their exact size
      // (a copy of the input's first records, overwritten: no growing), or
      // the input itself when one channel gets everything. Passing the
      // input on as it is is safe as on main, where the forward, rebalance
      // and broadcast partitioners (and this one at one channel) already
      // did: emitted arrays are never modified, and a source's timestamps
      // are a copy of its reader's, or an array the reader gave this batch
      // alone (see stampBatch and SourceBatch.ownTimestamps).
      const partValues: T[][] = new Array(numChannels);
      const partTimestamps: number[][] = new Array(numChannels);
      for (let c = 0; c < numChannels; c++) {
        const count = counts[c];
        if (count === n) {
          spare = channels;
          send(c, values as T[], timestamps as number[]);
          return;
        }
        partValues[c] = values.slice(0, count);
        partTimestamps[c] = timestamps.slice(0, count);
      }
      const at = new Int32Array(numChannels);
      for (let j = 0; j < n; j++) {
        const channel = channels[j];
        if (channel < 0) continue;
        const k = at[channel]++;
        partValues[channel][k] = values[j];
        partTimestamps[channel][k] = timestamps[j];
      }
      spare = channels;
      for (let c = 0; c < numChannels; c++) {
        if (counts[c] > 0) send(c, partValues[c], partTimestamps[c]);
      }
    },
  };

  // Record by record, growing one part per channel: for a maxParallelism
  // too large for a table, and for any numChannels.
  function routeEach(
    values: readonly T[],
    timestamps: readonly number[],
    numChannels: number,
    send: ChannelSend<T>,
    reject: RejectRecord,
  ): void {
    const n = values.length;
    const parts: Array<[T[], number[]] | undefined> = new Array(numChannels);
    let i = 0;
    while (i < n) {
      try {
        for (; i < n; i++) {
          const group = keyGroupOf(keySelector(values[i]), maxParallelism);
          const channel = subtaskForKeyGroup(
            group,
            maxParallelism,
            numChannels,
          );
          const part = parts[channel] ??= [[], []];
          part[0].push(values[i]);
          part[1].push(timestamps[i]);
        }
      } catch (error) {
        // Nothing of record i was pushed: the key is computed first.
        reject(values[i], timestamps[i], error, i);
        i++;
      }
    }
    for (let c = 0; c < numChannels; c++) {
      const part = parts[c];
      if (part !== undefined) send(c, part[0], part[1]);
    }
  }
}

// The largest maxParallelism whose key groups get a table of channels
// (128 KB); the default is 128.
const MAX_TABLED_KEY_GROUPS = 2 ** 15;
const EMPTY_CHANNELS = new Int32Array(0);

// The hash partitioner's route to a single channel: no hash, but the same
// keys are rejected as at any parallelism.
function routeToOne<T>(
  values: readonly T[],
  timestamps: readonly number[],
  keySelector: (value: T) => unknown,
  send: ChannelSend<T>,
  reject: RejectRecord,
): void {
  const n = values.length;
  let i = 0;
  let kept: boolean[] | null = null;
  while (i < n) {
    try {
      for (; i < n; i++) requireHashableKey(keySelector(values[i]));
    } catch (error) {
      reject(values[i], timestamps[i], error, i);
      (kept ??= new Array(n).fill(true))[i++] = false;
    }
  }
  if (kept === null) send(0, values as T[], timestamps as number[]);
  else {
    const v = values.filter((_, j) => kept[j]);
    if (v.length > 0) send(0, v, timestamps.filter((_, j) => kept[j]));
  }
}

function requireHashableKey(key: unknown): void {
  const type = typeof key;
  if (
    type !== "string" && type !== "number" && type !== "boolean" &&
    type !== "bigint"
  ) {
    hashKey(key); // throws the error that names the key's type
  }
}
