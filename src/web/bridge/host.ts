import { allowBridgePath } from "./policy.ts";
import type { BridgeReply, HeaderList } from "./protocol.ts";

/** What `invoke` can do in the console (SPEC.md, Appendix: host actions). */
export interface BridgeActions {
  copy(text: string): Promise<void> | void;
  toast(message: string, variant: ToastVariant): void;
  /** `to` is an in-app path (`/plugins`, `/history?q=x`), never `/api` or another origin. */
  navigate(to: string): void;
}

/** How the console makes an allowed request; `fetch` in the browser, a stand-in in unit tests. */
export type BridgeFetch = (path: string, init: RequestInit) => Promise<Response>;

export const toastVariants = ["success", "info", "warning", "error"] as const;
export type ToastVariant = (typeof toastVariants)[number];

const limits = { copy: 100_000, toast: 1_000, navigate: 2_048, headers: 100, method: 32 };

// Request headers a page may set: content negotiation, caching and conditionals, and its own
// `X-…` headers. Everything else is the browser's (Cookie, Origin, Referer, Host, Sec-*, User-Agent),
// the transport's (Content-Length, Transfer-Encoding, Connection, Expect, Upgrade), credentials a
// page must not choose (Authorization, Proxy-Authorization), or is read as the client's identity
// or intent by proxies and frameworks (Forwarded, X-Forwarded-*, X-Real-IP, method overrides):
// dropped, as fetch drops forbidden headers, rather than refused.
const allowedHeaders = new Set([
  "accept",
  "accept-language",
  "content-language",
  "content-type",
  "cache-control",
  "pragma",
  "if-match",
  "if-none-match",
  "if-modified-since",
  "if-unmodified-since",
  "if-range",
  "range",
]);
const deniedCustomHeaders = /^x-(?:forwarded-|real-ip$|http-method|method-override$)/;
const token = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// Methods fetch itself refuses to send.
const forbiddenMethods = new Set(["CONNECT", "TRACE", "TRACK"]);
const normalisedMethods = new Set(["DELETE", "GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH"]);
// (Written as "neither printable ASCII nor non-ASCII": a regex may not spell control characters.)
const control = /[^ -~\u0080-\uffff]/;

class BridgeError extends Error {}

type Message = Record<string, unknown>;

const isPlainObject = (value: unknown): value is Message =>
  typeof value === "object" &&
  value !== null &&
  Object.prototype.toString.call(value) === "[object Object]" &&
  !Array.isArray(value);

const isArrayBuffer = (value: unknown): value is ArrayBuffer =>
  Object.prototype.toString.call(value) === "[object ArrayBuffer]";

/** Throws unless `message` has exactly these keys (besides the envelope's). */
function expectKeys(message: Message, keys: readonly string[], what: string): void {
  const extra = Object.keys(message).filter((key) => !keys.includes(key));
  if (extra.length > 0) throw new BridgeError(`${what} has unknown fields: ${extra.join(", ")}`);
}

function jsonReply(id: number, status: number, code: string, message: string): BridgeReply {
  const body = new TextEncoder().encode(JSON.stringify({ error: { code, message } })).buffer as ArrayBuffer;
  const statusText = status === 403 ? "Forbidden" : "Bad Gateway";
  return {
    svcBridge: 1,
    id,
    kind: "response",
    status,
    statusText,
    headers: [["content-type", "application/json"]],
    body,
  };
}

function readMethod(value: unknown): string {
  if (typeof value !== "string" || value.length > limits.method || !token.test(value))
    throw new BridgeError("method must be an HTTP method name");
  const upper = value.toUpperCase();
  if (forbiddenMethods.has(upper)) throw new BridgeError(`method ${value} is not allowed`);
  return normalisedMethods.has(upper) ? upper : value;
}

function readHeaders(value: unknown): Headers {
  if (!Array.isArray(value) || value.length > limits.headers)
    throw new BridgeError(`headers must be a list of at most ${limits.headers} [name, value] pairs`);
  const headers = new Headers();
  for (const pair of value) {
    const [name, text] = Array.isArray(pair) && pair.length === 2 ? pair : [];
    if (typeof name !== "string" || typeof text !== "string" || !token.test(name) || control.test(text))
      throw new BridgeError("each header must be a [name, value] pair of valid strings");
    const lower = name.toLowerCase();
    const custom = lower.startsWith("x-") && !deniedCustomHeaders.test(lower);
    if (allowedHeaders.has(lower) || custom) headers.append(lower, text);
  }
  return headers;
}

function readText(payload: Message, key: string, max: number): string {
  const value = payload[key];
  if (typeof value !== "string") throw new BridgeError(`${key} must be a string`);
  if (value.length > max) throw new BridgeError(`${key} is longer than ${max} characters`);
  return value;
}

/** `to` as an in-app console path, or an error: no other origin, no `/api`, nothing ambiguous. */
export function consoleRoute(to: string): string {
  const refuse = (why: string) => new BridgeError(`navigate: "${to.slice(0, 80)}" ${why}`);
  if (!to.startsWith("/") || to.startsWith("//") || to.includes("\\"))
    throw refuse("is not an in-app path: use one such as /plugins");
  if (control.test(to) || to.includes(" ")) throw refuse("holds spaces or control characters");
  const base = "http://console.invalid";
  const url = new URL(to, base);
  if (url.origin !== base) throw refuse("leaves the console");
  let decoded: string;
  try {
    decoded = decodeURIComponent(url.pathname).toLowerCase();
  } catch {
    throw refuse("is not valid percent-encoded UTF-8");
  }
  for (const path of [url.pathname.toLowerCase(), decoded]) {
    if (path === "/api" || path.startsWith("/api/")) throw refuse("is an API route, not a console screen");
  }
  return url.pathname + url.search + url.hash;
}

