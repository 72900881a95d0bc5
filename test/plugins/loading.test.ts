import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { runPluginHooks, startPluginApp } from "../helpers/plugins.ts";

describe("loading plugins from the plugins setting", () => {
  test("a transform() hook imported from svc-sdk runs with its options", async () => {
    const app = await startPluginApp({
      fixtures: ["fx-transform"],
      entries: [["@fx/transform", { suffix: "!" }]],
    });
    expect(await runPluginHooks(app, "hello")).toBe("hello!");
    const status = await app.status("@fx/transform");
    expect(status).toMatchObject({
      loaded: true,
      enabled: true,
      listed: true,
      slug: "fx-transform",
      hooks: ["afterCleanup"],
    });
    expect(status?.error).toBeNull();
  });

  test("a plugin that changes its nested options changes neither the setting nor its next load", async () => {
    const options = { nested: { count: 1 }, tags: ["a"] };
    const app = await startPluginApp({ fixtures: ["fx-options"], entries: [["@fx/options", options]] });
    await app.plugins.reload();
    expect(await runPluginHooks(app, "x")).toBe('x {"nested":{"count":1},"tags":["a"]}');
    expect(app.services.settings.get("plugins") as unknown).toEqual([["@fx/options", options]]);
  });

  test("a missing options value is an empty object", async () => {
    const app = await startPluginApp({ fixtures: ["fx-transform"], entries: ["@fx/transform"] });
    expect(await runPluginHooks(app, "hello")).toBe("hello [transformed]");
  });

  test("hooks run in plugins order, each on the previous one's text", async () => {
    const app = await startPluginApp({
      fixtures: ["fx-transform", "fx-mutate"],
      entries: [["@fx/transform", { suffix: " teh end" }], "@fx/mutate"],
    });
    expect(app.plugins.hooks().map((hook) => hook.pluginName)).toEqual(["@fx/transform", "@fx/mutate"]);
    expect(await runPluginHooks(app, "teh start", { app: "Notes" })).toBe("the start the end (in Notes)");
  });

  test.each([
    ["fx-throws-import", "@fx/throws-import", "import", "boom at import"],
    ["fx-throws-factory", "@fx/throws-factory", "factory", "boom in factory"],
    ["fx-throws-setup", "@fx/throws-setup", "setup", "boom in setup"],
    ["fx-hangs-setup", "@fx/hangs-setup", "setup", "timed out after 300 ms"],
    ["fx-no-default", "@fx/no-default", "import", "no default export"],
    ["fx-invalid-manifest", "@fx/invalid-manifest", "manifest", 'type must be "module"'],
  ])("%s is skipped and reported; the other plugins load", async (folder, name, stage, message) => {
    const app = await startPluginApp({
      fixtures: [folder, "fx-transform"],
      entries: [name, "@fx/transform"],
    });
    const status = await app.status(name);
    expect(status?.loaded).toBe(false);
    expect(status?.error?.stage as string).toBe(stage);
    expect(status?.error?.message).toContain(message);
    expect((await app.status("@fx/transform"))?.loaded).toBe(true);
    expect(app.plugins.hooks().map((hook) => hook.pluginName)).toEqual(["@fx/transform"]);
    const line = app.logs.find((entry) =>
      String(entry.msg).startsWith(`plugin "${name}" failed in ${stage}: `),
    );
    expect(line).toMatchObject({ level: "error", plugin: name, hook: stage });
  });

  test("a listed plugin that is not on disk is reported missing when the registry is unreachable", async () => {
    const app = await startPluginApp({ entries: ["@fx/nowhere"] });
    const status = await app.status("@fx/nowhere");
    expect(status).toMatchObject({ installed: false, loaded: false });
    expect(status?.error?.stage).toBe("install");
    expect(status?.error?.message).toContain("registry");
  });

  test("two plugins whose slugs collide: the second is refused at load", async () => {
    const app = await startPluginApp({
      fixtures: ["fx-collide", "fx-collide-unscoped"],
      entries: ["@fx/collide", "fx-collide"],
    });
    expect((await app.status("@fx/collide"))?.loaded).toBe(true);
    const second = await app.status("fx-collide");
    expect(second?.loaded).toBe(false);
    expect(second?.error?.message).toContain('slug "fx-collide" is already used by plugin "@fx/collide"');
    const res = await app.request("/api/plugins/fx-collide/anything");
    expect(await res.json()).toEqual({ owner: "@fx/collide" });
  });

  test("a plugin in disabled_plugins is not loaded, and its status says so", async () => {
    const app = await startPluginApp({
      fixtures: ["fx-transform"],
      entries: ["@fx/transform"],
      disabled: ["@fx/transform"],
    });
    expect(app.plugins.hooks()).toEqual([]);
    expect(await app.status("@fx/transform")).toMatchObject({
      listed: true,
      enabled: false,
      installed: true,
      loaded: false,
    });
  });

  test("the same specifier listed twice loads once", async () => {
    const app = await startPluginApp({
      fixtures: ["fx-transform"],
      entries: ["@fx/transform", "@fx/transform"],
    });
    expect(app.plugins.hooks()).toHaveLength(1);
  });
});

