// The service end to end: `main.ts` (what `deno task dev` runs) serves a job
// fed over HTTP; records are acknowledged, the process is killed with
// SIGKILL, started again, fed more; every acknowledged record is counted
// exactly once.

import assert from "node:assert/strict";
import { readTable } from "../../src/connectors/sinks/kv_table.ts";
import { COUNTS_TABLE, type KeyCount } from "../../examples/ingest_counts.ts";
import { freePort } from "../_support/free_port.ts";
import { waitFor } from "../_support/wait_for.ts";
import { mainCommand } from "../_support/dev_process.ts";

const T0 = Date.UTC(2026, 0, 1);

function start(port: number, store: string): Deno.ChildProcess {
  return mainCommand(
    ["examples/ingest_counts.ts", "--port", String(port), "--store", store],
    { stdout: "null" },
  ).spawn();
}

async function ready(port: number, child: Deno.ChildProcess): Promise<void> {
  await waitFor("the service to answer", async () => {
    const response = await fetch(`http://127.0.0.1:${port}/jobs`);
    await response.body?.cancel();
    return response.ok;
  }, { unless: child.status });
}

async function post(port: number, records: unknown[]): Promise<void> {
  const response = await fetch(`http://127.0.0.1:${port}/ingest/events`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(records),
  });
  const body = await response.text();
  assert.equal(response.status, 202, body);
}

function batch(
  from: number,
  count: number,
): Array<{ key: string; ts: number }> {
  return Array.from({ length: count }, (_, i) => ({
    key: `k${(from + i) % 5}`,
    ts: T0 + ((from + i) * 97) % 30_000,
  }));
}

async function counted(store: string): Promise<Map<string, number>> {
  const kv = await Deno.openKv(store);
  try {
    const rows = await readTable<KeyCount>(kv, COUNTS_TABLE);
    return new Map(
      [...rows.values()].filter((r) => r.id.startsWith("k")).map((
        r,
      ) => [r.id, r.count]),
    );
  } finally {
    kv.close();
  }
}

Deno.test({
  name:
    "deno task dev: records acknowledged before a SIGKILL are counted exactly once after a restart",
  async fn() {
    const dir = await Deno.makeTempDir();
    const store = `${dir}/weir.sqlite`;
    const port = freePort();
    const first = start(port, store);
    await ready(port, first);
    await post(port, batch(0, 300));
    first.kill("SIGKILL");
    await first.status;
    await first.stderr.cancel();

    const second = start(port, store);
    try {
      await ready(port, second);
      await post(port, batch(300, 300));
      // Far-future records on many keys (so on every partition) close the windows.
      await post(
        port,
        Array.from(
          { length: 20 },
          (_, i) => ({ key: `z${i}`, ts: T0 + 3_600_000 }),
        ),
      );
      const expected = new Map<string, number>();
      for (const { key, ts } of batch(0, 600)) {
        const id = `${key}@${ts - ((ts - T0) % 10_000)}`;
        expected.set(id, (expected.get(id) ?? 0) + 1);
      }
      // Every acknowledged record counted (or more, which the table shows).
      const got = await waitFor("600 records in the table", async () => {
        const rows = await counted(store);
        return [...rows.values()].reduce((a, b) => a + b, 0) >= 600 && rows;
      }, { unless: second.status });
      assert.deepEqual(
        [...got].sort(),
        [...expected].sort(),
      );
    } finally {
      second.kill("SIGTERM");
      await second.status;
      await second.stderr.cancel();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

async function cli(
  ...args: string[]
): Promise<{ code: number; stderr: string }> {
  const { code, stderr } = await mainCommand(args, { stdout: "null" }).output();
  return { code, stderr: new TextDecoder().decode(stderr).trim() };
}

Deno.test("deno task dev reports a missing job file, a job file without a default function, and a port in use in one line", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const missing = await cli(
      "does/not/exist.ts",
      "--store",
      `${dir}/a.sqlite`,
    );
    assert.equal(missing.code, 1);
    assert.match(
      missing.stderr,
      /^error: Cannot load the job file 'does\/not\/exist.ts'/,
    );
    assert.equal(missing.stderr.split("\n").length, 1);

    await Deno.writeTextFile(`${dir}/broken.ts`, "export const x = 1;\n");
    const broken = await cli(`${dir}/broken.ts`, "--store", `${dir}/b.sqlite`);
    assert.equal(broken.code, 1);
    assert.match(broken.stderr, /default export must be a function/);

    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    try {
      const taken = await cli(
        "--port",
        String((listener.addr as Deno.NetAddr).port),
        "--store",
        `${dir}/c.sqlite`,
      );
      assert.equal(taken.code, 1);
      assert.match(taken.stderr, /port is in use/);
    } finally {
      listener.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
