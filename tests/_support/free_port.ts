// A TCP port nobody listens on now, for tests that start a server process.

/** Binds port 0 on 127.0.0.1, reads the port the system chose, closes it. */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}
