import { urlHost } from "../listen.ts";

/** Maps a bind address to one a client on this machine can dial. */
export function dialHost(host: string): string {
  if (host === "0.0.0.0" || host === "") return "127.0.0.1";
  if (host === "::" || host === "[::]") return "[::1]";
  return urlHost(host);
}

export async function healthcheck(host: string, port: number, timeoutMs = 5000): Promise<boolean> {
  try {
    const response = await fetch(`http://${dialHost(host)}:${port}/api/health`, {
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!response.ok) return false;
    const body = (await response.json()) as { status?: unknown };
    return body.status === "ok";
  } catch {
    return false;
  }
}
