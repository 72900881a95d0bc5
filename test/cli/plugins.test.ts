import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runPluginsCommand } from "../../src/cli/plugins.ts";
import { createTestApp } from "../helpers/app.ts";
import { runBinary } from "../helpers/binary.ts";
import { fixturesDir, type PluginApp, pluginsDirWith, startPluginApp } from "../helpers/plugins.ts";
import { pluginTarball, startRegistry } from "../helpers/registry-server.ts";

let registry: Awaited<ReturnType<typeof startRegistry>>;
let app: PluginApp;
let server: ReturnType<typeof Bun.serve>;

beforeAll(async () => {
  registry = await startRegistry();
  await registry.publish("@fx/cli", "1.0.0", " [cli]");
  await registry.publish("@fx/pinned", "1.0.0", " [pinned 1]");
  await registry.publish("@fx/pinned", "2.0.0", " [pinned 2]");
  app = await startPluginApp({ npmRegistry: registry.url });
  server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (request) => app.app.fetch(request) });
});

afterAll(() => {
  server.stop(true);
  registry.stop();
});

async function cli(...args: string[]) {
  return cliWith({}, ...args);
}

async function cliWith(env: Record<string, string>, ...args: string[]) {
  return cliAt(server, env, ...args);
}

async function cliAt(target: ReturnType<typeof Bun.serve>, env: Record<string, string>, ...args: string[]) {
  let stdout = "";
  let stderr = "";
  const code = await runPluginsCommand(
    args,
    { SVC_URL: `http://127.0.0.1:${target.port}`, ...env },
    {
      stdout: { write: (text: string) => (stdout += text) },
      stderr: { write: (text: string) => (stderr += text) },
      cwd: process.cwd(),
    },
  );
  return { code, stdout, stderr };
}

