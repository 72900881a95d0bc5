import { describe, expect, test } from "bun:test";
import { cpSync, existsSync, lstatSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { linkPlugin, unlinkPlugin } from "../../src/plugins/dev-link.ts";
import { fixturesDir, pluginsDirWith, runPluginHooks, startPluginApp } from "../helpers/plugins.ts";

/** A plugin's source folder, as a developer has it: package.json, a build script, dist/. */
function sourcePlugin(suffix: string, build?: string): string {
  const dir = mkdtempSync(join(tmpdir(), "svc-source-"));
  cpSync(join(fixturesDir, "fx-transform"), dir, { recursive: true });
  if (build) {
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    writeFileSync(join(dir, "package.json"), JSON.stringify({ ...pkg, scripts: { build } }));
  }
  rebuild(dir, suffix);
  return dir;
}

function rebuild(dir: string, suffix: string): void {
  writeFileSync(
    join(dir, "dist", "index.js"),
    `import { transform } from "svc-sdk";\nexport default () => ({ name: "@fx/transform", afterCleanup: transform((t) => t + ${JSON.stringify(suffix)}) });\n`,
  );
}

describe("svc plugins link", () => {
  test("makes <slug>-dev with a package named <name>-dev whose dist/ is a symlink", async () => {
    const source = sourcePlugin(" [dev]");
    const pluginsDir = pluginsDirWith();
    const result = await linkPlugin({ sourceDir: source, pluginsDir });
    expect(result).toMatchObject({
      name: "@fx/transform",
      devName: "@fx/transform-dev",
      mode: "symlink",
      extraModules: [],
    });
    expect(result.dir).toBe(join(pluginsDir, "fx-transform-dev"));
    expect(lstatSync(join(result.dir, "dist")).isSymbolicLink()).toBe(true);
    expect(JSON.parse(readFileSync(join(result.dir, "package.json"), "utf8"))).toMatchObject({
      name: "@fx/transform-dev",
      type: "module",
      main: "dist/index.js",
      svcDev: { source },
    });
  });

  test("names the server modules besides the entry, which a reload would not re-import", async () => {
    const source = mkdtempSync(join(tmpdir(), "svc-split-"));
    cpSync(join(fixturesDir, "fx-split"), source, { recursive: true });
    const result = await linkPlugin({ sourceDir: source, pluginsDir: pluginsDirWith(), build: false });
    expect(result.extraModules).toEqual(["dist/helper.js"]);
  });

  test("the copy is listed as [DEV], coexists with the installed copy, and runs once enabled", async () => {
    const source = sourcePlugin(" [dev]");
    const app = await startPluginApp({
      fixtures: ["fx-transform"],
      entries: [["@fx/transform", { suffix: " [installed]" }]],
    });
    await linkPlugin({ sourceDir: source, pluginsDir: app.pluginsDir });
    const listed = await app.status("@fx/transform-dev");
    expect(listed).toMatchObject({
      dev: true,
      label: "[DEV]",
      listed: false,
      enabled: false,
      installed: true,
      slug: "fx-transform-dev",
    });
    const res = await app.request("/api/plugins/fx-transform-dev/enable", { method: "POST" });
    expect(res.status).toBe(200);
    expect(app.services.settings.get("plugins")).toEqual([
      ["@fx/transform", { suffix: " [installed]" }],
      "@fx/transform-dev",
    ]);
    expect(await runPluginHooks(app, "x")).toBe("x [installed] [dev]");
  });

  test("rebuild, then reload: the new code runs (no module cache)", async () => {
    const source = sourcePlugin(" [build 1]");
    const app = await startPluginApp({});
    await linkPlugin({ sourceDir: source, pluginsDir: app.pluginsDir });
    await app.request("/api/plugins/fx-transform-dev/enable", { method: "POST" });
    expect(await runPluginHooks(app, "x")).toBe("x [build 1]");
    rebuild(source, " [build 2]");
    const res = await app.request("/api/plugins/reload", { method: "POST" });
    expect(res.status).toBe(200);
    expect(await runPluginHooks(app, "x")).toBe("x [build 2]");
  });

  test("where symlinks are unavailable dist/ is copied: a rebuild needs another link", async () => {
    const source = sourcePlugin(" [build 1]");
    const app = await startPluginApp({});
    const result = await linkPlugin({ sourceDir: source, pluginsDir: app.pluginsDir, forceCopy: true });
    expect(result.mode).toBe("copy");
    expect(lstatSync(join(result.dir, "dist")).isDirectory()).toBe(true);
    await app.request("/api/plugins/fx-transform-dev/enable", { method: "POST" });
    rebuild(source, " [build 2]");
    await app.plugins.reload();
    expect(await runPluginHooks(app, "x")).toBe("x [build 1]");
    await linkPlugin({ sourceDir: source, pluginsDir: app.pluginsDir, forceCopy: true });
    await app.plugins.reload();
    expect(await runPluginHooks(app, "x")).toBe("x [build 2]");
  });

  test("runs the package's build script first", async () => {
    const source = sourcePlugin(" [old]", "node build.mjs");
    writeFileSync(
      join(source, "build.mjs"),
      `import { writeFileSync } from "node:fs";\nwriteFileSync("dist/index.js", 'export default () => ({ name: "@fx/transform", afterCleanup(i, o) { o.text += " [built]"; } });');\n`,
    );
    const app = await startPluginApp({});
    await linkPlugin({ sourceDir: source, pluginsDir: app.pluginsDir });
    await app.request("/api/plugins/fx-transform-dev/enable", { method: "POST" });
    expect(await runPluginHooks(app, "x")).toBe("x [built]");
  });

  test("refuses a folder that is not a plugin", async () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-source-"));
    writeFileSync(
      join(dir, "package.json"),
      JSON.stringify({ name: "not-a-plugin", version: "1.0.0", main: "index.js" }),
    );
    await expect(linkPlugin({ sourceDir: dir, pluginsDir: pluginsDirWith() })).rejects.toThrow(
      "invalid package.json",
    );
  });
});

describe("svc plugins unlink", () => {
  test("removes the development copy and leaves the plugin's own dist/", async () => {
    const source = sourcePlugin(" [dev]");
    const pluginsDir = pluginsDirWith();
    const { dir } = await linkPlugin({ sourceDir: source, pluginsDir });
    expect(await unlinkPlugin({ sourceDir: source, pluginsDir })).toMatchObject({ removed: true });
    expect(existsSync(dir)).toBe(false);
    expect(existsSync(join(source, "dist", "index.js"))).toBe(true);
    expect(await unlinkPlugin({ sourceDir: source, pluginsDir })).toMatchObject({ removed: false });
  });
});
