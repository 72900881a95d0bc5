import { describe, expect, test } from "bun:test";
import { attachBridge, type BridgeActions, consoleRoute } from "../../../src/web/bridge/host.ts";
import type { BridgeReply, ResponseReply } from "../../../src/web/bridge/protocol.ts";

// A stand-in for the console window and the plugin frame: attachBridge listens on the frame's
// document's window and answers through `event.source.postMessage`.
interface Posted {
  reply: BridgeReply;
  options: { targetOrigin: string; transfer: Transferable[] };
}

function fakeWindow() {
  const posted: Posted[] = [];
  const waiters: ((posted: Posted) => void)[] = [];
  return {
    posted,
    next: () => new Promise<Posted>((resolve) => waiters.push(resolve)),
    postMessage(reply: BridgeReply, options: Posted["options"]) {
      const item = { reply, options };
      posted.push(item);
      waiters.shift()?.(item);
    },
  };
}

interface Call {
  path: string;
  init: RequestInit;
}

function setup(answer: (call: Call) => Response | Promise<Response> = () => Response.json({ ok: true })) {
  const view = new EventTarget();
  const page = fakeWindow();
  const frame = { contentWindow: page as unknown, ownerDocument: { defaultView: view } };
  const calls: Call[] = [];
  const done: string[] = [];
  const actions: BridgeActions = {
    copy: async (text) => {
      done.push(`copy:${text}`);
    },
    toast: (message, variant) => done.push(`toast:${variant}:${message}`),
    navigate: (to) => done.push(`navigate:${to}`),
  };
  const detach = attachBridge(frame as HTMLIFrameElement, "acme-notes", actions, async (path, init) => {
    calls.push({ path, init });
    return answer({ path, init });
  });
  const dispatch = (data: unknown, source: unknown = page) => {
    const event = new MessageEvent("message", { data });
    Object.defineProperty(event, "source", { value: source });
    view.dispatchEvent(event);
  };
  /** Sends a message from the page and waits for the answer. */
  const send = async (data: Record<string, unknown>): Promise<Posted> => {
    const reply = page.next();
    dispatch({ svcBridge: 1, id: 7, ...data });
    return reply;
  };
  const api = (path: string, extra: Record<string, unknown> = {}) =>
    send({ kind: "api", path, method: "GET", headers: [], body: null, ...extra });
  const invoke = (channel: unknown, payload: unknown) => send({ kind: "invoke", channel, payload });
  return { view, page, frame, calls, done, detach, dispatch, send, api, invoke };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 20));
const text = (reply: BridgeReply) => new TextDecoder().decode((reply as ResponseReply).body ?? undefined);

