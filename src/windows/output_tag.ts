/**
 * Names a side output, such as the late records of a window.
 *
 * @module
 */

import { requireNonEmptyString } from "../time/validate.ts";

/**
 * Identifies a side output and the type of its records (Flink's `OutputTag`).
 * Two tags are the same output when their ids are equal.
 *
 * @typeParam T The type of the records sent to this output.
 *
 * @example A tag for late clicks
 * ```ts
 * import { OutputTag } from "@weir/weir";
 * import assert from "node:assert/strict";
 *
 * const late = new OutputTag<{ page: string }>("late-clicks");
 * assert.equal(late.id, "late-clicks");
 * ```
 */
export class OutputTag<T> {
  /** The output's id, unique within a job. */
  readonly id: string;
  /** Carries `T` for type inference only; never set at runtime. */
  declare readonly _type?: T;

  /**
   * Creates a tag.
   *
   * @param id The output's id, unique within a job.
   * @throws {RangeError} If `id` is an empty string.
   * @throws {TypeError} If `id` is not a string.
   */
  constructor(id: string) {
    this.id = requireNonEmptyString(id, {
      action: "create OutputTag",
      param: "id",
    });
  }
}
