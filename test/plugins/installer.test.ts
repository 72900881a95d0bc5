import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger } from "../../src/logger.ts";
import { createInstaller } from "../../src/plugins/installer.ts";
import { createRegistryClient } from "../../src/plugins/registry-client.ts";
import type { ErrorBody } from "../helpers/errors.ts";
import { runPluginHooks, startPluginApp } from "../helpers/plugins.ts";
import { file, pluginTarball, startRegistry } from "../helpers/registry-server.ts";

type PluginBody = {
  plugin: { name: string; version: string; enabled: boolean; loaded: boolean; listed: boolean };
};

let registry: Awaited<ReturnType<typeof startRegistry>>;

beforeAll(async () => {
  registry = await startRegistry();
  await registry.publish("@fx/remote", "1.0.0", " [remote 1.0.0]");
  await registry.publish("@fx/remote", "1.2.0", " [remote 1.2.0]");
  await registry.publish("@fx/remote", "2.0.0", " [remote 2.0.0]");
  await registry.publish("@fx/remote", "3.0.0-beta.1", " [remote beta]", { tags: ["beta"] });
  await registry.publish("plain-remote", "0.1.0", " [plain]");
});

afterAll(() => registry.stop());

const app = (options: { pluginsDir?: string } = {}) =>
  startPluginApp({ npmRegistry: registry.url, pluginsDir: options.pluginsDir });

async function install(target: Awaited<ReturnType<typeof app>>, body: Record<string, unknown>) {
  const res = await target.json("/api/plugins/install", "POST", body);
  return { res, body: (await res.json()) as PluginBody & ErrorBody };
}

const leftovers = (dir: string) =>
  existsSync(join(dir, ".staging")) ? readdirSync(join(dir, ".staging")) : [];

describe("POST /api/plugins/install", () => {
  test("installs the latest version, lists it and leaves it off", async () => {
    const target = await app();
    const { res, body } = await install(target, { npmName: "@fx/remote" });
    expect(res.status).toBe(201);
    expect(body.plugin).toMatchObject({
      name: "@fx/remote",
      version: "2.0.0",
      listed: true,
      enabled: false,
      loaded: false,
    });
    expect(existsSync(join(target.pluginsDir, "fx-remote", "dist", "index.js"))).toBe(true);
    expect(target.services.settings.get("plugins")).toEqual(["@fx/remote"]);
    expect(target.services.settings.get("disabled_plugins")).toEqual(["@fx/remote"]);
    expect(target.plugins.hooks()).toEqual([]);
    expect(
      target.events.some((event) => event.type === "plugins.installed" && event.name === "@fx/remote"),
    ).toBe(true);
    expect(leftovers(target.pluginsDir)).toEqual([]);

    const enabled = await target.request("/api/plugins/fx-remote/enable", { method: "POST" });
    expect(((await enabled.json()) as PluginBody).plugin.loaded).toBe(true);
    expect(await runPluginHooks(target, "x")).toBe("x [remote 2.0.0]");
  });

  test('"enable": true installs and runs it at once', async () => {
    const target = await app();
    const { body } = await install(target, { npmName: "plain-remote", enable: true });
    expect(body.plugin).toMatchObject({ enabled: true, loaded: true });
    expect(await runPluginHooks(target, "x")).toBe("x [plain]");
  });

  test.each([
    ["^1.0.0", "1.2.0"],
    ["1.0.0", "1.0.0"],
    ["beta", "3.0.0-beta.1"],
    [">=2 <3", "2.0.0"],
  ])("resolves %s to %s", async (version, expected) => {
    const target = await app();
    const { body } = await install(target, { npmName: "@fx/remote", version });
    expect(body.plugin.version).toBe(expected);
  });

  test("replacing an installed version keeps the plugin's on/off state and loads the new code", async () => {
    const target = await app();
    await install(target, { npmName: "@fx/remote", version: "1.0.0", enable: true });
    const { res } = await install(target, { npmName: "@fx/remote", version: "1.2.0" });
    expect(res.status).toBe(200);
    expect(await runPluginHooks(target, "x")).toBe("x [remote 1.2.0]");
  });

  test.each([
    ["an unknown package", { npmName: "@fx/unknown" }],
    ["an unknown version", { npmName: "@fx/remote", version: "9.9.9" }],
  ])("%s is 404 not_found", async (_what, request) => {
    const target = await app();
    const { res, body } = await install(target, request);
    expect(res.status).toBe(404);
    expect(body.error.code).toBe("not_found");
    expect(target.services.settings.get("plugins")).toEqual([]);
  });

  test.each([
    "../x",
    "@x/..",
    "@../foo",
    "@./foo",
    "@x/.bin",
    "__proto__",
    "node_modules",
    "Foo",
    "a/b/c",
    "%2e%2e",
    "@x/%2e%2e",
    "install",
    "",
    " spaced",
    "x".repeat(215),
  ])("refuses the name %p with 400 before any registry request", async (npmName) => {
    const target = await app();
    const before = registry.requests.length;
    const { res, body } = await install(target, { npmName });
    expect(res.status).toBe(400);
    expect(body.error.code).toBe("invalid_package_name");
    expect(registry.requests.length).toBe(before);
    expect(readdirSync(target.pluginsDir)).toEqual([]);
  });

  test("a non-string name is a 400 and makes no request", async () => {
    const target = await app();
    const before = registry.requests.length;
    const { res } = await install(target, { npmName: 42 });
    expect(res.status).toBe(400);
    expect(registry.requests.length).toBe(before);
  });

  test("runs no install scripts", async () => {
    const marker = join(mkdtempSync(join(tmpdir(), "svc-marker-")), "ran");
    const script = `node -e "require('fs').writeFileSync('${marker}', 'x')"`;
    const scripts = { preinstall: script, install: script, postinstall: script, prepare: script };
    await registry.publish("@fx/scripted", "1.0.0", " [scripted]", { manifest: { scripts } });
    const target = await app();
    const { res } = await install(target, { npmName: "@fx/scripted", enable: true });
    expect(res.status).toBe(201);
    await Bun.sleep(100);
    expect(existsSync(marker)).toBe(false);
  });

  test("an unreachable registry is 502 registry_unreachable and leaves nothing behind", async () => {
    const target = await startPluginApp({ npmRegistry: "http://127.0.0.1:9" });
    const { res, body } = await install(target, { npmName: "@fx/remote" });
    expect(res.status).toBe(502);
    expect(body.error.code).toBe("registry_unreachable");
    expect(target.services.settings.get("plugins")).toEqual([]);
  });

  test("a concurrent install of the same name is 409 install_in_progress", async () => {
    const target = await app();
    const release = registry.hold();
    const first = install(target, { npmName: "@fx/remote" });
    await Bun.sleep(50);
    const second = await install(target, { npmName: "@fx/remote" });
    release();
    expect(second.res.status).toBe(409);
    expect(second.body.error.code).toBe("install_in_progress");
    expect((await first).res.status).toBe(201);
  });
});