describe("attachBridge: api requests", () => {
  test("sends an allowed request without following redirects and answers with status, headers and bytes", async () => {
    const bytes = new Uint8Array([0, 1, 2, 253, 254, 255]);
    const bridge = setup(
      () => new Response(bytes, { status: 201, statusText: "Made", headers: { "x-plugin": "yes" } }),
    );
    const body = new TextEncoder().encode('{"a":1}').buffer;
    const { reply, options } = await bridge.api("/api/plugins/acme-notes/notes?x=1#top", {
      method: "post",
      headers: [["content-type", "application/json"]],
      body,
    });
    expect(bridge.calls).toHaveLength(1);
    const [call] = bridge.calls;
    expect(call?.path).toBe("/api/plugins/acme-notes/notes?x=1");
    expect(call?.init).toMatchObject({
      method: "POST",
      redirect: "manual",
      credentials: "same-origin",
      body,
    });
    expect(Object.fromEntries(call?.init.headers as Headers)).toEqual({ "content-type": "application/json" });
    expect(reply).toMatchObject({ svcBridge: 1, id: 7, kind: "response", status: 201, statusText: "Made" });
    const response = reply as ResponseReply;
    expect(response.headers).toContainEqual(["x-plugin", "yes"]);
    expect(new Uint8Array(response.body ?? new ArrayBuffer(0))).toEqual(bytes);
    // The body is transferred, not copied; the reply may go to the sandbox's opaque origin.
    expect(options).toEqual({ targetOrigin: "*", transfer: [response.body as ArrayBuffer] });
  });

  test("/api/health is allowed", async () => {
    const bridge = setup();
    expect((await bridge.api("/api/health")).reply).toMatchObject({ kind: "response", status: 200 });
    expect(bridge.calls.map((call) => call.path)).toEqual(["/api/health"]);
  });

  test.each([
    "/api/history",
    "/api/settings",
    "/api/plugins/install",
    "/api/plugins/other/notes",
    "/api/plugins/acme-notes/../install",
    "/api/plugins/acme-notes/%2e%2e/install",
    "/api/plugins/acme-notes%2f..%2finstall",
    "/api/plugins/acme-notes-evil/x",
    "/api/plugins/acme-notes/disable",
    "http://127.0.0.1:4649/api/plugins/acme-notes/x",
    "//evil.example/api/plugins/acme-notes/x",
  ])("answers %s with a 403 in svc's error envelope and never sends it", async (path) => {
    const bridge = setup();
    const { reply } = await bridge.api(path, { method: "POST", body: new ArrayBuffer(3) });
    expect(bridge.calls).toEqual([]);
    expect(reply).toMatchObject({
      kind: "response",
      status: 403,
      headers: [["content-type", "application/json"]],
    });
    const envelope = JSON.parse(text(reply));
    expect(envelope.error.code).toBe("bridge_forbidden");
    expect(envelope.error.message).toContain("/api/plugins/acme-notes/");
  });

  test("passes on the headers a page may set and drops the browser's, the transport's and credentials", async () => {
    const bridge = setup();
    const headers = [
      ["Content-Type", "text/plain"],
      ["Accept", "application/json"],
      ["If-None-Match", '"v1"'],
      ["X-Acme-Token", "t"],
      ["Cookie", "session=stolen"],
      ["Origin", "http://127.0.0.1:4649"],
      ["Host", "evil.example"],
      ["Referer", "http://evil.example/"],
      ["Authorization", "Basic Zm9vOmJhcg=="],
      ["Proxy-Authorization", "Basic Zm9vOmJhcg=="],
      ["Content-Length", "1"],
      ["Transfer-Encoding", "chunked"],
      ["Connection", "close"],
      ["Sec-Fetch-Site", "same-origin"],
      ["Forwarded", "for=1.2.3.4"],
      ["X-Forwarded-For", "1.2.3.4"],
      ["X-Forwarded-Host", "evil.example"],
      ["X-Real-IP", "1.2.3.4"],
      ["X-HTTP-Method-Override", "DELETE"],
    ];
    await bridge.api("/api/plugins/acme-notes/x", { method: "POST", headers, body: new ArrayBuffer(1) });
    expect(Object.fromEntries(bridge.calls[0]?.init.headers as Headers)).toEqual({
      "content-type": "text/plain",
      accept: "application/json",
      "if-none-match": '"v1"',
      "x-acme-token": "t",
    });
  });

  test("a redirect is answered with a 502 bridge_redirect, not followed or handed over", async () => {
    const bridge = setup(
      () => new Response(null, { status: 307, headers: { location: "/api/plugins/install" } }),
    );
    const { reply } = await bridge.api("/api/plugins/acme-notes/jump", { method: "POST", body: null });
    expect(reply).toMatchObject({ kind: "response", status: 502 });
    expect(JSON.parse(text(reply)).error.code).toBe("bridge_redirect");
    expect(text(reply)).not.toContain("/api/plugins/install");
  });

  test("an opaque redirect (how a browser answers redirect: manual) is a 502 bridge_redirect too", async () => {
    const bridge = setup(() => {
      const opaque = new Response(null, { status: 200 });
      Object.defineProperty(opaque, "type", { value: "opaqueredirect" });
      return opaque;
    });
    const { reply } = await bridge.api("/api/plugins/acme-notes/jump");
    expect(reply).toMatchObject({ kind: "response", status: 502 });
    expect(JSON.parse(text(reply)).error.code).toBe("bridge_redirect");
  });

  test("304 Not Modified is a status, not a redirect", async () => {
    const bridge = setup(() => new Response(null, { status: 304, headers: { etag: '"v1"' } }));
    expect((await bridge.api("/api/plugins/acme-notes/x")).reply).toMatchObject({ status: 304 });
  });

  test("a failed request rejects in the page, like fetch's network error", async () => {
    const bridge = setup(() => {
      throw new TypeError("Failed to fetch");
    });
    expect((await bridge.api("/api/plugins/acme-notes/x")).reply).toEqual({
      svcBridge: 1,
      id: 7,
      kind: "error",
      message: "the request failed: Failed to fetch",
    });
  });

  test.each([
    [{ method: "GET /x" }, "method must be an HTTP method name"],
    [{ method: "CONNECT" }, "method CONNECT is not allowed"],
    [{ method: "trace" }, "method trace is not allowed"],
    [{ method: 5 }, "method must be an HTTP method name"],
    [{ headers: {} }, "headers must be a list"],
    [{ headers: [["a", "b", "c"]] }, "[name, value] pair"],
    [{ headers: [["bad name", "v"]] }, "[name, value] pair"],
    [{ headers: [["x-a", "line\r\nInjected: 1"]] }, "[name, value] pair"],
    [{ headers: Array.from({ length: 101 }, () => ["x-a", "b"]) }, "at most 100"],
    [{ body: "text" }, "body must be an ArrayBuffer or null"],
    [{ body: new Uint8Array(2) }, "body must be an ArrayBuffer or null"],
    [{ path: 42 }, "path must be a string"],
    [{ extra: true }, "api request has unknown fields: extra"],
  ])("a malformed request %j is refused with an error, never sent", async (fields, message) => {
    const bridge = setup();
    const { reply } = await bridge.api("/api/plugins/acme-notes/x", fields);
    expect(reply.kind).toBe("error");
    expect(reply.kind === "error" && reply.message).toContain(message);
    expect(bridge.calls).toEqual([]);
  });

  test("an unknown kind is refused with an error", async () => {
    const bridge = setup();
    expect((await bridge.send({ kind: "fetch" })).reply).toMatchObject({ kind: "error" });
  });
});

