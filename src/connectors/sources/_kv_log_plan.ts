// How one append to a KvLog, across any of its partitions, becomes Deno KV
// writes: which batches go inline in the one final commit that makes the
// append visible, and which are written ahead of it as invisible parts.
//
// Layout under the log's base `["weir", "log", name]`:
//   [partition, firstOffset]        a batch (tag 1) or a manifest (tag 2)
//   ["head", partition]             the partition's next offset
//   ["part", partition, id, i]      part i of batches stored out of line
//   ["pending", id]                 { at, partitions }: append `id` has
//                                   parts not published yet (see
//                                   _kv_log_stage.ts)
//   ["seq"]                         bumped by every append: the one key an
//                                   append checks, whatever it touches
//   ["append", id]                  written by the commit that publishes
//                                   append `id` (the attempt's number), or
//                                   -1 once it gave up; kept 10 min: how an
//                                   append tells whether a commit that
//                                   threw landed
//   ["once", id]                    an append id and its memo (JSON), kept
//                                   for a while with Deno KV's expireIn

import {
  batchValue,
  batchValueBytes,
  type EncodedBatch,
  HEADER_BYTES,
  TAG_MANIFEST,
} from "../_kv_batches.ts";
import {
  type CommitCost,
  KV_LIMITS,
  type KvWrite,
  type PlainKey as Key,
} from "../../kv/mod.ts";

/** A manifest's value is at most this: header and `{"id","from","parts"}`. */
const MANIFEST_BYTES = HEADER_BYTES + 96;
/**
 * The most bytes an append id's memo may take (JSON, UTF-8): most of one
 * Deno KV value. The final commit sets this much aside for it.
 */
export const MEMO_BYTES = 61_440;

/** Where the parts of a batch stored out of line are. */
export interface Manifest {
  /** The random id of the append that wrote them. */
  readonly id: string;
  /** The index of the first part. */
  readonly from: number;
  /** How many parts. */
  readonly parts: number;
}

/** A batch as the final commit writes it: inline, or a manifest. */
export interface PlannedEntry {
  /** Its records. */
  readonly count: number;
  /** The value at its first offset. */
  readonly value: Uint8Array;
}

/** One partition's share of an append. */
export interface PartitionPlan {
  /** The partition. */
  readonly partition: number;
  /** Its entries, in order, from its head on. */
  readonly entries: readonly PlannedEntry[];
  /** Its records, all entries together. */
  readonly count: number;
}

/** The final commit's entries, and the parts written before it. */
export interface AppendPlan {
  /** Per partition written, in the order asked. */
  readonly partitions: readonly PartitionPlan[];
  /** Writes that must be committed (in any number of commits) first. */
  readonly parts: readonly KvWrite[];
}

/** The keys of one log. */
export class LogKeys {
  readonly #base: readonly string[];

  /** The keys of the log `name`. */
  constructor(name: string) {
    this.#base = ["weir", "log", name];
  }

  /** A batch or manifest at its first offset. */
  entry(partition: number, offset: number): Key {
    return [...this.#base, partition, offset];
  }

  /** A partition's head. */
  head(partition: number): Key {
    return [...this.#base, "head", partition];
  }

  /** Part `index` of the batches of append `id` stored out of line. */
  part(partition: number, id: string, index: number): Key {
    return [...this.#base, "part", partition, id, index];
  }

  /** Every part of append `id` in a partition. */
  parts(partition: number, id: string): Key {
    return [...this.#base, "part", partition, id];
  }

  /** The pending record of append `id`, while its parts are unpublished. */
  pending(id: string): Key {
    return [...this.#base, "pending", id];
  }

  /** Every pending record. */
  pendings(): Key {
    return [...this.#base, "pending"];
  }

  /** What the commit that publishes append `id` writes. */
  append(id: string): Key {
    return [...this.#base, "append", id];
  }

  /** The key every append checks and bumps. */
  seq(): Key {
    return [...this.#base, "seq"];
  }

  /** An append id's entry. */
  once(id: string): Key {
    return [...this.#base, "once", id];
  }

  /** Every entry of a partition's batches. */
  partition(partition: number): Key {
    return [...this.#base, partition];
  }
}

/**
 * Plans an append: every batch inline if the final commit can hold them,
 * else the largest ones move out of line (as parts, behind a manifest)
 * until it can.
 *
 * @param keys The log's keys.
 * @param groups Per partition, its encoded batches; none empty.
 * @param cost What the final commit holds so far besides the batches and
 * heads (the checks, the sequence key, an append id); the plan adds to it.
 * @param appendId The append's random id, which names its parts.
 * @returns The plan.
 * @throws {RangeError} If even with every batch out of line the final
 * commit would exceed Deno KV's limits.
 */
export function planAppend(
  keys: LogKeys,
  groups: ReadonlyArray<
    { readonly partition: number; readonly batches: EncodedBatch[] }
  >,
  cost: CommitCost,
  appendId: string,
): AppendPlan {
  // An offset encodes to 9 bytes whatever its value: any one sizes keys.
  const all = groups.flatMap(({ partition, batches }) => {
    cost.addSet(keys.head(partition), 16);
    return batches.map((batch) => {
      const size = batchValueBytes(batch);
      const inline = size <= KV_LIMITS.valueBytes;
      cost.addSet(keys.entry(partition, 0), inline ? size : MANIFEST_BYTES);
      return { partition, batch, size, inline };
    });
  });
  const bySize = all.filter((b) => b.inline).sort((a, b) => b.size - a.size);
  for (const planned of bySize) {
    if (cost.fits()) break;
    planned.inline = false;
    cost.payload -= planned.size - MANIFEST_BYTES;
  }
  if (!cost.fits()) {
    throw new RangeError(
      `Cannot append to KvLog as 'records' must fit one Deno KV commit of at most ${KV_LIMITS.mutations} mutations and ${KV_LIMITS.keyTotalBytes} bytes of keys (about ${
        KV_LIMITS.mutations - groups.length - 4
      } batches of up to 64 KiB with ${groups.length} partitions): current value is ${all.length} batches; split the append`,
    );
  }
  const parts: KvWrite[] = [];
  const entriesOf = new Map<number, PlannedEntry[]>();
  for (const { partition, batch, inline } of all) {
    const entries = entriesOf.get(partition) ?? [];
    entriesOf.set(partition, entries);
    const value = batchValue(batch);
    if (inline) {
      entries.push({ count: batch.count, value });
      continue;
    }
    const from = parts.length;
    for (let at = 0; at < value.length; at += KV_LIMITS.valueBytes) {
      parts.push({
        key: keys.part(partition, appendId, parts.length),
        value: value.subarray(at, at + KV_LIMITS.valueBytes),
      });
    }
    const manifest: Manifest = {
      id: appendId,
      from,
      parts: parts.length - from,
    };
    entries.push({
      count: batch.count,
      value: batchValue(
        { count: batch.count, text: JSON.stringify(manifest) },
        TAG_MANIFEST,
      ),
    });
  }
  return {
    partitions: groups.map(({ partition, batches }) => ({
      partition,
      entries: entriesOf.get(partition) ?? [],
      count: batches.reduce((n, b) => n + b.count, 0),
    })),
    parts,
  };
}