describe("svc plugins against a running server", () => {
  test("install, enable, list, disable, uninstall", async () => {
    const installed = await cli("install", "@fx/cli");
    expect(installed.code).toBe(0);
    expect(installed.stdout).toContain("@fx/cli@1.0.0  /api/plugins/fx-cli  disabled");
    expect(installed.stdout).toContain("installed but off: svc plugins enable @fx/cli");
    expect((await cli("enable", "@fx/cli")).stdout).toContain("@fx/cli@1.0.0  /api/plugins/fx-cli  enabled");
    expect((await cli("list")).stdout).toBe("@fx/cli@1.0.0  /api/plugins/fx-cli  enabled\n");
    expect((await cli("disable", "fx-cli")).stdout).toContain("disabled");
    expect((await cli("reload")).code).toBe(0);
    expect((await cli("uninstall", "@fx/cli")).stdout).toBe("uninstalled @fx/cli\n");
    expect((await cli("list")).stdout).toBe("no plugins installed\n");
  });

  test("a refused install prints the server's message and exits 1", async () => {
    const result = await cli("install", "UPPER/Case Name");
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("Invalid plugin package name");
  });

  test.each([["--version"], ["-v"]])(
    "svc plugins install NAME %s 1.0.0: after the command the option is the command's, and pins the version",
    async (flag) => {
      const env = { SVC_URL: `http://127.0.0.1:${server.port}` };
      const result = await runBinary(["plugins", "install", "@fx/pinned", flag, "1.0.0"], env);
      expect(result.stderr).toBe("");
      expect(result.stdout).toContain("@fx/pinned@1.0.0  /api/plugins/fx-pinned  disabled");
      expect((await runBinary(["plugins", "uninstall", "@fx/pinned"], env)).code).toBe(0);
      // Before the command it is still svc's own.
      expect((await runBinary(["-v"], {})).stdout).toStartWith("svc ");
    },
    30_000,
  );

  test("reload exits 1 and names the plugins that failed to load", async () => {
    const failing = await startPluginApp({
      pluginsDir: pluginsDirWith("fx-throws-setup", "fx-transform"),
      entries: ["@fx/throws-setup", "@fx/transform"],
    });
    const failingServer = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (r) => failing.app.fetch(r) });
    try {
      const result = await cliAt(failingServer, {}, "reload");
      expect(result.code).toBe(1);
      expect(result.stdout).toContain("@fx/transform");
      expect(result.stderr).toContain("1 plugin(s) failed to load: @fx/throws-setup");
    } finally {
      failingServer.stop(true);
    }
  });

  test("link with no server to reload says so and exits 3", async () => {
    const source = mkdtempSync(join(tmpdir(), "svc-link-source-"));
    cpSync(join(fixturesDir, "fx-transform"), source, { recursive: true });
    const result = await cliWith(
      { SVC_PLUGINS_DIR: mkdtempSync(join(tmpdir(), "svc-link-plugins-")), SVC_URL: "http://127.0.0.1:9" },
      "link",
      source,
      "--no-build",
    );
    expect(result.stdout).toContain("linked @fx/transform as @fx/transform-dev [DEV]");
    expect(result.stderr).toContain("no server reloaded");
    expect(result.code).toBe(3);
  });

  test("install ./file.tgz and install ./folder go through the server's checks, with no registry", async () => {
    const work = mkdtempSync(join(tmpdir(), "svc-cli-local-"));
    writeFileSync(join(work, "shout.tgz"), await pluginTarball("@fx/from-file", "1.0.0", " [file]"));
    const before = registry.requests.length;
    const fromFile = await cliWith({}, "install", join(work, "shout.tgz"), "--enable");
    expect(fromFile.code).toBe(0);
    expect(fromFile.stdout).toContain("@fx/from-file@1.0.0  /api/plugins/fx-from-file  enabled");
    // A plugin folder as its author has it: package.json, dist/, and things npm would not pack.
    const folder = join(work, "folder-plugin");
    cpSync(join(fixturesDir, "fx-transform"), folder, { recursive: true });
    writeFileSync(join(folder, "notes.txt"), "not packed");
    const pkg = JSON.parse(readFileSync(join(folder, "package.json"), "utf8")) as Record<string, unknown>;
    writeFileSync(join(folder, "package.json"), JSON.stringify({ ...pkg, name: "@fx/from-folder" }));
    const fromFolder = await cliWith({ PWD: work }, "install", folder);
    expect(fromFolder.code).toBe(0);
    expect(fromFolder.stdout).toContain("@fx/from-folder@");
    expect(registry.requests.length).toBe(before);
    const missing = await cliWith({}, "install", join(work, "nothing.tgz"));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("there is no file or folder at");
    for (const name of ["@fx/from-file", "@fx/from-folder"]) await cli("uninstall", name);
  });

  test("usage errors exit 2", async () => {
    expect((await cli("frobnicate")).code).toBe(2);
    expect((await cli("install")).code).toBe(2);
  });

  test("no server: exit 1 with where it looked", async () => {
    const result = await runPluginsCommand(
      ["list"],
      { SVC_URL: "http://127.0.0.1:9" },
      {
        stdout: { write: () => true },
        stderr: {
          write: (text: string) => expect(text).toContain("no svc server answered at http://127.0.0.1:9"),
        },
        cwd: process.cwd(),
      },
    );
    expect(result).toBe(1);
  });

  test("link without a plugins folder says which variables to set", async () => {
    let stderr = "";
    const code = await runPluginsCommand(
      ["link"],
      {},
      {
        stdout: { write: () => true },
        stderr: { write: (text: string) => (stderr += text) },
        cwd: process.cwd(),
      },
    );
    expect(code).toBe(1);
    expect(stderr).toContain("SVC_PLUGINS_DIR");
  });
});