/** Tarballs svc refuses, however they arrive. */
function hostileCases(): [string, Parameters<typeof registry.publish>[3]][] {
  return [
    ["an integrity mismatch", { integrity: `sha512-${Buffer.alloc(64).toString("base64")}` }],
    ["a sha1-only integrity", { integrity: "sha1-AAAAAAAAAAAAAAAAAAAAAAAAAAA=" }],
    ["a ../ entry", { extraEntries: [file("package/../../escaped.js", "x")] }],
    ["an absolute path", { extraEntries: [file("/tmp/svc-absolute.js", "x")] }],
    ["an entry outside package/", { extraEntries: [file("other/x.js", "x")] }],
    ["a backslash path", { extraEntries: [file("package\\..\\x.js", "x")] }],
    [
      "a symlink",
      {
        extraEntries: [
          { header: { name: "package/link", type: "symlink", linkname: "/etc/passwd", size: 0 } },
        ],
      },
    ],
    [
      "a hardlink",
      {
        extraEntries: [
          { header: { name: "package/hard", type: "link", linkname: "package/../../x", size: 0 } },
        ],
      },
    ],
    [
      "a character device",
      { extraEntries: [{ header: { name: "package/dev", type: "character-device", size: 0 } }] },
    ],
    ["a fifo", { extraEntries: [{ header: { name: "package/fifo", type: "fifo", size: 0 } }] }],
    ["a duplicate entry", { extraEntries: [file("package/dist/index.js", "again")] }],
    [
      "names differing only in case",
      { extraEntries: [file("package/A.js", "a"), file("package/a.js", "b")] },
    ],
    ["a dependency to install", { manifest: { dependencies: { "left-pad": "1.0.0" } } }],
    ["native code", { extraEntries: [file("package/build/addon.node", "x")] }],
    ["a manifest naming another package", { manifest: { name: "@fx/other" } }],
    ["a manifest without the svc field", { manifest: { svc: undefined } }],
    ["a tarball on another host", { tarballUrl: "http://127.0.0.2:9/evil.tgz" }],
    ["bytes that are not gzip", { gzip: new TextEncoder().encode("not a tarball") }],
  ];
}

