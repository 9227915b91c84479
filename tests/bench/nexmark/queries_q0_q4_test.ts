// Nexmark q0–q4: the engine job's results equal the kernel's (as the
// query's `canonical` form says) at parallelism 1 and 2, on 20 000 events
// at 1 000 events/s (20 s of event time, so q4's auctions close mid-stream).

import assert from "node:assert/strict";
import { ManualClock, StreamEnvironment } from "../../../src/mod.ts";
import type { NexmarkConfig } from "../../../bench/nexmark/config.ts";
import { runKernel } from "../../../bench/nexmark/query.ts";
import { q0 } from "../../../bench/nexmark/queries/q0.ts";
import { q1 } from "../../../bench/nexmark/queries/q1.ts";
import { q2 } from "../../../bench/nexmark/queries/q2.ts";
import { q3 } from "../../../bench/nexmark/queries/q3.ts";
import { q4 } from "../../../bench/nexmark/queries/q4.ts";
import {
  checkAgainstKernel,
  generate,
  steppedOutOfOrderness,
} from "./_run_query.ts";
import { NexmarkSource } from "../../../bench/nexmark/source.ts";
import { type Event, PERSON } from "../../../bench/nexmark/model.ts";

const CONFIG: Partial<NexmarkConfig> = {
  numEvents: 20_000,
  firstEventRate: 1_000,
};
const EVENTS = generate(CONFIG);

Deno.test("q0 engine passes through the same bids as its kernel", async () => {
  await checkAgainstKernel(q0, CONFIG, EVENTS, 15_000);
});

Deno.test("q1 engine converts the same bids as its kernel", async () => {
  await checkAgainstKernel(q1, CONFIG, EVENTS, 15_000);
});

Deno.test("q2 engine selects the same bids as its kernel", async () => {
  await checkAgainstKernel(q2, CONFIG, EVENTS, 10);
});

Deno.test("q3 engine joins the same local sellers as its kernel", async () => {
  await checkAgainstKernel(q3, CONFIG, EVENTS, 20);
});

Deno.test("q3 kernel emits auctions that arrive before their seller once the seller comes", () => {
  // Sellers of buffered auctions: the kernel's results include some whose
  // auction came before the person event.
  const personAt = new Map<number, number>();
  const auctionAt = new Map<number, number>();
  EVENTS.forEach((e, i) => {
    if (e.kind === PERSON) personAt.set(e.person.id, i);
    else if (e.auction !== null) auctionAt.set(e.auction.id, i);
  });
  const late = runKernel(q3, EVENTS, new ManualClock(0)).filter((r) => {
    const seller = EVENTS[auctionAt.get(r.id)!].auction!.seller;
    return auctionAt.get(r.id)! < personAt.get(seller)!;
  });
  assert.ok(late.length > 0);
});

Deno.test("q4 engine gives the same averages per category as its kernel", async () => {
  await checkAgainstKernel(q4, CONFIG, EVENTS, 50);
  const canonical = q4.canonical!(runKernel(q4, EVENTS, new ManualClock(0)));
  assert.equal((canonical as unknown[]).length, 5);
});

Deno.test("steppedOutOfOrderness() advances the watermark mid-stream", async () => {
  const env = new StreamEnvironment({
    jobName: "stepped",
    clock: new ManualClock(0),
    autoWatermarkIntervalMs: 0,
  });
  const watermarks = env.fromSource(
    new NexmarkSource(CONFIG),
    steppedOutOfOrderness(1_000),
    "nexmark",
  ).keyBy((e: Event) => e.kind).process<number, null>({
    processElement(_e, ctx, out) {
      out(ctx.currentWatermark);
    },
  });
  const seen = new Set(await env.executeAndCollect(watermarks));
  // 20 s of event time, less the 4 s bound, in 1 s steps.
  assert.ok(seen.size >= 15, `saw ${seen.size} watermarks`);
});
