// How big a KvLogSource reader's next read of a partition is: a read that
// its consumer waited for was too small for the round trip, one that
// landed with most of the buffer still unread was bigger than it needed.
//
// No clock is read: the reader compares the round trip with how fast its
// records are consumed by seeing whether the buffer ran dry first, which
// is the comparison that matters and is the same under any clock.

/** The bounds a partition's read size moves between. */
export interface ReadSizeBounds {
  /** The first and smallest size: the source's `prefetch`. */
  readonly min: number;
  /** The largest: the source's `maxPrefetch`. */
  readonly max: number;
}

/** What one read saw, from its start to its landing. */
export interface ReadOutcome {
  /** How many records the read asked for. */
  readonly asked: number;
  /** How many it brought. */
  readonly got: number;
  /** Whether the consumer found the buffer empty while it was in flight. */
  readonly starved: boolean;
  /** Records buffered when the read started. */
  readonly heldAtStart: number;
  /** Records still buffered when it landed. */
  readonly leftAtLanding: number;
}

/**
 * The size of the read after `read`, which asked for `size` at most.
 *
 * Doubles when the consumer waited and the read was full (a short read
 * reached the head: waiting for new records is not latency); halves when
 * less than half of what was buffered at the start was consumed while the
 * read was in flight, so that half the size still covers a round trip.
 */
export function nextReadSize(
  size: number,
  read: ReadOutcome,
  bounds: ReadSizeBounds,
): number {
  if (read.starved) {
    return read.got >= read.asked ? Math.min(size * 2, bounds.max) : size;
  }
  if (read.leftAtLanding * 2 > read.heldAtStart) {
    return Math.max(Math.floor(size / 2), bounds.min);
  }
  return size;
}
