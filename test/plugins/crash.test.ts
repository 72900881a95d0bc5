import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { silentLogger } from "../../src/logger.ts";
import { createInstaller } from "../../src/plugins/installer.ts";
import { createRegistryClient } from "../../src/plugins/registry-client.ts";
import { runPluginHooks, startPluginApp } from "../helpers/plugins.ts";
import { startRegistry } from "../helpers/registry-server.ts";

let registry: Awaited<ReturnType<typeof startRegistry>>;

beforeAll(async () => {
  registry = await startRegistry();
  await registry.publish("@fx/crashy", "1.0.0", " [v1]");
  await registry.publish("@fx/crashy", "2.0.0", " [v2]");
});

afterAll(() => registry.stop());

async function installedV1(): Promise<string> {
  const pluginsDir = mkdtempSync(join(tmpdir(), "svc-plugins-"));
  const app = await startPluginApp({ pluginsDir, npmRegistry: registry.url });
  const res = await app.json("/api/plugins/install", "POST", { npmName: "@fx/crashy", version: "1.0.0" });
  expect(res.status).toBe(201);
  await app.plugins.stop();
  return pluginsDir;
}

async function crashDuringInstall(pluginsDir: string, step: string) {
  const proc = Bun.spawn(
    [
      process.execPath,
      resolve(import.meta.dir, "crash-install.ts"),
      pluginsDir,
      registry.url,
      "@fx/crashy",
      "2.0.0",
      step,
    ],
    { stdout: "pipe", stderr: "pipe" },
  );
  await proc.exited;
  expect(proc.signalCode).toBe("SIGKILL");
}

const restart = (pluginsDir: string) =>
  startPluginApp({ pluginsDir, npmRegistry: registry.url, entries: ["@fx/crashy"] });

describe("an install interrupted between staging and the swap", () => {
  test("a crash after staging leaves the old version in place and working", async () => {
    const pluginsDir = await installedV1();
    await crashDuringInstall(pluginsDir, "afterStage");
    const app = await restart(pluginsDir);
    expect(await runPluginHooks(app, "x")).toBe("x [v1]");
    expect(readdirSync(join(pluginsDir, ".staging"))).toEqual([]);
  });

  test("a crash after the old copy moved aside: the restart puts it back and it works", async () => {
    const pluginsDir = await installedV1();
    await crashDuringInstall(pluginsDir, "afterMoveAside");
    expect(existsSync(join(pluginsDir, "fx-crashy"))).toBe(false);
    const app = await restart(pluginsDir);
    expect((await app.status("@fx/crashy"))?.version).toBe("1.0.0");
    expect(await runPluginHooks(app, "x")).toBe("x [v1]");
    expect(readdirSync(join(pluginsDir, ".staging"))).toEqual([]);
  });

  test("a failure at the swap rolls back at once: the old version keeps working", async () => {
    const pluginsDir = await installedV1();
    const installer = createInstaller({
      pluginsDir,
      registry: createRegistryClient({ url: registry.url }),
      logger: silentLogger,
      faults: {
        afterMoveAside: () => {
          throw new Error("disk full");
        },
      },
    });
    await expect(installer.install("@fx/crashy", "2.0.0")).rejects.toThrow("disk full");
    const app = await restart(pluginsDir);
    expect(await runPluginHooks(app, "x")).toBe("x [v1]");
  });
});
