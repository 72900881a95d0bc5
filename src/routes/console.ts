import { type Context, Hono } from "hono";
import { notFound } from "../errors.ts";
import type { AppEnv } from "../http/types.ts";
import type { ConsoleAssets } from "../web/assets.ts";
import { isConsolePath, loginPath, screens } from "../web/console/paths.ts";

/**
 * The console document's policy: its own scripts and styles only (no inline code), requests and
 * the events socket to svc itself, and frames only from the plugin-page paths of this host.
 */
export function consoleCsp(host: string): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data: blob:",
    "media-src 'self' blob:",
    "connect-src 'self'",
    "worker-src 'self'",
    `frame-src http://${host}/api/plugins/`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

const escapeAttribute = (text: string) => text.replace(/&/g, "&amp;").replace(/"/g, "&quot;");

function consoleDocument(assets: ConsoleAssets, version: string): string {
  const { byName } = assets;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>svc</title>
<link rel="icon" href="${byName["icon.svg"].url}">
<link rel="stylesheet" href="${byName["app.css"].url}">
<script type="module" src="${byName["app.js"].url}"></script>
</head>
<body>
<div id="app" data-version="${escapeAttribute(version)}" data-worklet="${byName["worklet.js"].url}"></div>
</body>
</html>
`;
}

const yearLong = "public, max-age=31536000, immutable";

/**
 * The web console: its document at every console path (never cached: it names the current
 * hashed files) and its files under `/assets/<name>.<hash>.<ext>` (cached for a year).
 */
export function createConsoleRoutes(deps: { version: string; assets: () => Promise<ConsoleAssets> }) {
  const { assets } = deps;
  const app = new Hono<AppEnv>();
  app.get("/assets/:file", async (c) => {
    const asset = (await assets()).byUrl.get(c.req.path);
    if (!asset) throw notFound("No such console file: the page may be older than this svc; reload it.");
    const gzip = /\bgzip\b/.test(c.req.header("accept-encoding") ?? "");
    const headers: Record<string, string> = {
      "Content-Type": asset.type,
      "Cache-Control": yearLong,
      Vary: "Accept-Encoding",
    };
    if (gzip) headers["Content-Encoding"] = "gzip";
    // The bridge script runs in sandboxed plugin pages, whose opaque origin a same-origin
    // resource policy would refuse.
    if (asset.crossOrigin) headers["Cross-Origin-Resource-Policy"] = "cross-origin";
    return new Response(gzip ? asset.gzip : asset.body, { headers });
  });
  const document = async (c: Context<AppEnv>) => {
    if (!isConsolePath(c.req.path)) throw notFound("No such console page.");
    const host = c.req.header("host") ?? "localhost";
    const loaded = await assets();
    const { byName } = loaded;
    return c.html(consoleDocument(loaded, deps.version), 200, {
      "Content-Security-Policy": consoleCsp(host),
      "Cache-Control": "no-cache",
      "X-Frame-Options": "DENY",
      // The browser fetches the first screen's files while it is still reading the document.
      Link: `<${byName["app.css"].url}>; rel=preload; as=style, <${byName["app.js"].url}>; rel=modulepreload`,
    });
  };
  for (const screen of screens) app.get(screen.path, document);
  app.get("/plugins/:slug/:page", document);
  app.get(loginPath, document);
  return app;
}
