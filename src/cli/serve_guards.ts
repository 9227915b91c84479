/**
 * What `deno task dev` checks before it serves: the token it was given,
 * who can reach the address it binds, and that its store can be written.
 * Each mistake is caught at start, loudly, rather than found later as an
 * open service or a failed ingest.
 *
 * @module
 */

import { isLoopbackHost, loopbackHosts } from "../http/host_check.ts";

/**
 * The token from `WEIR_TOKEN`: `undefined` when unset.
 *
 * @param value The variable's value, `undefined` when unset.
 * @returns The token.
 * @throws {RangeError} If it is set but empty or only whitespace: that
 * would silently run without a token, which is not what setting it meant.
 *
 * @example
 * ```ts
 * import { tokenFromEnv } from "./serve_guards.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(tokenFromEnv(undefined), undefined);
 * assert.equal(tokenFromEnv("s3cret"), "s3cret");
 * assert.throws(() => tokenFromEnv(""), RangeError);
 * ```
 */
export function tokenFromEnv(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (value.trim() === "") {
    throw new RangeError(
      `Cannot start as 'WEIR_TOKEN' must be a non-empty token: current value is empty${
        value === "" ? "" : " (only whitespace)"
      }; set a token, or unset WEIR_TOKEN to run without one`,
    );
  }
  return value;
}

/**
 * The warning to print when the service binds a host other machines can
 * reach and has no token: anyone who reaches it can ingest and trigger
 * checkpoints. `null` when there is nothing to warn about.
 *
 * @param host The host the service binds (`--host`).
 * @param token The token, if any.
 * @returns The warning's lines, or `null`.
 */
export function exposureWarning(
  host: string,
  token: string | undefined,
): string | null {
  if (token !== undefined || isLoopbackHost(host)) return null;
  return [
    "weir: WARNING ****************************************************",
    `weir: WARNING: serving on ${host} WITHOUT A TOKEN: anyone who can reach`,
    "weir: WARNING: this address can ingest records and trigger checkpoints.",
    "weir: WARNING: set WEIR_TOKEN, or bind --host 127.0.0.1.",
    "weir: WARNING ****************************************************",
  ].join("\n");
}

/**
 * The hosts the app may answer to: on a loopback host without a token,
 * only the loopback names at `port` and the bound host itself (e.g.
 * `127.0.0.2:8000` when bound to `127.0.0.2`), a guard against DNS
 * rebinding (see `src/http/host_check.ts`); otherwise any (`undefined`).
 *
 * @param host The host the service binds (`--host`).
 * @param port The port it listens on.
 * @param token The token, if any.
 * @returns The allowed hosts, or `undefined` for any.
 */
export function allowedHostsFor(
  host: string,
  port: number,
  token: string | undefined,
): string[] | undefined {
  if (token !== undefined || !isLoopbackHost(host)) return undefined;
  // `::1` as `--host` takes it; a URL needs it in brackets.
  const name = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
  const bound = new URL(`http://${name}:${port}`).host;
  return [...new Set([...loopbackHosts(port), bound])];
}

/**
 * Writes and deletes a probe key, so a store that opens but cannot be
 * written (a read-only file or directory, a full disk, a read-only
 * database) fails at start rather than at the first ingest or checkpoint.
 * The probe expires by itself should the process die between the two.
 *
 * @param kv The opened store.
 * @param where The store's path, for the message.
 * @throws {Error} If the write or the delete fails, naming the store and
 * the cause.
 */
export async function probeStore(kv: Deno.Kv, where: string): Promise<void> {
  const key = ["weir-probe", crypto.randomUUID()];
  try {
    await kv.set(key, 1, { expireIn: 60_000 });
    await kv.delete(key);
  } catch (error) {
    throw new Error(
      `Cannot use the store '${where}' as it must be writable: ${
        error instanceof Error ? error.message : String(error)
      }; check the file's and its directory's permissions and the free disk space`,
      { cause: error },
    );
  }
}
