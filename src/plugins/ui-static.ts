import { realpath, stat } from "node:fs/promises";
import { extname, join, sep } from "node:path";
import { AppError, notFound } from "../errors.ts";

const mimeTypes: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".map": "application/json",
  ".txt": "text/plain; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".avif": "image/avif",
  ".ico": "image/x-icon",
  ".woff": "font/woff",
  ".woff2": "font/woff2",
  ".ttf": "font/ttf",
  ".wasm": "application/wasm",
};

/**
 * Plugin pages run sandboxed: an opaque origin, so requests they make themselves carry
 * `Origin: null` and are refused; the app's bridge is their only way to the API.
 */
export const pluginPageCsp = [
  "sandbox allow-scripts",
  "default-src 'none'",
  "script-src 'self' 'unsafe-inline'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "media-src 'self' data: blob:",
  "connect-src 'none'",
  "form-action 'none'",
  "base-uri 'none'",
  // Only svc's own pages (the console) may frame a plugin page: a foreign site framing it could
  // dress it up to trick a click.
  "frame-ancestors 'self'",
].join("; ");

const missing = () => notFound("No such plugin page or asset.");

// Checked on the raw text, before and after one decode: encoded separators, NUL, double encoding.
const rawForbidden = /%(?:2f|5c|00|25)|\\|\/\//i;

/** The decoded path segments of a UI request, or an error for anything that could escape. */
export function uiSegments(rawRest: string): string[] {
  if (rawForbidden.test(rawRest)) throw missing();
  const parts = rawRest === "" ? ["index.html"] : rawRest.split("/");
  if (parts.at(-1) === "") parts[parts.length - 1] = "index.html";
  return parts.map((part) => {
    let segment: string;
    try {
      segment = decodeURIComponent(part);
    } catch {
      throw new AppError("invalid_path", "The path is not valid percent-encoded UTF-8.");
    }
    if (segment.includes("\0")) throw new AppError("invalid_path", "The path contains a NUL byte.");
    // No dotfiles or ".."; no trailing dot/space or ":" (Windows aliases and streams).
    if (segment === "" || segment.startsWith(".") || /[. ]$/.test(segment) || /[:/\\]/.test(segment))
      throw missing();
    if (segment.normalize("NFC") !== segment) throw missing();
    return segment;
  });
}

const escapeAttribute = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");

/** Where the first of these tags ends, if it comes before any script; -1 otherwise. */
function endOfTagBeforeScripts(text: string, tag: RegExp, firstScript: number): number {
  const match = tag.exec(text);
  return match && match.index < firstScript ? match.index + match[0].length : -1;
}

/**
 * The document with `<script src="scriptUrl">` added where it runs before any script of the
 * page's: right after `<head>`, else after `<html>` or the doctype, else at the start (after a
 * byte order mark). Works on bytes, so the page's own encoding is left as it is.
 */
export function withBridgeScript(html: Uint8Array, scriptUrl: string): Uint8Array<ArrayBuffer> {
  // latin1 maps each byte to one character, so string offsets are byte offsets.
  const text = Buffer.from(html.buffer, html.byteOffset, html.byteLength).toString("latin1");
  const scriptAt = text.search(/<script[\s>/]/i);
  const firstScript = scriptAt === -1 ? text.length : scriptAt;
  const bom = text.startsWith("\xef\xbb\xbf") ? 3 : 0;
  const at = [/<head(?:\s[^>]*)?>/i, /<html(?:\s[^>]*)?>/i, /<!doctype[^>]*>/i]
    .map((tag) => endOfTagBeforeScripts(text, tag, firstScript))
    .find((end) => end !== -1);
  const position = at ?? bom;
  const tag = new TextEncoder().encode(`<script src="${escapeAttribute(scriptUrl)}"></script>`);
  const out = new Uint8Array(html.byteLength + tag.byteLength);
  out.set(html.subarray(0, position));
  out.set(tag, position);
  out.set(html.subarray(position), position + tag.byteLength);
  return out;
}

export interface PluginAssetOptions {
  /**
   * A path on svc (`/assets/bridge.<hash>.js`) of the script that defines `window.svc`: added to
   * every HTML document so it runs before the page's scripts. Absent: documents are served as
   * they are, and the page has no bridge.
   */
  bridgeScriptUrl?: string;
}

/**
 * Serves a file from the plugin's `dist/ui/`, resolved through realpath so a link planted in
 * there cannot lead outside it. Only known file types are served.
 */
export async function servePluginAsset(
  packageDir: string,
  rawRest: string,
  options: PluginAssetOptions = {},
): Promise<Response> {
  const segments = uiSegments(rawRest);
  const type = mimeTypes[extname(segments.at(-1) ?? "").toLowerCase()];
  if (!type) throw missing();
  let root: string;
  let file: string;
  try {
    root = await realpath(join(packageDir, "dist", "ui"));
    file = await realpath(join(root, ...segments));
  } catch {
    throw missing();
  }
  if (!file.startsWith(root + sep)) throw missing();
  const info = await stat(file).catch(() => undefined);
  if (!info?.isFile()) throw missing();
  const { bridgeScriptUrl } = options;
  const body =
    bridgeScriptUrl !== undefined && type.startsWith("text/html")
      ? withBridgeScript(await Bun.file(file).bytes(), bridgeScriptUrl)
      : Bun.file(file);
  return new Response(body, {
    headers: {
      "Content-Type": type,
      "Content-Length": String(body instanceof Uint8Array ? body.byteLength : info.size),
      "Content-Security-Policy": pluginPageCsp,
      "Cache-Control": "no-cache",
      // The sandboxed page has an opaque origin; its own scripts and images must still load, and
      // its module scripts and `crossorigin` stylesheets are CORS requests from origin "null".
      // These are the plugin's public files: no credentials, nothing per user.
      "Cross-Origin-Resource-Policy": "cross-origin",
      "Access-Control-Allow-Origin": "*",
    },
  });
}
