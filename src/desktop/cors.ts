// CORS for the Freestyle desktop app (SVC_FREESTYLE_DESKTOP=1): its renderer runs at
// app://renderer, so every call it makes is cross-origin. Only that origin and the exact
// SVC_TRUSTED_ORIGINS entries are granted, never `*` and never other local ports: a page on
// another port of this machine (any dev server) must still not read svc.

/** The origin the desktop app's windows load from (Electron's registered `app` scheme). */
export const desktopOrigin = "app://renderer";

/** The methods and request headers the desktop app uses (a preflight must approve them). */
const allowMethods = "GET, POST, PUT, PATCH, DELETE";
const allowHeaders = "authorization, content-type, x-app-context, x-audio-duration-ms, x-skip-post-process";

export interface DesktopCors {
  /**
   * The answer to a preflight (`OPTIONS`) from a granted origin, before any key is asked for (a
   * preflight never carries one); null for any other request, which goes on as it would.
   */
  preflight(request: Request, method: string): Response | null;
  /** Grants a granted origin's request the right to read `headers`' answer; varies every answer by Origin. */
  grant(request: Request, headers: Headers): void;
}

export function createDesktopCors(trustedOrigins: ReadonlySet<string>): DesktopCors {
  const granted = (origin: string | null): origin is string =>
    origin !== null && (origin === desktopOrigin || trustedOrigins.has(origin));
  return {
    preflight(request, method) {
      if (method !== "OPTIONS") return null;
      const origin = request.headers.get("origin");
      if (!granted(origin)) return null;
      return new Response(null, {
        status: 204,
        headers: {
          "Access-Control-Allow-Origin": origin,
          "Access-Control-Allow-Methods": allowMethods,
          "Access-Control-Allow-Headers": allowHeaders,
          "Access-Control-Max-Age": "600",
        },
      });
    },
    grant(request, headers) {
      // Whether an answer may be read depends on the Origin: a cache must not reuse it for another.
      // (A preflight's 204 passes here too: this is its one Vary.)
      headers.append("Vary", "Origin");
      const origin = request.headers.get("origin");
      if (granted(origin)) headers.set("Access-Control-Allow-Origin", origin);
    },
  };
}
