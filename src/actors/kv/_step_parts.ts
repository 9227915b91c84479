// Incremental step state in the KV runtime: operators hand out their keyed
// state in groups (SnapshotOptions.parts); a group that did not change is
// the same array at the next snapshot, so a step writes only the groups it
// changed, each under a number of its own, and the state refers to them.

import { encodeStructured, partForm, partsPlaceholder } from "../_codec.ts";
import type { StorageOp } from "../storage.ts";

// A step that changed more groups than this writes its state in one piece
// instead: the puts of one commit stay well within KV's 1000 mutations.
const MAX_NEW_PARTS = 300;

/** What a step snapshot taken through {@linkcode StepParts} commits. */
export interface PartsOfStep {
  /** The state, with placeholders for its parts. */
  readonly state: unknown;
  /** Puts of the parts not stored yet. */
  readonly puts: StorageOp[];
  /** Every part the state refers to. */
  readonly parts: number[];
  /** Stored parts it no longer refers to (to delete after the commit). */
  readonly dropped: number[];
  /** The next free part number. */
  readonly nextPart: number;
}

/** The key of part `n` in an actor's storage. */
export function partKey(n: number): ["part", number] {
  return ["part", n];
}

/**
 * The parts of one actor's step state: which group array is stored under
 * which number, and which numbers the committed state refers to.
 */
export class StepParts {
  readonly #numbers = new WeakMap<readonly unknown[], number>();
  #next: number;
  #committed: Set<number>;
  // The groups handed out by the step snapshot being taken, by number.
  #taking: Map<number, readonly unknown[]> | null = null;
  #flat = false;

  /**
   * @param nextPart The next free part number, as committed.
   * @param committed The parts the committed state refers to.
   */
  constructor(nextPart: number, committed: readonly number[]) {
    this.#next = nextPart;
    this.#committed = new Set(committed);
  }

  /**
   * The `SnapshotOptions.parts` hook: while a step snapshot is taken, a
   * placeholder naming the groups' part numbers; otherwise (a checkpoint's
   * snapshot) the concatenation itself.
   */
  readonly hook = (groups: readonly (readonly unknown[])[]): unknown => {
    const taking = this.#taking;
    if (taking === null || this.#flat || groups.length === 0) {
      return groups.flat();
    }
    return partsPlaceholder(groups.map((group) => {
      // Numbers are never reused: two groups never share one, and a part
      // not committed yet is simply written (again).
      let n = this.#numbers.get(group);
      if (n === undefined) {
        n = this.#next++;
        this.#numbers.set(group, n);
      }
      taking.set(n, group);
      return n;
    }));
  };

  /**
   * Takes a step snapshot through `take` (which must call the subtask's
   * snapshot), and says what to write.
   */
  snapshot(take: () => unknown): PartsOfStep {
    this.#taking = new Map();
    this.#flat = false;
    try {
      let state = take();
      let fresh = [...this.#taking].filter(([n]) => !this.#committed.has(n));
      if (fresh.length > MAX_NEW_PARTS) {
        this.#taking = new Map();
        this.#flat = true;
        state = take();
        fresh = [];
      }
      const parts = [...this.#taking.keys()];
      const referenced = new Set(parts);
      return {
        state,
        puts: fresh.map(([n, group]) => ({
          type: "put",
          key: partKey(n),
          value: encodeStructured(partForm(group)),
        })),
        parts,
        dropped: [...this.#committed].filter((n) => !referenced.has(n)),
        nextPart: this.#next,
      };
    } finally {
      this.#taking = null;
      this.#flat = false;
    }
  }

  /** Records that a step's state was committed. */
  committed(step: PartsOfStep): void {
    this.#committed = new Set(step.parts);
  }
}