describe("tarballs svc refuses", () => {
  const hostile = hostileCases();

  test.each(hostile)("%s: refused, nothing installed or left behind", async (what, options) => {
    const name = `@fx/hostile-${what.replace(/[^a-z]+/g, "-").replace(/-$/, "")}`;
    await registry.publish(name, "1.0.0", "", options);
    const sentinel = join(mkdtempSync(join(tmpdir(), "svc-sentinel-")), "sentinel.txt");
    writeFileSync(sentinel, "untouched");
    const target = await app();
    const { res, body } = await install(target, { npmName: name });
    expect([422, 502]).toContain(res.status);
    expect(["integrity_mismatch", "unsafe_archive", "invalid_manifest", "untrusted_tarball_url"]).toContain(
      body.error.code,
    );
    expect(readdirSync(target.pluginsDir).filter((entry) => entry !== ".staging")).toEqual([]);
    expect(leftovers(target.pluginsDir)).toEqual([]);
    expect(readFileSync(sentinel, "utf8")).toBe("untouched");
    expect(existsSync("/tmp/svc-absolute.js")).toBe(false);
    expect(target.services.settings.get("plugins")).toEqual([]);
  });

  test("the specific codes: integrity_mismatch, unsafe_archive, invalid_manifest", async () => {
    const target = await app();
    const codes = [];
    for (const what of ["an integrity mismatch", "a symlink", "a dependency to install"]) {
      const { body } = await install(target, {
        npmName: `@fx/hostile-${what.replace(/[^a-z]+/g, "-").replace(/-$/, "")}`,
      });
      codes.push(body.error.code);
    }
    expect(codes).toEqual(["integrity_mismatch", "unsafe_archive", "invalid_manifest"]);
  });

  test("the other host in a tarball URL is never contacted", async () => {
    expect(registry.requests.some((path) => path.includes("evil"))).toBe(false);
  });
});

describe("size limits", () => {
  const limited = (limits: { maxTarballBytes?: number; maxUnpackedBytes?: number }) => {
    const pluginsDir = mkdtempSync(join(tmpdir(), "svc-plugins-"));
    return startPluginApp({
      pluginsDir,
      host: {
        installer: createInstaller({
          pluginsDir,
          registry: createRegistryClient({
            url: registry.url,
            limits: { maxTarballBytes: limits.maxTarballBytes },
          }),
          logger: silentLogger,
          limits: { maxUnpackedBytes: limits.maxUnpackedBytes },
        }),
      },
    });
  };

  test("a tarball over the download cap is refused with package_too_large", async () => {
    const target = await limited({ maxTarballBytes: 300 });
    const res = await target.json("/api/plugins/install", "POST", { npmName: "@fx/remote" });
    expect(res.status).toBe(422);
    expect(((await res.json()) as ErrorBody).error.code).toBe("package_too_large");
  });

  test("a gzip bomb is stopped at the unpacked cap", async () => {
    await registry.publish("@fx/bomb", "1.0.0", "", {
      extraEntries: [file("package/zeros.txt", "0".repeat(5_000_000))],
    });
    const target = await limited({ maxUnpackedBytes: 1_000_000 });
    const res = await target.json("/api/plugins/install", "POST", { npmName: "@fx/bomb" });
    expect(res.status).toBe(422);
    expect(((await res.json()) as ErrorBody).error.message).toContain("unpacks to more than 1000000 bytes");
    expect(leftovers(target.pluginsDir)).toEqual([]);
  });
});

describe("a listed plugin that is not on disk", () => {
  test("is installed from the registry on reload and enabled, as written", async () => {
    const target = await app();
    target.services.settings.set("plugins", [["@fx/remote", {}]]);
    await target.plugins.reload();
    expect((await target.status("@fx/remote"))?.loaded).toBe(true);
    expect(await runPluginHooks(target, "x")).toBe("x [remote 2.0.0]");
  });

  test("a missing -dev package (a removed development link) is never fetched, even when the registry has one", async () => {
    await registry.publish("@fx/remote-dev", "9.9.9", " [squatted]");
    const target = await app();
    target.services.settings.set("plugins", ["@fx/remote-dev"]);
    const before = registry.requests.length;
    await target.plugins.reload();
    expect(registry.requests.length).toBe(before);
    const status = await target.status("@fx/remote-dev");
    expect(status?.loaded).toBe(false);
    expect(status?.error?.stage).toBe("resolve");
    expect(status?.error?.message).toContain("svc plugins link");
    expect(await runPluginHooks(target, "x")).toBe("x");
  });
});