describe("the setup context", () => {
  test("gives the plugin its frozen options, its data folder (created on demand) and its base path", async () => {
    const app = await startPluginApp({
      fixtures: ["fx-context"],
      entries: [["@fx/context", { greeting: "hi", nested: { n: 1 } }]],
    });
    const res = await app.request("/api/plugins/fx-context/context");
    expect(res.status).toBe(200);
    const seen = (await res.json()) as {
      options: Record<string, unknown>;
      dataDir: string;
      basePath: string;
      slug: string;
      frozen: boolean;
    };
    expect(seen.options).toEqual({ greeting: "hi", nested: { n: 1 } });
    expect(seen.frozen).toBe(true);
    expect(seen.dataDir).toBe(join(app.pluginsDir, ".data", "fx-context"));
    expect(readFileSync(join(seen.dataDir, "hello.txt"), "utf8")).toBe("hello");
    expect(seen.basePath).toBe("/api/plugins/fx-context");
    expect(seen.slug).toBe("fx-context");
    // The data folder is the host's: it is never taken for a plugin.
    expect((await app.plugins.list()).map((plugin) => plugin.name)).toEqual(["@fx/context"]);
  });
});

describe("plugins split over several modules", () => {
  test("load, and the log warns that a reload re-imports only the entry (page scripts aside)", async () => {
    const app = await startPluginApp({
      fixtures: ["fx-split", "fx-transform"],
      entries: ["@fx/split", "@fx/transform"],
    });
    expect(await runPluginHooks(app, "hi")).toContain("[split]");
    app.logger.flush();
    const warnings = app.logs.filter((line) => line.level === "warn").map((line) => String(line.msg));
    expect(warnings).toEqual([
      expect.stringContaining('plugin "@fx/split" has 1 JavaScript module(s) in dist/'),
    ]);
    expect(warnings[0]).toContain("dist/helper.js");
    expect(warnings[0]).not.toContain("page.js");
  });
});

describe("hooks svc does not run", () => {
  test("are listed in the plugin's status and warned about, and the hooks svc runs still run", async () => {
    const app = await startPluginApp({ fixtures: ["fx-foreign"], entries: ["@fx/foreign"] });
    expect(await app.status("@fx/foreign")).toMatchObject({
      loaded: true,
      hooks: ["afterCleanup"],
      ignoredHooks: ["onAudio", "buildStart"],
    });
    expect(await runPluginHooks(app, "hi")).toBe("hi [foreign]");
    app.logger.flush();
    const warning = app.logs.find(
      (line) => line.level === "warn" && String(line.msg).includes("@fx/foreign"),
    );
    expect(String(warning?.msg)).toContain("defines onAudio, buildStart, which svc does not run");
  });
});
