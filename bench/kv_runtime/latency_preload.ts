// Preloaded by a benchmark worker process (`deno run --preload`): every
// Deno KV it opens gets the latency WEIR_BENCH_KV_LATENCY_MS says.

import { patchOpenKv } from "./latency_kv.ts";

patchOpenKv();
