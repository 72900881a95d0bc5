/** A TCP port on 127.0.0.1 that nothing listens on now: the system picks it, then it is let go. */
export function freePort(): number {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const { port } = probe;
  probe.stop(true);
  return port;
}