describe("attachBridge: who is answered", () => {
  test("messages from any window but the frame's get nothing, not even a reply", async () => {
    const bridge = setup();
    const other = fakeWindow();
    const request = {
      svcBridge: 1,
      id: 1,
      kind: "api",
      path: "/api/health",
      method: "GET",
      headers: [],
      body: null,
    };
    bridge.dispatch(request, other);
    bridge.dispatch(request, null);
    bridge.dispatch({ ...request, kind: "invoke", channel: "toast", payload: { message: "spoof" } }, other);
    await settle();
    expect({ calls: bridge.calls, done: bridge.done, page: bridge.page.posted, other: other.posted }).toEqual(
      {
        calls: [],
        done: [],
        page: [],
        other: [],
      },
    );
  });

  test("a frame not in the document yet (no window) is answered by nobody", async () => {
    const bridge = setup();
    bridge.frame.contentWindow = null;
    const request = {
      svcBridge: 1,
      id: 1,
      kind: "api",
      path: "/api/health",
      method: "GET",
      headers: [],
      body: null,
    };
    bridge.dispatch(request, bridge.page);
    bridge.dispatch(request, null);
    await settle();
    expect(bridge.calls).toEqual([]);
  });

  test.each([
    ["not an object", "hello"],
    ["no envelope mark", { id: 1, kind: "api", path: "/api/health", method: "GET", headers: [], body: null }],
    [
      "another mark",
      { svcBridge: 2, id: 1, kind: "api", path: "/api/health", method: "GET", headers: [], body: null },
    ],
    ["no id", { svcBridge: 1, kind: "api", path: "/api/health", method: "GET", headers: [], body: null }],
    [
      "a string id",
      { svcBridge: 1, id: "1", kind: "api", path: "/api/health", method: "GET", headers: [], body: null },
    ],
    [
      "a negative id",
      { svcBridge: 1, id: -1, kind: "api", path: "/api/health", method: "GET", headers: [], body: null },
    ],
    ["an array", [1, "api"]],
  ])("a message with %s is ignored", async (_, data) => {
    const bridge = setup();
    bridge.dispatch(data);
    await settle();
    expect({ calls: bridge.calls, posted: bridge.page.posted }).toEqual({ calls: [], posted: [] });
  });

  test("after detaching, nothing is answered, even a request already under way", async () => {
    let release = () => {};
    const bridge = setup(() => new Promise((resolve) => (release = () => resolve(Response.json({})))));
    bridge.dispatch({
      svcBridge: 1,
      id: 1,
      kind: "api",
      path: "/api/health",
      method: "GET",
      headers: [],
      body: null,
    });
    await settle();
    bridge.detach();
    release();
    bridge.dispatch({ svcBridge: 1, id: 2, kind: "invoke", channel: "toast", payload: { message: "late" } });
    await settle();
    expect({ calls: bridge.calls.length, done: bridge.done, posted: bridge.page.posted }).toEqual({
      calls: 1,
      done: [],
      posted: [],
    });
  });
});

