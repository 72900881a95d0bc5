// Which requests from another origin a browser would have held back for a CORS preflight (which
// svc never approves). Decided by an allow-list: a request counts as preflighted only when it has a
// shape no browser sends unasked, so a kind of unasked request nobody listed (a new report type)
// is refused rather than let through.
import { mediaTypeOf } from "./validate.ts";

// Body types svc's routes act on, none of them CORS-safelisted: a page on another origin can send
// them only after a preflight. Forms, beacons and no-cors fetches send safelisted types; CSP
// reports (application/csp-report), Reporting-API reports (application/reports+json) and
// `<a ping>` (text/ping) send their own types without asking: none of those is here.
const preflightedTypes = new Set([
  "application/json",
  "text/csv",
  "application/gzip",
  "application/x-gzip",
  "application/octet-stream",
  "binary/octet-stream",
  "application/unknown",
  "application/ogg",
]);
// Audio uploads: whatever the format, never safelisted.
const preflightedFamilies = ["audio/", "video/"];

function isPreflightedType(contentType: string | null): boolean {
  const essence = mediaTypeOf(contentType ?? undefined);
  if (essence === undefined) return false;
  return preflightedTypes.has(essence) || preflightedFamilies.some((family) => essence.startsWith(family));
}

/**
 * True when a browser would have sent this state-changing request from another origin only after a
 * CORS preflight. Fetch metadata first: a preflighted request is a `cors` one, so `no-cors`
 * (beacons, pings, reports, no-cors fetches), `navigate` (forms, also into a frame) and
 * `websocket` (no preflight exists for it) are refused whatever they carry. Then, for browsers
 * without fetch metadata: any method but GET, HEAD and POST is always preflighted; a POST only with
 * a body type from the list above.
 */
export function wasPreflighted(headers: Headers, method: string): boolean {
  const mode = headers.get("sec-fetch-mode");
  if (mode !== null && mode !== "cors") return false;
  // A WebSocket upgrade is a GET: no preflight guards it.
  if (method === "GET" || method === "HEAD") return false;
  if (method !== "POST") return true;
  return isPreflightedType(headers.get("content-type"));
}
