// Aligned checkpoints: once a channel delivered a
// checkpoint's barrier, its input waits until every channel has (or has
// ended); the subtask then snapshots, forwards the barrier, and takes what
// the blocked channels held.

import type { StreamElement } from "./stream_element.ts";

/** Which input channels delivered the barrier being aligned, and what they hold. */
export class BarrierAlignment {
  // The checkpoint being aligned, which channels delivered its barrier, and
  // what arrived on those channels since (held back).
  #aligning: number | null = null;
  readonly #seen: boolean[];
  readonly #held: StreamElement[][];

  /** @param numChannels The subtask's input channels. */
  constructor(numChannels: number) {
    this.#seen = new Array(numChannels).fill(false);
    this.#held = Array.from({ length: numChannels }, () => []);
  }

  /** Whether a checkpoint is being aligned. */
  get aligning(): boolean {
    return this.#aligning !== null;
  }

  /** Whether `channel` delivered the barrier and waits for the others. */
  blocked(channel: number): boolean {
    return this.#seen[channel];
  }

  /** Holds back an element of a blocked channel. */
  hold(channel: number, element: StreamElement): void {
    this.#held[channel].push(element);
  }

  /**
   * Notes the barrier of `checkpointId` on `channel`.
   *
   * @throws {RangeError} If another checkpoint is being aligned.
   */
  receiveBarrier(channel: number, checkpointId: number): void {
    if (this.#aligning === null) this.#aligning = checkpointId;
    else if (checkpointId !== this.#aligning) {
      throw new RangeError(
        `Cannot align checkpoint barriers as barrier ${checkpointId} must not arrive while checkpoint ${this.#aligning} is aligning: current value is channel ${channel}`,
      );
    }
    this.#seen[channel] = true;
  }

  /**
   * The checkpoint whose barrier every channel delivered or ended before,
   * or `null` while one is missing (or none is being aligned).
   */
  ready(ended: readonly boolean[]): number | null {
    for (let c = 0; c < ended.length; c++) {
      if (!this.#seen[c] && !ended[c]) return null;
    }
    return this.#aligning;
  }

  /**
   * Ends the alignment and hands what the blocked channels held to
   * `receive`, in channel order; it may hold the next barrier, which
   * starts the next alignment.
   */
  release(receive: (channel: number, element: StreamElement) => void): void {
    this.#aligning = null;
    this.#seen.fill(false);
    for (let c = 0; c < this.#held.length; c++) {
      const held = this.#held[c].splice(0);
      for (const element of held) receive(c, element);
    }
  }
}
