/**
 * {@linkcode CheckpointIds}: how a runtime numbers checkpoints. Ids only
 * grow within a checkpoint store: a
 * new id is above the last one this job gave out, above the checkpoint it
 * restored, and above the highest id the store ever held, also for a job
 * restored from an older checkpoint or started over.
 *
 * @module
 */

/** The part of a checkpoint store that says its highest id, if it can. */
export interface HighestIdSource {
  /** The highest checkpoint id the store ever held (0 for none). */
  highestId?(): Promise<number>;
}

/**
 * Reads a store's highest checkpoint id, checked.
 *
 * @param store The checkpoint store, if any.
 * @param retry Wraps the read (e.g. retrying transient errors).
 * @returns The id; 0 without a store, or one without `highestId`.
 * @throws {RangeError} If the store returns anything but a non-negative
 * safe integer; whatever the store's read throws.
 */
export async function readHighestId(
  store: HighestIdSource | undefined,
  retry: (read: () => Promise<number>) => Promise<number> = (read) => read(),
): Promise<number> {
  if (typeof store?.highestId !== "function") return 0;
  return checkedHighestId(await retry(() => store.highestId!()));
}

// Checked once here, so that a store returning nonsense fails the same way
// in either runtime.
function checkedHighestId(id: unknown): number {
  if (typeof id !== "number" || !Number.isSafeInteger(id) || id < 0) {
    throw new RangeError(
      `Cannot number checkpoints as 'checkpointStore.highestId()' must return a non-negative safe integer: current value is ${id}`,
    );
  }
  return id;
}

/**
 * The ids of one runtime's checkpoints: the last given out, raised to the
 * store's highest once it has been read (once per runtime: the local
 * runtime is the store's only writer while it runs).
 */
export class CheckpointIds {
  readonly #store: HighestIdSource | undefined;
  #last: number;
  // `null` until read; 0 at once for a store that cannot say.
  #storeHighest: number | null;
  #reading: Promise<void> | null = null;

  /**
   * Starts above `lastId`; the store is read by {@linkcode read}.
   *
   * @param store The checkpoint store, if any.
   * @param lastId The highest id already given out (0 for none).
   */
  constructor(store: HighestIdSource | undefined, lastId: number) {
    this.#store = store;
    this.#last = lastId;
    this.#storeHighest = typeof store?.highestId === "function" ? null : 0;
  }

  /** The highest id given out (completed or not). */
  get last(): number {
    return this.#last;
  }

  /** Whether the store's highest id is known yet. */
  get known(): boolean {
    return this.#storeHighest !== null;
  }

  /**
   * Raises the last id to `id` (a restored checkpoint's).
   *
   * @param id A checkpoint id.
   */
  raise(id: number): void {
    this.#last = Math.max(this.#last, id);
  }

  /** Gives out the next id. */
  next(): number {
    return ++this.#last;
  }

  /**
   * Whether a checkpoint may be saved under `id`: above the store's highest
   * id (one numbered before that was known may collide). Call after
   * {@linkcode read}.
   *
   * @param id A checkpoint id.
   */
  isAboveStore(id: number): boolean {
    return id > this.#storeHighest!;
  }

  /**
   * Reads the store's highest id, once; concurrent calls share the read,
   * and a read that fails is tried again by the next call.
   *
   * @throws {RangeError} If the store returns nonsense (see
   * {@linkcode readHighestId}); whatever its read throws.
   */
  read(): Promise<void> {
    if (this.#storeHighest !== null) return Promise.resolve();
    this.#reading ??= readHighestId(this.#store).then((id) => {
      this.#storeHighest = id;
      this.raise(id);
    }).finally(() => this.#reading = null);
    return this.#reading;
  }
}
