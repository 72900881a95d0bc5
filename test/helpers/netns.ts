// A second machine on the network, as far as svc can tell: a network namespace joined to this one by
// a veth pair, with addresses that exist only on that link. What runs inside it (curl, a Bun client)
// reaches svc from a non-loopback address, as a phone or laptop on the LAN would.
import { spawnSync } from "node:child_process";

export interface Peer {
  /** This side's address on the link: where svc is reached from the peer. */
  hostAddress: string;
  /** The peer's own address, as svc sees it. */
  peerAddress: string;
  /**
   * Runs a command inside the peer's namespace. Asynchronous: a server in this process must go on
   * answering while it runs.
   */
  run(
    command: string[],
    options?: { stdin?: string; timeoutMs?: number },
  ): Promise<{ code: number; stdout: string; stderr: string }>;
  close(): void;
}

const sh = (args: string[]) => spawnSync(args[0] ?? "", args.slice(1), { encoding: "utf8" });

/** A peer on a fresh link, or the reason the kernel refused one (the test then says so and skips). */
export function createPeer(): Peer | { refused: string } {
  const tag = Math.random().toString(36).slice(2, 8);
  const ns = `svcpeer-${tag}`;
  const hostSide = `svh${tag}`;
  const peerSide = `svp${tag}`;
  const subnet = `10.${200 + Math.floor(Math.random() * 50)}.${Math.floor(Math.random() * 250)}`;
  const hostAddress = `${subnet}.1`;
  const peerAddress = `${subnet}.2`;
  const steps = [
    ["ip", "netns", "add", ns],
    ["ip", "link", "add", hostSide, "type", "veth", "peer", "name", peerSide],
    ["ip", "link", "set", peerSide, "netns", ns],
    ["ip", "addr", "add", `${hostAddress}/30`, "dev", hostSide],
    ["ip", "link", "set", hostSide, "up"],
    ["ip", "netns", "exec", ns, "ip", "addr", "add", `${peerAddress}/30`, "dev", peerSide],
    ["ip", "netns", "exec", ns, "ip", "link", "set", peerSide, "up"],
    ["ip", "netns", "exec", ns, "ip", "link", "set", "lo", "up"],
  ];
  const close = () => {
    sh(["ip", "link", "del", hostSide]);
    sh(["ip", "netns", "del", ns]);
  };
  for (const step of steps) {
    const result = sh(step);
    if (result.status !== 0) {
      close();
      return { refused: `${step.join(" ")}: ${result.stderr.trim() || result.error?.message}` };
    }
  }
  return {
    hostAddress,
    peerAddress,
    async run(command, options = {}) {
      const child = Bun.spawn(["ip", "netns", "exec", ns, ...command], {
        stdin: options.stdin === undefined ? "ignore" : new TextEncoder().encode(options.stdin),
        stdout: "pipe",
        stderr: "pipe",
        timeout: options.timeoutMs ?? 60_000,
      });
      const [stdout, stderr, code] = await Promise.all([
        new Response(child.stdout).text(),
        new Response(child.stderr).text(),
        child.exited,
      ]);
      return { code, stdout, stderr };
    },
    close,
  };
}
