// Who is on the other end: the peer's address, or behind a proxy svc was told to believe
// (SVC_TRUSTED_PROXIES), the client address that proxy forwarded. The throttle counts it and the
// logs name it; whether the request came from this machine is decided apart, on the peer alone.
import { type CidrRange, inRanges, parseAddress } from "../addresses.ts";
import type { RequestInfo } from "./request-info.ts";

/** The client's address for a request, and whether it reached svc over https. */
export interface ClientAddressing {
  address(request: Request, info: RequestInfo): string;
  /** https at svc, or `X-Forwarded-Proto`/`Forwarded: proto=https` from any proxy (the cookie only gets stricter). */
  https(request: Request): boolean;
}

/** An address as a proxy writes it: `for=` quotes, IPv6 brackets and a port taken off. */
function bare(text: string): string {
  let value = text.trim().replace(/^"|"$/g, "");
  if (value.startsWith("[")) return value.slice(1, value.indexOf("]") > 0 ? value.indexOf("]") : undefined);
  // a.b.c.d:port; an IPv6 address has several colons and no port without brackets.
  const colon = value.indexOf(":");
  if (colon > 0 && colon === value.lastIndexOf(":")) value = value.slice(0, colon);
  return value;
}

/** The chain of addresses a proxy forwarded, client first: X-Forwarded-For, else Forwarded's `for=`, else X-Real-IP. */
function forwardedChain(headers: Headers): string[] {
  const xff = headers.get("x-forwarded-for");
  if (xff !== null) return xff.split(",").map(bare);
  const forwarded = headers.get("forwarded");
  if (forwarded !== null)
    return [...forwarded.matchAll(/(?:^|[;,\s])for=("[^"]*"|[^;,\s]*)/gi)].map((match) =>
      bare(match[1] ?? ""),
    );
  const real = headers.get("x-real-ip");
  return real === null ? [] : [bare(real)];
}

export function createClientAddressing(trustedProxies: readonly CidrRange[]): ClientAddressing {
  return {
    address(request, info) {
      const peer = info.peerAddress;
      if (trustedProxies.length === 0 || !inRanges(peer, trustedProxies)) return peer;
      // Right to left: each trusted proxy appends the address it heard from; the first address no
      // trusted proxy holds is the client. Anything left of it the client may have written itself.
      const chain = forwardedChain(request.headers);
      for (let i = chain.length - 1; i >= 0; i--) {
        const hop = chain[i] ?? "";
        if (parseAddress(hop) === null) break;
        if (!inRanges(hop, trustedProxies)) return hop;
      }
      return peer;
    },
    https(request) {
      if (request.url.startsWith("https:")) return true;
      const headers = request.headers;
      const proto =
        headers.get("x-forwarded-proto") ?? /proto=([a-z]+)/i.exec(headers.get("forwarded") ?? "")?.[1];
      return proto?.split(",")[0]?.trim().toLowerCase() === "https";
    },
  };
}