describe("attachBridge: invoke", () => {
  test.each([
    ["copy", { text: "hello" }, "copy:hello"],
    ["toast", { message: "Saved", variant: "success" }, "toast:success:Saved"],
    ["toast", { message: "Careful", variant: "warning" }, "toast:warning:Careful"],
    ["toast", { message: "Plain" }, "toast:info:Plain"],
    ["navigate", { to: "/plugins" }, "navigate:/plugins"],
    ["navigate", { to: "/history?q=a#x" }, "navigate:/history?q=a#x"],
    ["navigate", { to: "/plugins/acme-notes/main" }, "navigate:/plugins/acme-notes/main"],
  ])("%s %j runs the action and resolves", async (channel, payload, expected) => {
    const bridge = setup();
    expect((await bridge.invoke(channel, payload)).reply).toEqual({
      svcBridge: 1,
      id: 7,
      kind: "result",
      value: null,
    });
    expect(bridge.done).toEqual([expected]);
  });

  test.each([
    ["open", { url: "/x" }, 'unknown channel "open": use copy, toast or navigate'],
    [42, {}, 'unknown channel "42"'],
    ["copy", "hello", "the payload must be an object"],
    ["copy", null, "the payload must be an object"],
    ["copy", [1], "the payload must be an object"],
    ["copy", {}, "text must be a string"],
    ["copy", { text: 5 }, "text must be a string"],
    ["copy", { text: "x".repeat(100_001) }, "text is longer than 100000 characters"],
    ["copy", { text: "x", html: "<b>" }, "copy payload has unknown fields: html"],
    [
      "toast",
      { message: "x", variant: "danger" },
      "toast variant must be one of success, info, warning, error",
    ],
    ["toast", { message: "x", variant: 1 }, "toast variant must be one of"],
    ["toast", { message: "x".repeat(1001) }, "message is longer than 1000 characters"],
    ["toast", { variant: "success" }, "message must be a string"],
    ["navigate", { to: "x".repeat(2049) }, "to is longer than 2048 characters"],
    ["navigate", { to: "https://evil.example/" }, "is not an in-app path"],
    ["navigate", { to: "javascript:alert(1)" }, "is not an in-app path"],
    ["navigate", { to: "//evil.example/" }, "is not an in-app path"],
    ["navigate", { to: "/\\evil.example/" }, "is not an in-app path"],
    ["navigate", { to: "plugins" }, "is not an in-app path"],
    ["navigate", { to: "/api/settings" }, "is an API route"],
    ["navigate", { to: "/api" }, "is an API route"],
    ["navigate", { to: "/API/history" }, "is an API route"],
    ["navigate", { to: "/%61pi/history" }, "is an API route"],
    ["navigate", { to: "/plugins/../api/history" }, "is an API route"],
    ["navigate", { to: "/plugins/%2e%2e/api/history" }, "is an API route"],
    ["navigate", { to: "/\t/evil.example" }, "control characters"],
    ["navigate", { to: "/a b" }, "control characters"],
  ])("%s %j is refused: %s", async (channel, payload, message) => {
    const bridge = setup();
    const { reply } = await bridge.invoke(channel, payload);
    expect(reply.kind).toBe("error");
    expect(reply.kind === "error" && reply.message).toContain(message);
    expect(bridge.done).toEqual([]);
  });

  test("an action that fails rejects with its message", async () => {
    const view = new EventTarget();
    const page = fakeWindow();
    const frame = { contentWindow: page, ownerDocument: { defaultView: view } };
    const refuse = () => Promise.reject(new Error("clipboard access was denied"));
    attachBridge(frame as unknown as HTMLIFrameElement, "acme-notes", {
      copy: refuse,
      toast: () => {},
      navigate: () => {},
    });
    const reply = page.next();
    const event = new MessageEvent("message", {
      data: { svcBridge: 1, id: 3, kind: "invoke", channel: "copy", payload: { text: "x" } },
    });
    Object.defineProperty(event, "source", { value: page });
    view.dispatchEvent(event);
    expect((await reply).reply).toEqual({
      svcBridge: 1,
      id: 3,
      kind: "error",
      message: "clipboard access was denied",
    });
  });
});

describe("consoleRoute", () => {
  test("normalises what the URL parser would", () => {
    expect(consoleRoute("/plugins/./x/../y")).toBe("/plugins/y");
  });
});
