import { describe, expect, test } from "bun:test";
import { startPluginApp } from "../helpers/plugins.ts";

type Listing = {
  items: { name: string; loaded: boolean; enabled: boolean; listed: boolean }[];
  total: number;
};

describe("GET /api/plugins", () => {
  test("lists listed plugins in order, then unlisted folders on disk", async () => {
    const app = await startPluginApp({
      fixtures: ["fx-transform", "fx-mutate", "fx-routes"],
      entries: ["@fx/mutate", "@fx/transform"],
    });
    const body = (await (await app.request("/api/plugins")).json()) as Listing;
    expect(body.items.map((item) => [item.name, item.listed, item.loaded])).toEqual([
      ["@fx/mutate", true, true],
      ["@fx/transform", true, true],
      ["@fx/routes", false, false],
    ]);
    expect(body.total).toBe(3);
  });
});

describe("switching plugins on and off", () => {
  test("POST …/disable stops hooks and routes but keeps files; …/enable brings them back", async () => {
    const app = await startPluginApp({ fixtures: ["fx-routes"], entries: ["@fx/routes"] });
    const off = await app.request("/api/plugins/fx-routes/disable", { method: "POST" });
    expect(((await off.json()) as { plugin: { enabled: boolean; loaded: boolean } }).plugin).toMatchObject({
      enabled: false,
      loaded: false,
    });
    expect(app.services.settings.get("disabled_plugins")).toEqual(["@fx/routes"]);
    expect((await app.request("/api/plugins/fx-routes/ping")).status).toBe(404);
    await app.request("/api/plugins/fx-routes/enable", { method: "POST" });
    expect(app.services.settings.get("disabled_plugins")).toEqual([]);
    expect((await app.request("/api/plugins/fx-routes/ping")).status).toBe(200);
  });

  test("editing disabled_plugins through the settings API reloads the plugins", async () => {
    const app = await startPluginApp({ fixtures: ["fx-routes"], entries: ["@fx/routes"] });
    const res = await app.json("/api/settings/disabled_plugins", "PUT", { value: ["@fx/routes"] });
    expect(res.status).toBe(200);
    await app.plugins.reload();
    expect((await app.request("/api/plugins/fx-routes/ping")).status).toBe(404);
    const changed = app.events.filter((event) => event.type === "plugins.changed");
    expect(changed.at(-1)?.plugins).toEqual([
      { name: "@fx/routes", slug: "fx-routes", enabled: false, loaded: false, failed: false },
    ]);
  });

  test("an unknown slug is a 404", async () => {
    const app = await startPluginApp({});
    expect((await app.request("/api/plugins/nobody/enable", { method: "POST" })).status).toBe(404);
  });

  test("POST /api/plugins/reload answers the fresh listing", async () => {
    const app = await startPluginApp({ fixtures: ["fx-transform"], entries: ["@fx/transform"] });
    const body = (await (await app.request("/api/plugins/reload", { method: "POST" })).json()) as Listing;
    expect(body.items[0]).toMatchObject({ name: "@fx/transform", loaded: true });
  });

  test("a state-changing request from an untrusted origin is refused before the host sees it", async () => {
    const app = await startPluginApp({});
    const res = await app.json(
      "/api/plugins/install",
      "POST",
      { npmName: "x" },
      { origin: "https://evil.example" },
    );
    expect(res.status).toBe(403);
  });

  test("stop() disposes every plugin and empties the hooks", async () => {
    const app = await startPluginApp({ fixtures: ["fx-transform"], entries: ["@fx/transform"] });
    await app.plugins.stop();
    expect(app.plugins.hooks()).toEqual([]);
    expect(app.plugins.find("fx-transform")).toBeUndefined();
  });
});

describe("one reload per change", () => {
  // fx-storage counts its setup() runs in its storage ("boots"): each runs once per load.
  const boots = async (app: Awaited<ReturnType<typeof startPluginApp>>) =>
    ((await (await app.request("/api/plugins/fx-storage/values/boots")).json()) as { value: number }).value;

  test("enabling a plugin runs its setup once", async () => {
    const app = await startPluginApp({
      fixtures: ["fx-storage"],
      entries: ["@fx/storage"],
      disabled: ["@fx/storage"],
    });
    expect((await app.request("/api/plugins/fx-storage/enable", { method: "POST" })).status).toBe(200);
    expect(await boots(app)).toBe(1);
  });

  test("disabling and enabling again runs setup once more, not twice", async () => {
    const app = await startPluginApp({ fixtures: ["fx-storage"], entries: ["@fx/storage"] });
    expect(await boots(app)).toBe(1);
    await app.request("/api/plugins/fx-storage/disable", { method: "POST" });
    await app.request("/api/plugins/fx-storage/enable", { method: "POST" });
    expect(await boots(app)).toBe(2);
  });
});
