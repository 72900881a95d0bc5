import { describe, expect, test } from "bun:test";
import type { ErrorBody } from "../helpers/errors.ts";
import { startPluginApp } from "../helpers/plugins.ts";

const routesApp = () =>
  startPluginApp({ fixtures: ["fx-routes", "fx-transform"], entries: ["@fx/routes", "@fx/transform"] });

describe("the /api/plugins/<slug>/ namespace", () => {
  test("runs the plugin's middleware in order: the first calls next(), a later one answers", async () => {
    const app = await routesApp();
    const res = await app.request("/api/plugins/fx-routes/ping");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ pong: true, base: "/api/plugins/fx-routes" });
    expect(res.headers.get("x-fixture")).toBe("routes");
    expect(res.headers.get("x-after-next")).toBe("set after next()");
    expect(res.headers.get("x-request-id")).toBeTruthy();
  });

  test.each(["page?name=x", "icon", "untyped", "stylesheet", "ping"])(
    "every answer from a route (%s), whatever its type, is sandboxed like a plugin page",
    async (path) => {
      const app = await routesApp();
      const res = await app.request(`/api/plugins/fx-routes/${path}`);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-security-policy")).toStartWith("sandbox allow-scripts;");
      expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'self'");
    },
  );

  test("a route's own policy is kept beside the sandbox, so it can only tighten it", async () => {
    const app = await routesApp();
    const res = await app.request("/api/plugins/fx-routes/strict-page");
    expect(res.headers.get("content-security-policy")).toMatch(/^default-src 'none', sandbox allow-scripts;/);
    expect(await res.text()).toBe("<p>strict</p>");
  });

  test("OPTIONS anywhere in the namespace is answered 204 by svc, with no CORS grant, before the plugin runs", async () => {
    const app = await routesApp();
    for (const path of ["cors", "echo", "options-probe", "ui/index.html", "enable"]) {
      const res = await app.request(`/api/plugins/fx-routes/${path}`, {
        method: "OPTIONS",
        headers: {
          origin: "http://evil.example",
          "access-control-request-method": "POST",
          "access-control-request-headers": "content-type",
        },
      });
      expect({ path, status: res.status }).toEqual({ path, status: 204 });
      const cors = [...res.headers.keys()].filter((name) => name.startsWith("access-control-"));
      expect({ path, cors }).toEqual({ path, cors: [] });
      expect(res.headers.get("x-fixture")).toBeNull();
    }
    const seen = (await (await app.request("/api/plugins/fx-routes/seen")).json()) as { seen: string[] };
    expect(seen.seen.filter((path) => !path.endsWith("/seen"))).toEqual([]);
  });

  test("a plugin's own Access-Control-* headers are removed from its answers", async () => {
    const app = await routesApp();
    const res = await app.request("/api/plugins/fx-routes/cors", {
      headers: { origin: "http://evil.example" },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ open: true });
    expect([...res.headers.keys()].filter((name) => name.startsWith("access-control-"))).toEqual([]);
  });

  test("handlers read the body and choose the status", async () => {
    const app = await routesApp();
    const res = await app.json("/api/plugins/fx-routes/echo", "POST", { a: 1 });
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({ echo: { a: 1 } });
  });

  test("a path no handler answers is a 404 envelope naming the plugin", async () => {
    const app = await routesApp();
    const res = await app.request("/api/plugins/fx-routes/nothing-here");
    expect(res.status).toBe(404);
    const body = (await res.json()) as ErrorBody;
    expect(body.error.code).toBe("not_found");
    expect(body.error.message).toContain('Plugin "@fx/routes"');
  });

  test("a throwing handler is a 500 plugin_failed naming the plugin; the server carries on", async () => {
    const app = await routesApp();
    const res = await app.request("/api/plugins/fx-routes/throws");
    expect(res.status).toBe(500);
    const body = (await res.json()) as ErrorBody;
    expect(body.error.code).toBe("plugin_failed");
    expect(body.error.message).toBe('plugin "@fx/routes" failed in middleware: route exploded');
    expect(app.logs.some((line) => line.msg === body.error.message)).toBe(true);
    expect((await app.request("/api/plugins/fx-routes/ping")).status).toBe(200);
    expect((await app.request("/api/health")).status).toBe(200);
  });

  test("a handler that never answers is cut off with 504 plugin_timeout", async () => {
    const app = await routesApp();
    const res = await app.request("/api/plugins/fx-routes/slow");
    expect(res.status).toBe(504);
    expect(((await res.json()) as ErrorBody).error.code).toBe("plugin_timeout");
  });

  test("an unknown or disabled slug is a 404 envelope", async () => {
    const app = await startPluginApp({
      fixtures: ["fx-routes"],
      entries: ["@fx/routes"],
      disabled: ["@fx/routes"],
    });
    for (const path of ["/api/plugins/fx-routes/ping", "/api/plugins/nobody/ping"]) {
      const res = await app.request(path);
      expect(res.status).toBe(404);
      expect(((await res.json()) as ErrorBody).error.code).toBe("not_found");
    }
  });

  test("plugin middleware never sees requests outside its namespace", async () => {
    const app = await routesApp();
    await app.request("/api/health");
    await app.request("/api/settings");
    await app.request("/api/plugins/fx-transform/sdk");
    await app.request("/api/plugins");
    const { seen } = (await (await app.request("/api/plugins/fx-routes/seen")).json()) as { seen: string[] };
    expect(seen).toEqual(["/api/plugins/fx-routes/seen"]);
  });

  test.each([
    "/api/plugins/fx-routes%2F..%2Fstatus/ping",
    "/api/plugins/fx-routes%2fping",
    "/api/plugins/FX-ROUTES/ping",
    "/api/plugins/Fx-Routes/ping",
    "/api/plugins/fx-routes%00/ping",
    "//api/plugins/fx-routes/ping",
    "/api/plugins//fx-routes/ping",
  ])("%s reaches no plugin", async (path) => {
    const app = await routesApp();
    const res = await app.request(path);
    expect(res.status).toBe(404);
    const { seen } = (await (await app.request("/api/plugins/fx-routes/seen")).json()) as { seen: string[] };
    expect(seen).toEqual(["/api/plugins/fx-routes/seen"]);
  });

  test("a percent-encoded letter of a slug is refused before any plugin sees it (400 non_canonical_path)", async () => {
    const app = await routesApp();
    const res = await app.request("/api/plugins/%66x-routes/ping");
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("non_canonical_path");
    const { seen } = (await (await app.request("/api/plugins/fx-routes/seen")).json()) as { seen: string[] };
    expect(seen).toEqual(["/api/plugins/fx-routes/seen"]);
  });

  test.each([
    ["/api/plugins/fx-routes/../install", "/api/plugins/install"],
    ["/api/plugins/fx-routes/%2e%2e/reload", "/api/plugins/reload"],
    ["/api/plugins/fx-transform/../fx-routes/ping", "/api/plugins/fx-routes/ping"],
  ])("%s is resolved before routing, exactly as a client asking for %s", async (path) => {
    // URL parsing (WHATWG in fetch, Bun's server for raw requests) removes dot segments first,
    // so the namespace and the handler always agree on one path; no plugin sees the dots.
    const app = await routesApp();
    const res = await app.request(path, { method: "GET" });
    const { seen } = (await (await app.request("/api/plugins/fx-routes/seen")).json()) as { seen: string[] };
    expect(seen.every((entry) => !entry.includes(".."))).toBe(true);
    expect(res.status).not.toBe(500);
  });

  test("reserved slugs and management paths are answered by svc, never by a plugin", async () => {
    const app = await routesApp();
    const res = await app.request("/api/plugins/install");
    expect(res.status).toBe(404);
    const enable = await app.request("/api/plugins/fx-routes/enable", { method: "POST" });
    expect(enable.status).toBe(200);
    expect(((await enable.json()) as { plugin: { name: string } }).plugin.name).toBe("@fx/routes");
  });
});
