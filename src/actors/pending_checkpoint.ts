/**
 * {@linkcode PendingCheckpoint}: a checkpoint between its trigger and its
 * completion, collecting each actor's encoded snapshot.
 *
 * @module
 */

import type { CompletedCheckpoint } from "./checkpoint.ts";
import type { JobFingerprint } from "../runtime/fingerprint.ts";
import type { Encoded } from "./_codec.ts";
import { encodedCheckpoint } from "./_encoded_checkpoint.ts";

/**
 * Collects the acknowledgements (encoded snapshots) of one checkpoint until
 * every actor of the job has sent one, then becomes a
 * {@linkcode CompletedCheckpoint} with the snapshots in the order they
 * came. An actor that acknowledges twice counts once (its last snapshot).
 */
export class PendingCheckpoint {
  /** The checkpoint id. */
  readonly id: number;
  readonly #actors: number;
  readonly #acks = new Map<string, Encoded>();

  /**
   * Starts collecting checkpoint `id`.
   *
   * @param id The checkpoint id.
   * @param actors How many actors the job has.
   */
  constructor(id: number, actors: number) {
    this.id = id;
    this.#actors = actors;
  }

  /**
   * Records an actor's snapshot, already encoded (the bytes are the copy:
   * operators go on changing their live state).
   *
   * @param actorId The actor id.
   * @param snapshot Its encoded snapshot.
   * @returns Whether every actor has now acknowledged.
   */
  ack(actorId: string, snapshot: Encoded): boolean {
    this.#acks.set(actorId, snapshot);
    return this.#acks.size >= this.#actors;
  }

  /**
   * The completed checkpoint, once every actor has acknowledged.
   *
   * @param fingerprint The job's fingerprint.
   * @param createdAt Processing time of the completion.
   */
  complete(
    fingerprint: JobFingerprint,
    createdAt: number,
  ): CompletedCheckpoint {
    return encodedCheckpoint(
      { id: this.id, fingerprint, createdAt },
      Object.fromEntries(this.#acks),
    );
  }
}
