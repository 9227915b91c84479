import assert from "node:assert/strict";
import { hashKey } from "../../../src/runtime/key_groups.ts";
import { IngestRouter } from "../../../src/connectors/sources/ingest_router.ts";

Deno.test("IngestRouter.route() sends a keyed record to hashKey(key) % partitions and keyless ones round-robin across calls", () => {
  const router = new IngestRouter({ partitions: 3, keyField: "key" });
  const first = router.route([{ n: 1 }, { n: 2 }, { key: "k" }], [1, 2, 3]);
  const keyed = hashKey("k") % 3;
  const byPartition = new Map(
    first.map((a) => [a.partition, a.records.map((r) => r.value)]),
  );
  assert.deepEqual(byPartition.get(0)?.[0], { n: 1 });
  assert.deepEqual(byPartition.get(1)?.[0], { n: 2 });
  assert.ok(byPartition.get(keyed)?.some((v) => v.key === "k"));
  assert.deepEqual(
    first.map((a) => a.partition),
    [...byPartition.keys()].sort(),
  );
  const second = router.route([{ n: 3 }], [4]);
  assert.deepEqual(second, [{
    partition: 2,
    records: [{ value: { n: 3 }, timestamp: 4 }],
  }]);
});