async function runAction(actions: BridgeActions, channel: unknown, payload: unknown): Promise<void> {
  if (!isPlainObject(payload)) throw new BridgeError("the payload must be an object");
  switch (channel) {
    case "copy":
      expectKeys(payload, ["text"], "copy payload");
      return actions.copy(readText(payload, "text", limits.copy));
    case "toast": {
      expectKeys(payload, ["message", "variant"], "toast payload");
      const message = readText(payload, "message", limits.toast);
      const variant = payload.variant ?? "info";
      if (!toastVariants.includes(variant as ToastVariant))
        throw new BridgeError(`toast variant must be one of ${toastVariants.join(", ")}`);
      return actions.toast(message, variant as ToastVariant);
    }
    case "navigate":
      expectKeys(payload, ["to"], "navigate payload");
      return actions.navigate(consoleRoute(readText(payload, "to", limits.navigate)));
    default:
      throw new BridgeError(
        `unknown channel ${JSON.stringify(String(channel)).slice(0, 80)}: use copy, toast or navigate`,
      );
  }
}

async function forward(
  message: Message,
  id: number,
  slug: string,
  fetchImpl: BridgeFetch,
): Promise<BridgeReply> {
  expectKeys(message, ["svcBridge", "id", "kind", "path", "method", "headers", "body"], "api request");
  if (typeof message.path !== "string") throw new BridgeError("path must be a string");
  const method = readMethod(message.method);
  const headers = readHeaders(message.headers);
  const body = message.body;
  if (body !== null && !isArrayBuffer(body)) throw new BridgeError("body must be an ArrayBuffer or null");
  const decision = allowBridgePath(slug, message.path);
  if (!decision.ok) {
    const why = `svc's bridge refused ${JSON.stringify(message.path.slice(0, 200))}: ${decision.reason}. A plugin page may call only /api/plugins/${slug}/… and /api/health.`;
    return jsonReply(id, 403, "bridge_forbidden", why);
  }
  let response: Response;
  try {
    response = await fetchImpl(decision.path, {
      method,
      headers,
      body,
      redirect: "manual",
      credentials: "same-origin",
    });
  } catch (error) {
    throw new BridgeError(`the request failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  // A redirect is not followed and not handed over: in the browser it is an opaque answer
  // (status 0, which no Response can be built with), and following it could leave the namespace.
  if (
    response.type === "opaqueredirect" ||
    (response.status >= 300 && response.status < 400 && response.headers.has("location"))
  ) {
    await response.body?.cancel();
    const why = `${method} ${decision.path} answered with a redirect, which svc's bridge does not follow.`;
    return jsonReply(id, 502, "bridge_redirect", why);
  }
  const replyHeaders: HeaderList = [];
  response.headers.forEach((value, name) => {
    replyHeaders.push([name, value]);
  });
  return {
    svcBridge: 1,
    id,
    kind: "response",
    status: response.status,
    statusText: response.statusText,
    headers: replyHeaders,
    body: await response.arrayBuffer(),
  };
}

async function answer(
  message: Message,
  id: number,
  slug: string,
  actions: BridgeActions,
  fetchImpl: BridgeFetch,
): Promise<BridgeReply> {
  try {
    if (message.kind === "api") return await forward(message, id, slug, fetchImpl);
    if (message.kind === "invoke") {
      expectKeys(message, ["svcBridge", "id", "kind", "channel", "payload"], "invoke request");
      await runAction(actions, message.channel, message.payload);
      return { svcBridge: 1, id, kind: "result", value: null };
    }
    throw new BridgeError('kind must be "api" or "invoke"');
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { svcBridge: 1, id, kind: "error", message: reason };
  }
}

/**
 * Serves `window.svc` to the plugin page in `frame`, for the plugin `slug`. Only messages from
 * that frame's window are answered (another frame, or one nested in it, gets nothing); `api`
 * requests go out through `fetchImpl` only for paths `allowBridgePath` allows, without following
 * redirects, and come back as the response's status, headers and bytes; anything else is a 403
 * answered here. Attach before the frame loads. Returns the function that detaches it.
 */
export function attachBridge(
  frame: HTMLIFrameElement,
  slug: string,
  actions: BridgeActions,
  fetchImpl: BridgeFetch = fetch,
): () => void {
  const view = frame.ownerDocument.defaultView;
  if (!view) throw new Error("attachBridge: the frame is not in a window's document");
  let attached = true;
  const onMessage = (event: MessageEvent) => {
    const source = event.source;
    if (!attached || source === null || source !== frame.contentWindow) return;
    const message: unknown = event.data;
    if (!isPlainObject(message) || message.svcBridge !== 1) return;
    const id = message.id;
    if (typeof id !== "number" || !Number.isSafeInteger(id) || id < 0) return;
    void answer(message, id, slug, actions, fetchImpl).then((reply) => {
      // A detached page (closed, or replaced by another) gets no late answers.
      if (!attached || frame.contentWindow !== source) return;
      const transfer = reply.kind === "response" && reply.body ? [reply.body] : [];
      (source as Window).postMessage(reply, { targetOrigin: "*", transfer });
    });
  };
  view.addEventListener("message", onMessage);
  return () => {
    attached = false;
    view.removeEventListener("message", onMessage);
  };
}
