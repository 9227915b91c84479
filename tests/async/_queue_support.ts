// Helpers shared by the element-queue tests.

import type {
  EmittedElement,
  StreamElementQueue,
} from "../../src/async/stream_element_queue.ts";

/** Polls until `null`, as the operator's follow-up mails do. */
export function pollAll<OUT>(
  queue: StreamElementQueue<unknown, OUT>,
): EmittedElement<OUT>[] {
  const out: EmittedElement<OUT>[] = [];
  for (let e = queue.pollEmittable(); e !== null; e = queue.pollEmittable()) {
    out.push(e);
  }
  return out;
}

/** An emitted record batch. */
export function rec(
  id: number,
  values: number[],
  timestamp: number,
): EmittedElement<number> {
  return { kind: "records", id, values, timestamp };
}

/** An emitted watermark. */
export function wm(watermark: number): EmittedElement<number> {
  return { kind: "watermark", watermark };
}
