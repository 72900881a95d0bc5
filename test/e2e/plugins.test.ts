import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { compiledBinary, type RunningServer, runBinary, startBinary } from "../helpers/binary.ts";
import { rawRequest } from "../helpers/raw-http.ts";
import { until } from "../helpers/until.ts";

const fixtures = resolve(import.meta.dir, "../fixtures/plugins");
let dir: string;
let pluginsDir: string;
let server: RunningServer;
let env: Record<string, string>;

type Listing = {
  items: {
    name: string;
    loaded: boolean;
    label: string | null;
    error: { stage: string; message: string } | null;
  }[];
};

const waitForLoaded = (names: string[]): Promise<Listing> =>
  until(
    async () => (await (await fetch(`${server.url}/api/plugins`)).json()) as Listing,
    (listing) => names.every((name) => listing.items.some((item) => item.name === name && item.loaded)),
    { timeoutMs: 5000, what: `plugins to load: ${names.join(", ")}` },
  );

/** A request exactly as written: fetch() would normalise the path before sending it. */
const rawGet = (port: number, path: string) =>
  rawRequest(port, [`GET ${path} HTTP/1.1`, `Host: 127.0.0.1:${port}`]);

beforeAll(async () => {
  await compiledBinary();
  dir = mkdtempSync(join(tmpdir(), "svc-e2e-plugins-"));
  pluginsDir = join(dir, "data", "plugins");
  // The registry is a closed port: nothing here may reach the real one.
  env = {
    SVC_DB_PATH: join(dir, "data", "svc.db"),
    SVC_PLUGIN_SETUP_TIMEOUT_MS: "300",
    SVC_NPM_REGISTRY: "http://127.0.0.1:9",
  };
  mkdirSync(pluginsDir, { recursive: true });
  for (const name of ["fx-transform", "fx-routes", "fx-throws-setup", "fx-hangs-setup"]) {
    cpSync(join(fixtures, name), join(pluginsDir, name), { recursive: true });
  }
  server = await startBinary(env);
  const res = await fetch(`${server.url}/api/settings/plugins`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      value: [["@fx/transform", { suffix: " [e2e]" }], "@fx/routes", "@fx/throws-setup", "@fx/hangs-setup"],
    }),
  });
  expect(res.status).toBe(200);
  await waitForLoaded(["@fx/transform", "@fx/routes"]);
}, 120_000);

afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("plugins in the compiled binary", () => {
  test("a plugin that imports svc-sdk loads: the binary provides the SDK", async () => {
    const res = await fetch(`${server.url}/api/plugins/fx-transform/sdk`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ sdkVersion: "0.1.0" });
    expect(existsSync(join(pluginsDir, "node_modules"))).toBe(false);
  });

  test("serves a plugin's routes in its namespace", async () => {
    const res = await fetch(`${server.url}/api/plugins/fx-routes/ping`);
    expect(await res.json()).toEqual({ pong: true, base: "/api/plugins/fx-routes" });
  });

  test("applies the plugin's afterCleanup to POST /api/post-process", async () => {
    const res = await fetch(`${server.url}/api/post-process`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ text: "hello from the binary" }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { text: string; stages: { plugins: { errors: unknown[] } } };
    expect(body.text).toEndWith(" [e2e]");
    expect(body.text.toLowerCase()).toStartWith("hello from the binary");
    expect(body.stages.plugins.errors).toEqual([]);
  });

  test("a plugin whose setup throws is reported and the server carries on", async () => {
    const listing = (await (await fetch(`${server.url}/api/plugins`)).json()) as Listing;
    const broken = listing.items.find((item) => item.name === "@fx/throws-setup");
    expect(broken?.loaded).toBe(false);
    expect(broken?.error).toEqual({ stage: "setup", message: "boom in setup" });
    // Log lines leave in batches; give the last one a moment to arrive.
    const logged = () =>
      server.lines.some((line) => line.msg === 'plugin "@fx/throws-setup" failed in setup: boom in setup');
    await until(logged, Boolean, { timeoutMs: 2000, what: "the setup failure's log line" });
    expect(logged()).toBe(true);
  });

  test("serves UI pages sandboxed", async () => {
    const res = await fetch(`${server.url}/api/plugins/fx-routes/ui/index.html`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-security-policy")).toStartWith("sandbox allow-scripts;");
  });

  test.each([
    "/api/plugins/fx-routes/ui/../index.js",
    "/api/plugins/fx-routes/ui/%2e%2e/index.js",
    "/api/plugins/fx-routes/ui/..%2findex.js",
    "/api/plugins/fx-routes/ui/..%5cindex.js",
    "/api/plugins/fx-routes/ui/%252e%252e/index.js",
    "/api/plugins/fx-routes%2F..%2Ffx-transform/sdk",
    "/api/plugins/fx-routes/..%2F..%2Fhealth",
    "//api/plugins/fx-routes/ping",
    "/api/plugins/FX-ROUTES/ping",
  ])("raw %s reaches neither the plugin's code nor another namespace", async (path) => {
    const { status, body } = await rawGet(server.port, path);
    expect(status).toBeGreaterThanOrEqual(400);
    expect(body).not.toContain("export default");
    expect(body).not.toContain("sdkVersion");
    expect(body).not.toContain("pong");
  });

  test("svc plugins list asks the running server", async () => {
    const { code, stdout } = await runBinary(["plugins", "list"], { SVC_URL: server.url });
    expect(code).toBe(0);
    expect(stdout).toContain("@fx/transform@1.0.0  /api/plugins/fx-transform  enabled");
    expect(stdout).toContain(
      "@fx/throws-setup@1.0.0  /api/plugins/fx-throws-setup  failed in setup: boom in setup",
    );
  });

  test("svc plugins link makes a [DEV] copy that the server lists", async () => {
    const source = mkdtempSync(join(tmpdir(), "svc-e2e-source-"));
    cpSync(join(fixtures, "fx-mutate"), source, { recursive: true });
    const { code, stdout } = await runBinary(["plugins", "link", source], {
      SVC_PLUGINS_DIR: pluginsDir,
      SVC_URL: server.url,
    });
    expect(code).toBe(0);
    expect(stdout).toContain("linked @fx/mutate as @fx/mutate-dev [DEV]");
    expect(stdout).toContain("reloaded its plugins");
    expect(lstatSync(join(pluginsDir, "fx-mutate-dev", "dist")).isSymbolicLink()).toBe(true);
    const listing = (await (await fetch(`${server.url}/api/plugins`)).json()) as Listing;
    expect(listing.items.find((item) => item.name === "@fx/mutate-dev")?.label).toBe("[DEV]");
    const enable = await runBinary(["plugins", "enable", "@fx/mutate-dev"], { SVC_URL: server.url });
    expect(enable.code).toBe(0);
    const listed = async () =>
      ((await (await fetch(`${server.url}/api/settings/plugins`)).json()) as { value: unknown[] }).value;
    expect(await listed()).toContain("@fx/mutate-dev");
    const unlink = await runBinary(["plugins", "unlink", source], {
      SVC_PLUGINS_DIR: pluginsDir,
      SVC_URL: server.url,
    });
    expect(unlink.stdout).toContain("removed @fx/mutate-dev");
    expect(unlink.stdout).toContain("unlisted @fx/mutate-dev");
    // Unlisted, so no later start goes looking for a package of that name.
    expect(await listed()).not.toContain("@fx/mutate-dev");
  });

  test("svc plugins install @svc/profanity-filter installs the copy the binary carries, offline", async () => {
    // The server's SVC_NPM_REGISTRY points nowhere: only the embedded copy can succeed.
    const { code, stdout, stderr } = await runBinary(
      ["plugins", "install", "@svc/profanity-filter", "--enable"],
      {
        SVC_URL: server.url,
      },
    );
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    expect(stdout).toContain("@svc/profanity-filter@");
    expect(stdout).toContain("enabled");
    const list = await fetch(`${server.url}/api/plugins/svc-profanity-filter/replacements`);
    expect(list.status).toBe(200);
    const uninstall = await runBinary(["plugins", "uninstall", "@svc/profanity-filter", "--purge"], {
      SVC_URL: server.url,
    });
    expect(uninstall.code).toBe(0);
  });

  test("an author's loop, offline, from the binary: new, build, link, enable, edit, reload, see", async () => {
    const project = join(mkdtempSync(join(tmpdir(), "svc-author-")), "hello");
    const created = await runBinary(["plugins", "new", "@acme/hello", project], {});
    expect(created.code).toBe(0);
    // The project's own install, build and test run with the bun running these tests, which its
    // scripts find as `bun` on the PATH.
    const bin = mkdtempSync(join(tmpdir(), "svc-bun-bin-"));
    symlinkSync(process.execPath, join(bin, "bun"));
    const path = `${bin}:${process.env.PATH ?? ""}`;
    const bun = (...args: string[]) =>
      Bun.spawnSync([process.execPath, ...args], { cwd: project, env: { ...process.env, PATH: path } });
    expect(bun("install", "--offline").exitCode).toBe(0);
    expect(bun("run", "build").exitCode).toBe(0);
    expect(bun("test").exitCode).toBe(0);
    const where = { SVC_PLUGINS_DIR: pluginsDir, SVC_URL: server.url };
    expect((await runBinary(["plugins", "link", project, "--no-build"], where)).code).toBe(0);
    expect((await runBinary(["plugins", "enable", "@acme/hello-dev"], where)).code).toBe(0);
    const hello = async () => (await fetch(`${server.url}/api/plugins/acme-hello-dev/hello`)).json();
    expect(await hello()).toEqual({ hello: "world" });
    const source = join(project, "src", "index.ts");
    writeFileSync(source, readFileSync(source, "utf8").replace('hello: "world"', 'hello: "edited"'));
    expect(bun("run", "build").exitCode).toBe(0);
    // The server also lists fixtures that fail on purpose, so reload exits 1 and names them.
    const reload = await runBinary(["plugins", "reload"], where);
    expect(reload.stdout).toMatch(
      /@acme\/hello-dev@0\.1\.0 \[DEV\] +\/api\/plugins\/acme-hello-dev +enabled/,
    );
    expect(reload.stderr).not.toContain("@acme/hello-dev");
    expect(await hello()).toEqual({ hello: "edited" });
    expect((await runBinary(["plugins", "unlink", project], where)).code).toBe(0);
  }, 60_000);

  test("after a restart the listed plugins load again from the settings", async () => {
    await server.stop();
    server = await startBinary(env);
    await waitForLoaded(["@fx/transform", "@fx/routes"]);
    const res = await fetch(`${server.url}/api/plugins/fx-transform/sdk`);
    expect(res.status).toBe(200);
    // A setup that never settles holds start up for SVC_PLUGIN_SETUP_TIMEOUT_MS, then is skipped.
    const listing = (await (await fetch(`${server.url}/api/plugins`)).json()) as Listing;
    expect(listing.items.find((item) => item.name === "@fx/hangs-setup")).toMatchObject({
      loaded: false,
      error: { stage: "setup", message: "timed out after 300 ms" },
    });
  }, 30_000);
});
