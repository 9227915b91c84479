/**
 * The Nexmark queries the benchmark runs, in order, then `peer-tumble`.
 *
 * @module
 */

import type { NexmarkQuery } from "../query.ts";
import { q0 } from "./q0.ts";
import { q1 } from "./q1.ts";
import { q2 } from "./q2.ts";
import { q3 } from "./q3.ts";
import { q4 } from "./q4.ts";
import { q5 } from "./q5.ts";
import { q7 } from "./q7.ts";
import { q8 } from "./q8.ts";
import { q11 } from "./q11.ts";
import { q12 } from "./q12.ts";
import { peerTumble } from "./peer_tumble.ts";

/** Every query, by name. */
export const QUERIES: readonly NexmarkQuery<unknown, unknown>[] = [
  q0,
  q1,
  q2,
  q3,
  q4,
  q5,
  q7,
  q8,
  q11,
  q12,
  peerTumble,
] as NexmarkQuery<unknown, unknown>[];

/** The windowed queries: the engine must reach a third of the kernel on these. */
export const WINDOWED: ReadonlySet<string> = new Set([
  "q5",
  "q7",
  "q8",
  "q11",
  "q12",
  "peer-tumble",
]);