describe("POST /api/plugins/uninstall", () => {
  test("removes the files and the specifier, and keeps the storage unless purge", async () => {
    const target = await app();
    await install(target, { npmName: "@fx/remote", enable: true });
    target.db.run("INSERT INTO plugin_storage VALUES ('@fx/remote', 'k', '1', 'now')");
    const res = await target.json("/api/plugins/uninstall", "POST", { specifier: "@fx/remote" });
    expect(res.status).toBe(200);
    expect(existsSync(join(target.pluginsDir, "fx-remote"))).toBe(false);
    expect(target.services.settings.get("plugins")).toEqual([]);
    expect(target.services.settings.get("disabled_plugins")).toEqual([]);
    expect(target.plugins.hooks()).toEqual([]);
    const count = () => target.db.query("SELECT count(*) AS n FROM plugin_storage").get() as { n: number };
    expect(count().n).toBe(1);

    await install(target, { npmName: "@fx/remote" });
    const purged = await target.json("/api/plugins/uninstall", "POST", {
      specifier: "@fx/remote",
      purge: true,
    });
    expect(await purged.json()).toEqual({ name: "@fx/remote", purged: 1 });
    expect(count().n).toBe(0);
    expect(target.events.some((event) => event.type === "plugins.uninstalled")).toBe(true);
  });

  test("an unknown specifier is a 404", async () => {
    const target = await app();
    const res = await target.json("/api/plugins/uninstall", "POST", { specifier: "@fx/never" });
    expect(res.status).toBe(404);
  });
});

describe("POST /api/plugins/install with a tarball as the body", () => {
  const send = (target: Awaited<ReturnType<typeof app>>, bytes: Uint8Array<ArrayBuffer>, query = "") =>
    target.request(`/api/plugins/install${query}`, {
      method: "POST",
      headers: { "content-type": "application/gzip" },
      body: bytes,
    });

  test("installs the package its package.json names, off unless ?enable=true, with no network request", async () => {
    const target = await app();
    const before = registry.requests.length;
    const res = await send(target, await pluginTarball("@fx/local", "1.0.0", " [local]"), "?enable=true");
    expect(res.status).toBe(201);
    expect(((await res.json()) as { plugin: { name: string; loaded: boolean } }).plugin).toMatchObject({
      name: "@fx/local",
      loaded: true,
    });
    expect(await runPluginHooks(target, "hello")).toBe("hello [local]");
    expect(registry.requests.length).toBe(before);
    const again = await send(target, await pluginTarball("@fx/local", "1.1.0", " [local 1.1]"));
    expect(again.status).toBe(200);
    expect(await runPluginHooks(target, "hello")).toBe("hello [local 1.1]");
  });

  const fileHostile = hostileCases().filter(([what]) => !/integrity|another host|naming another/.test(what));
  test.each(fileHostile)("%s: refused, nothing installed or left behind", async (what, options) => {
    const name = `@fx/file-${what.replace(/[^a-z]+/g, "-").replace(/-$/, "")}`;
    const target = await app();
    const res = await send(target, await pluginTarball(name, "1.0.0", "", options));
    expect(res.status).toBe(422);
    expect(["unsafe_archive", "invalid_manifest"]).toContain(((await res.json()) as ErrorBody).error.code);
    expect(readdirSync(target.pluginsDir).filter((entry) => entry !== ".staging")).toEqual([]);
    expect(leftovers(target.pluginsDir)).toEqual([]);
    expect(target.services.settings.get("plugins")).toEqual([]);
  });

  test("a tarball over 10 MiB is 422 package_too_large", async () => {
    const target = await app();
    const res = await send(target, new Uint8Array(10 * 1024 * 1024 + 1));
    expect(res.status).toBe(422);
    expect(((await res.json()) as ErrorBody).error.code).toBe("package_too_large");
  });
});

describe("first-party plugins svc carries", () => {
  test("@svc/profanity-filter installs from the copy in svc, with no registry reachable", async () => {
    // The default test registry is a closed port: any request to it would fail.
    const target = await startPluginApp({});
    const res = await target.json("/api/plugins/install", "POST", {
      npmName: "@svc/profanity-filter",
      enable: true,
    });
    expect(res.status).toBe(201);
    expect(((await res.json()) as { plugin: { loaded: boolean; version: string } }).plugin).toMatchObject({
      loaded: true,
      version: JSON.parse(
        readFileSync(join(import.meta.dir, "../../plugins/profanity-filter/package.json"), "utf8"),
      ).version,
    });
    expect(await runPluginHooks(target, "well damn")).not.toContain("damn");
    const page = await target.request("/api/plugins/svc-profanity-filter/ui/index.html");
    expect(page.status).toBe(200);
  });

  test("another version of it comes from the registry", async () => {
    const target = await startPluginApp({});
    const res = await target.json("/api/plugins/install", "POST", {
      npmName: "@svc/profanity-filter",
      version: "9.9.9",
    });
    expect(res.status).toBe(502);
    expect(((await res.json()) as ErrorBody).error.code).toBe("registry_unreachable");
  });
});
