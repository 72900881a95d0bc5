import { describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { uiSegments } from "../../src/plugins/ui-static.ts";
import { startPluginApp } from "../helpers/plugins.ts";

const routesApp = () => startPluginApp({ fixtures: ["fx-routes"], entries: ["@fx/routes"] });

describe("GET /api/plugins/<slug>/ui/…", () => {
  test("serves the page with a sandbox CSP, its type and no-cache", async () => {
    const app = await routesApp();
    const res = await app.request("/api/plugins/fx-routes/ui/index.html");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const csp = res.headers.get("content-security-policy") ?? "";
    expect(csp).toStartWith("sandbox allow-scripts;");
    expect(csp).not.toContain("allow-same-origin");
    expect(csp).toContain("connect-src 'none'");
    expect(csp).toContain("frame-ancestors 'self'");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("cache-control")).toBe("no-cache");
    expect(res.headers.get("cross-origin-resource-policy")).toBe("cross-origin");
    // A sandboxed page's module scripts are CORS requests from origin "null".
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(await res.text()).toContain("routes fixture page");
  });

  test("only the plugin's static files are shared with any origin, never its routes or errors", async () => {
    const app = await startPluginApp({ fixtures: ["fx-vite-page"], entries: ["@fx/vite-page"] });
    const asset = await app.request("/api/plugins/fx-vite-page/ui/assets/index-C4f2a9Qe.js", {
      headers: { origin: "null" },
    });
    expect(asset.status).toBe(200);
    expect(asset.headers.get("access-control-allow-origin")).toBe("*");
    const route = await app.request("/api/plugins/fx-vite-page/open", { headers: { origin: "null" } });
    expect(await route.json()).toEqual({ open: true });
    expect(route.headers.get("access-control-allow-origin")).toBeNull();
    const missing = await app.request("/api/plugins/fx-vite-page/ui/assets/nope.js");
    expect(missing.status).toBe(404);
    expect(missing.headers.get("access-control-allow-origin")).toBeNull();
    expect((await app.request("/api/health")).headers.get("access-control-allow-origin")).toBeNull();
  });

  test("serves assets below dist/ui, and the folder's index for ui/", async () => {
    const app = await routesApp();
    const js = await app.request("/api/plugins/fx-routes/ui/assets/app.js");
    expect(js.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect((await app.request("/api/plugins/fx-routes/ui/")).status).toBe(200);
  });

  test("GET /api/plugins lists the page with the URL it is served at", async () => {
    const app = await routesApp();
    const status = await app.status("@fx/routes");
    expect(status?.pages).toEqual([
      {
        id: "main",
        title: "Routes",
        entry: "dist/ui/index.html",
        url: "/api/plugins/fx-routes/ui/index.html",
      },
    ]);
    expect(status).toMatchObject({ icon: "route", displayName: "Routes fixture", routes: true });
  });

  test.each([
    "/api/plugins/fx-routes/ui/../index.js",
    "/api/plugins/fx-routes/ui/%2e%2e/index.js",
    "/api/plugins/fx-routes/ui/..%2findex.js",
    "/api/plugins/fx-routes/ui/..%2Findex.js",
    "/api/plugins/fx-routes/ui/%252e%252e/index.js",
    "/api/plugins/fx-routes/ui/..%5cindex.js",
    "/api/plugins/fx-routes/ui/assets//app.js",
    "/api/plugins/fx-routes/ui/.hidden.txt",
    "/api/plugins/fx-routes/ui/data.bin",
    "/api/plugins/fx-routes/ui/index.html::$DATA",
    "/api/plugins/fx-routes/ui/index.html.",
    "/api/plugins/fx-routes/ui/INDEX.HTML",
    "/api/plugins/fx-routes/ui/missing.html",
    "/api/plugins/nobody/ui/index.html",
  ])("%s is a 404", async (path) => {
    const app = await routesApp();
    const res = await app.request(path);
    expect(res.status).toBe(404);
    expect(await res.text()).not.toContain("export default");
  });

  test("a percent-encoded letter of /ui/ is refused as another spelling (400 non_canonical_path)", async () => {
    const app = await routesApp();
    const res = await app.request("/api/plugins/fx-routes/%75i/index.html");
    expect(res.status).toBe(400);
    expect(await res.text()).not.toContain("export default");
  });

  test.each(["/api/plugins/fx-routes/ui/%c0%ae%c0%ae/index.js", "/api/plugins/fx-routes/ui/a%ffb.html"])(
    "%s (invalid UTF-8) is a 400",
    async (path) => {
      const app = await routesApp();
      expect((await app.request(path)).status).toBe(400);
    },
  );

  test("a symlink planted in dist/ui pointing outside it is not followed", async () => {
    const app = await routesApp();
    const outside = join(app.pluginsDir, "outside.txt");
    writeFileSync(outside, "sentinel outside the UI root");
    symlinkSync(outside, join(app.pluginsDir, "fx-routes", "dist", "ui", "planted.txt"));
    mkdirSync(join(app.pluginsDir, "fx-routes", "dist", "ui", "linked"));
    symlinkSync(
      join(app.pluginsDir, "fx-routes", "dist"),
      join(app.pluginsDir, "fx-routes", "dist", "ui", "linked", "up"),
    );
    for (const path of ["planted.txt", "linked/up/index.js"]) {
      const res = await app.request(`/api/plugins/fx-routes/ui/${path}`);
      expect(res.status).toBe(404);
    }
  });

  test("pages of a disabled plugin are not served", async () => {
    const app = await startPluginApp({
      fixtures: ["fx-routes"],
      entries: ["@fx/routes"],
      disabled: ["@fx/routes"],
    });
    expect((await app.request("/api/plugins/fx-routes/ui/index.html")).status).toBe(404);
  });
});

describe("uiSegments", () => {
  test("decodes each segment once and keeps ordinary names", () => {
    expect(uiSegments("assets/my%20file.js")).toEqual(["assets", "my file.js"]);
    expect(uiSegments("")).toEqual(["index.html"]);
  });
});