describe("svc plugins enable/disable where two packages share a slug", () => {
  // "@fx/collide" (listed) and "fx-collide" (installed, not listed) both have the slug fx-collide.
  let collide: PluginApp;
  let collideServer: ReturnType<typeof Bun.serve>;
  const run = (...args: string[]) => cliAt(collideServer, {}, ...args);

  beforeAll(async () => {
    collide = await startPluginApp({
      fixtures: ["fx-collide", "fx-collide-unscoped"],
      entries: ["@fx/collide"],
    });
    collideServer = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: (request) => collide.app.fetch(request),
    });
  });

  afterAll(() => collideServer.stop(true));

  test("a package name acts on exactly that package, even when it is the other's slug", async () => {
    const result = await run("enable", "fx-collide");
    expect(result.code).toBe(0);
    expect(result.stdout).toStartWith("fx-collide@");
    expect(collide.services.settings.get("plugins")).toEqual(["@fx/collide", "fx-collide"]);
    expect(collide.services.settings.get("disabled_plugins")).toEqual([]);

    expect((await run("disable", "fx-collide")).code).toBe(0);
    expect(collide.services.settings.get("disabled_plugins")).toEqual(["fx-collide"]);
    expect((await collide.status("@fx/collide"))?.enabled).toBe(true);
  });

  test("an unknown name, or a slug two packages share, is refused with what to give instead", async () => {
    const unknown = await run("disable", "@fx/collide-nope");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no listed or installed plugin is named "@fx/collide-nope"');

    // "fx.collide" beside "@fx/collide": the slug fx-collide now names neither package exactly.
    const dir = pluginsDirWith("fx-collide", "fx-collide-unscoped");
    const manifest = join(dir, "fx-collide-unscoped", "package.json");
    writeFileSync(manifest, readFileSync(manifest, "utf8").replace('"fx-collide"', '"fx.collide"'));
    const other = await startPluginApp({ pluginsDir: dir, entries: ["@fx/collide"] });
    const otherServer = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (r) => other.app.fetch(r) });
    try {
      const shared = await cliAt(otherServer, {}, "disable", "fx-collide");
      expect(shared.code).toBe(1);
      expect(shared.stderr).toContain(
        '"fx-collide" is the slug of @fx/collide, fx.collide: give the package name instead',
      );
      expect(other.services.settings.get("disabled_plugins")).toEqual([]);
      expect((await cliAt(otherServer, {}, "enable", "fx.collide")).code).toBe(0);
      expect(other.services.settings.get("plugins")).toEqual(["@fx/collide", "fx.collide"]);
    } finally {
      otherServer.stop(true);
    }
  });

  test("the API refuses a shared slug without ?name= (409 ambiguous_slug) and obeys it with one", async () => {
    const res = await collide.request("/api/plugins/fx-collide/disable", { method: "POST" });
    expect(res.status).toBe(409);
    const body = (await res.json()) as { error: { code: string; message: string; details: unknown } };
    expect(body.error.code).toBe("ambiguous_slug");
    expect(body.error.details).toEqual({ slug: "fx-collide", names: ["@fx/collide", "fx-collide"] });
    const named = await collide.request("/api/plugins/fx-collide/disable?name=%40fx%2Fcollide", {
      method: "POST",
    });
    expect(named.status).toBe(200);
    expect(((await named.json()) as { plugin: { name: string } }).plugin.name).toBe("@fx/collide");
    const wrong = await collide.request("/api/plugins/fx-collide/enable?name=other", { method: "POST" });
    expect(wrong.status).toBe(404);
  });
});

describe("svc plugins against a server that requires keys", () => {
  test("sends the admin key from SVC_KEY or --key; without one it says what svc asked for", async () => {
    const keyed = createTestApp({ auth: "keys-everywhere" });
    const admin = keyed.access.createKey("ops", "admin").key;
    const target = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: (request, bun) => keyed.app.fetch(request, bun),
    });
    try {
      const refused = await cliAt(target, {}, "list");
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain("svc requires a key");
      expect((await cliAt(target, { SVC_KEY: admin }, "list")).code).toBe(0);
      expect((await cliAt(target, {}, "list", "--key", admin)).code).toBe(0);
    } finally {
      target.stop(true);
    }
  });
});
