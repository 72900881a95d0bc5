// The bridge script svc adds to every plugin page (src/plugins/ui-static.ts), ahead of the page's
// own scripts: a classic script, so it runs at once and `document.currentScript` names its URL.
// It defines `window.svc` (and `window.freestyle`, the same object) only inside a frame; the console (host.ts) answers its messages.
import type { SvcBridge } from "svc-sdk";
import {
  type ApiRequestMessage,
  type BridgeReply,
  type HeaderList,
  type InvokeMessage,
  nullBodyStatuses,
} from "./protocol.ts";

type Outgoing = Omit<ApiRequestMessage, "id"> | Omit<InvokeMessage, "id">;

// One expression and type-only imports: bundled as ESM or IIFE alike, it leaves no globals.
(() => {
  function isReply(data: unknown): data is BridgeReply {
    if (typeof data !== "object" || data === null) return false;
    const reply = data as Partial<BridgeReply>;
    return reply.svcBridge === 1 && typeof reply.id === "number";
  }

  /** svc's origin: the page's own is "null" in the sandbox, the script's URL is svc's. */
  function serverOrigin(): string {
    const script = document.currentScript;
    const src = script instanceof HTMLScriptElement && script.src ? script.src : location.href;
    try {
      return new URL(src).origin;
    } catch {
      return "";
    }
  }

  function installBridge(): void {
    if (window.parent === window) return;
    const parent = window.parent;
    // Captured now: later page scripts replacing globals cannot change what the bridge builds.
    const { Request, Response } = window;
    const pending = new Map<number, (reply: BridgeReply) => void>();
    let nextId = 1;

    window.addEventListener("message", (event) => {
      // Only the console frames this page; a nested frame or the page itself cannot answer for it.
      if (event.source !== parent || !isReply(event.data)) return;
      const settle = pending.get(event.data.id);
      if (!settle) return;
      pending.delete(event.data.id);
      settle(event.data);
    });

    function send(message: Outgoing, signal?: AbortSignal | null): Promise<BridgeReply> {
      return new Promise((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason);
        const id = nextId++;
        pending.set(id, resolve);
        signal?.addEventListener("abort", () => {
          if (pending.delete(id)) reject(signal.reason);
        });
        const body = message.kind === "api" ? message.body : null;
        try {
          // The sandboxed page has the opaque origin and the console's origin is svc's: "*" is the
          // only target that reaches it. The console checks who sent each message.
          parent.postMessage({ ...message, svcBridge: 1, id }, "*", body ? [body] : []);
        } catch (error) {
          pending.delete(id);
          reject(error);
        }
      });
    }

    function failed(reply: BridgeReply): Error {
      return reply.kind === "error"
        ? new TypeError(`svc bridge: ${reply.message}`)
        : new TypeError(`svc bridge: unexpected ${reply.kind} reply`);
    }

    async function api(path: string, init?: RequestInit): Promise<Response> {
      if (typeof path !== "string")
        throw new TypeError("svc.api: the path must be a string such as /api/health");
      // A local Request reads every body type fetch accepts into bytes and its Content-Type, and
      // throws fetch's own errors (a body on GET, a bad method or header).
      const request = new Request("http://svc.bridge.invalid/", init);
      const headers: HeaderList = [];
      request.headers.forEach((value, name) => {
        headers.push([name, value]);
      });
      const body = request.body === null ? null : await request.arrayBuffer();
      const reply = await send(
        { svcBridge: 1, kind: "api", path, method: request.method, headers, body },
        init?.signal,
      );
      if (reply.kind !== "response") throw failed(reply);
      const bytes = nullBodyStatuses.has(reply.status) ? null : reply.body;
      return new Response(bytes, {
        status: reply.status,
        statusText: reply.statusText,
        headers: reply.headers,
      });
    }

    async function invoke(channel: string, payload: unknown): Promise<unknown> {
      const reply = await send({ svcBridge: 1, kind: "invoke", channel, payload });
      if (reply.kind === "result") return reply.value;
      throw reply.kind === "error" ? new Error(reply.message) : failed(reply);
    }

    const bridge: SvcBridge = Object.freeze({ api, invoke, serverUrl: serverOrigin() });
    // Read-only, yet configurable: a page's top-level `const svc = window.svc` is a SyntaxError
    // beside a non-configurable global property of the same name.
    // The same object as `window.freestyle` too: Freestyle's plugin pages look for that name.
    for (const name of ["svc", "freestyle"]) {
      Object.defineProperty(window, name, {
        value: bridge,
        enumerable: true,
        writable: false,
        configurable: true,
      });
    }
  }

  installBridge();
})();
