// What `deno task dev` checks before it serves: a WEIR_TOKEN set
// but empty, a host other machines can reach without a token, requests for
// another Host while it has no token (DNS rebinding), and a store that
// opens but cannot be written. Each test waits for what the process says,
// never for time to pass.

import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { Dev } from "../_support/dev_process.ts";
import { freePort } from "../_support/free_port.ts";

/** Runs `fn` with a fresh directory, removed afterwards. */
async function inTempDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir();
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Stops a serving process the way Ctrl-C does and waits for it. */
async function stop(dev: Dev): Promise<void> {
  dev.child.kill("SIGTERM");
  await dev.exit();
}

/**
 * The exit code of a process that must end before it serves; one that
 * serves instead is stopped and fails the test.
 */
async function exitsBeforeServing(dev: Dev): Promise<number> {
  const outcome = await Promise.race([
    dev.exit(),
    dev.line(/serving/).then(() => "served" as const),
  ]);
  if (outcome === "served") {
    await stop(dev);
    assert.fail(
      `it served instead of refusing to start:\n${dev.lines.join("\n")}`,
    );
  }
  return outcome;
}

/** One raw HTTP/1.1 GET with the given Host header; returns the status. */
async function statusFor(port: number, host: string): Promise<number> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    await conn.write(
      new TextEncoder().encode(
        `GET /jobs HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
      ),
    );
    const head = new Uint8Array(64);
    const n = await conn.read(head);
    const line = new TextDecoder().decode(head.subarray(0, n ?? 0));
    return Number(/^HTTP\/1\.1 (\d{3})/.exec(line)?.[1]);
  } finally {
    conn.close();
  }
}

Deno.test("main.ts refuses WEIR_TOKEN set but empty, with exit code 1 and before serving", async () => {
  await inTempDir(async (dir) => {
    const dev = new Dev(
      ["--port", String(freePort()), "--store", `${dir}/weir.sqlite`],
      { WEIR_TOKEN: "" },
    );
    assert.equal(await exitsBeforeServing(dev), 1);
    const out = dev.lines.join("\n");
    assert.match(
      out,
      /error: Cannot start as 'WEIR_TOKEN' must be a non-empty token: current value is empty; set a token, or unset WEIR_TOKEN/,
    );
    assert.doesNotMatch(out, /serving/);
  });
});

Deno.test("main.ts warns loudly when it serves a non-loopback host without a token, and not with one", async () => {
  await inTempDir(async (dir) => {
    const args = ["--host", "0.0.0.0", "--store", `${dir}/weir.sqlite`];
    const open = new Dev([...args, "--port", String(freePort())]);
    await open.line(/serving/);
    await stop(open); // every line read (stderr and stdout are read apart)
    const out = open.lines.join("\n");
    assert.match(out, /WARNING: serving on 0\.0\.0\.0 WITHOUT A TOKEN/);
    assert.match(out, /WARNING: set WEIR_TOKEN, or bind --host 127\.0\.0\.1/);
    const guarded = new Dev([...args, "--port", String(freePort())], {
      WEIR_TOKEN: "s3cret",
    });
    await guarded.line(/serving/);
    await stop(guarded); // every line read
    assert.ok(!guarded.lines.some((l) => /WARNING/.test(l)));
  });
});

Deno.test("main.ts on 127.0.0.1 without a token answers 403 to a request for another Host", async () => {
  await inTempDir(async (dir) => {
    // Port 0: the host check must use the port actually bound.
    const dev = new Dev(["--port", "0", "--store", `${dir}/weir.sqlite`]);
    const [, port] = await dev.line(/serving http:\/\/127\.0\.0\.1:(\d+)/);
    try {
      assert.equal(await statusFor(Number(port), `evil.example:${port}`), 403);
      assert.equal(await statusFor(Number(port), `127.0.0.1:${port}`), 200);
      assert.equal(await statusFor(Number(port), `localhost:${port}`), 200);
    } finally {
      await stop(dev);
    }
  });
});

Deno.test("main.ts refuses a store that opens but cannot be written, with exit code 1 and before serving", async () => {
  await inTempDir(async (dir) => {
    const store = `${dir}/weir.sqlite`;
    const kv = await Deno.openKv(store);
    await kv.set(["seed"], 1);
    kv.close();
    // Reads work, every write fails, as on a read-only file: for root too.
    const db = new DatabaseSync(store);
    for (const event of ["INSERT", "UPDATE", "DELETE"]) {
      db.exec(
        `CREATE TRIGGER read_only_${event} BEFORE ${event} ON kv BEGIN SELECT RAISE(ABORT, 'attempt to write a readonly database'); END;`,
      );
    }
    db.close();
    const dev = new Dev(["--port", String(freePort()), "--store", store]);
    assert.equal(await exitsBeforeServing(dev), 1);
    const out = dev.lines.join("\n");
    assert.match(
      out,
      /error: Cannot use the store '.*weir\.sqlite' as it must be writable: attempt to write a readonly database/,
    );
    assert.doesNotMatch(out, /serving/);
  });
});
