import type { AccessGate, RouteAccess } from "../http/access.ts";

// Who may open the desktop app's socket. `/stream` lies outside /api, where every path is open (the
// console's pages), so it is named here; and a browser cannot give a WebSocket an Authorization
// header, so the app sends its key as `?token=`, taken on this path only (svc logs paths without
// their query, and history never sees a URL).

/** The desktop app's live-dictation socket. */
export const streamPath = "/stream";

/** `routeAccess` with `/stream` for any key, as `/api/dictate` is. */
export function withStreamAccess(
  routeAccess: (method: string, path: string) => RouteAccess,
): (method: string, path: string) => RouteAccess {
  return (method, path) => (path === streamPath ? "dictate" : routeAccess(method, path));
}

/**
 * `gate`, with `/stream`'s `?token=` presented as the request's Bearer key (unless it carries an
 * Authorization header already): a wrong one is refused as a wrong header is, before the upgrade.
 */
export function withStreamToken(gate: AccessGate): AccessGate {
  return (request, method, info, path) => {
    if (path === streamPath) adoptQueryToken(request);
    gate(request, method, info, path);
  };
}

function adoptQueryToken(request: Request): void {
  const url = request.url;
  const query = url.indexOf("?");
  if (query < 0 || request.headers.has("authorization")) return;
  const token = new URLSearchParams(url.slice(query + 1)).get("token");
  if (token) request.headers.set("authorization", `Bearer ${token}`);
}
