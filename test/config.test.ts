import { describe, expect, test } from "bun:test";
import { resolve } from "node:path";
import { ConfigError, loadConfig, parseByteSize } from "../src/config.ts";

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error("expected a ConfigError");
}

describe("loadConfig", () => {
  test("applies the documented defaults", () => {
    const config = loadConfig({ SVC_DB_PATH: "/tmp/x/svc.db" });
    expect(config).toMatchObject({
      dbPath: "/tmp/x/svc.db",
      port: 4649,
      host: "0.0.0.0",
      env: "production",
      doNotTrack: false,
      logLevel: "info",
      body: {
        maxUploadBytes: 64 * 1024 * 1024,
        maxJsonBytes: 1024 * 1024,
        maxImportBytes: 32 * 1024 * 1024,
        timeoutMs: 120_000,
        minBytesPerSecond: 1024,
        maxConcurrent: 32,
        maxJsonConcurrent: 32,
      },
      shutdownTimeoutMs: 10_000,
      pluginSetupTimeoutMs: 10_000,
      pluginsDir: "/tmp/x/plugins",
      modelsDir: "/tmp/x/models",
      npmRegistry: "https://registry.npmjs.org",
    });
    expect([...config.trustedOrigins]).toEqual([]);
    expect(config.allowedHosts).toEqual([]);
    expect(config.wyoming).toBeNull();
  });

  test("missing SVC_DB_PATH is one problem that says what to set", () => {
    expect(problems({})).toEqual([
      "SVC_DB_PATH is required: set it to the database file path, e.g. SVC_DB_PATH=./data/svc.db",
    ]);
    expect(problems({ SVC_DB_PATH: "  " })[0]).toContain("SVC_DB_PATH is required");
  });

  test("resolves a relative database path against the working directory", () => {
    expect(loadConfig({ SVC_DB_PATH: "data/svc.db" }).dbPath).toBe(resolve("data/svc.db"));
  });

  test("lists every invalid value at once", () => {
    const found = problems({
      SVC_DB_PATH: "/tmp/svc.db",
      PORT: "http",
      SVC_ENV: "staging",
      SVC_LOG_LEVEL: "loud",
      SVC_MAX_BODY_SIZE: "lots",
      SVC_TRUSTED_ORIGINS: "https://ok.example,*",
      SVC_ALLOWED_HOSTS: "http://svc.lan",
    });
    expect(found).toHaveLength(6);
    expect(found.join("\n")).toContain("PORT must be a whole number");
    expect(found.join("\n")).toContain("SVC_ENV must be production, development or test");
    expect(found.join("\n")).toContain("SVC_LOG_LEVEL");
    expect(found.join("\n")).toContain("SVC_MAX_BODY_SIZE");
    expect(found.join("\n")).toContain("SVC_TRUSTED_ORIGINS entries must be origins");
    expect(found.join("\n")).toContain("SVC_ALLOWED_HOSTS");
  });

  test("an invalid SVC_ALLOWED_HOSTS entry is named, among valid ones", () => {
    expect(
      problems({ SVC_DB_PATH: "/tmp/a.db", SVC_ALLOWED_HOSTS: "svc.lan, svc.lan:8080, https://x.example" }),
    ).toEqual([
      "SVC_ALLOWED_HOSTS entries must be host names like svc.lan or .example.com (no scheme, port or path): svc.lan:8080, https://x.example",
    ]);
  });

  test("SVC_PLUGIN_SETUP_TIMEOUT_MS is read and bounded", () => {
    expect(
      loadConfig({ SVC_DB_PATH: "/tmp/a.db", SVC_PLUGIN_SETUP_TIMEOUT_MS: "250" }).pluginSetupTimeoutMs,
    ).toBe(250);
    expect(problems({ SVC_DB_PATH: "/tmp/a.db", SVC_PLUGIN_SETUP_TIMEOUT_MS: "0" })).toEqual([
      "SVC_PLUGIN_SETUP_TIMEOUT_MS must be at least 100",
    ]);
  });

  test("SVC_WHISPER_DEVICE is auto by default and reads cpu, vulkan:N and cuda", () => {
    expect(loadConfig({ SVC_DB_PATH: "/tmp/a.db" }).whisperDevice).toEqual({ kind: "auto" });
    expect(loadConfig({ SVC_DB_PATH: "/tmp/a.db", SVC_WHISPER_DEVICE: "vulkan:1" }).whisperDevice).toEqual({
      kind: "vulkan",
      index: 1,
    });
    expect(loadConfig({ SVC_DB_PATH: "/tmp/a.db", SVC_WHISPER_DEVICE: "CUDA" }).whisperDevice).toEqual({
      kind: "cuda",
    });
    expect(problems({ SVC_DB_PATH: "/tmp/a.db", SVC_WHISPER_DEVICE: "gpu" })).toEqual([
      "SVC_WHISPER_DEVICE must be auto, cpu, vulkan, vulkan:N, cuda or cuda:N (N: the device's number)",
    ]);
  });

  test("PORT outside 0..65535 is refused", () => {
    expect(problems({ SVC_DB_PATH: "/tmp/a.db", PORT: "70000" })).toEqual(["PORT must be at most 65535"]);
  });

  test("SVC_WYOMING_PORT turns the Wyoming listener on, on HOST unless SVC_WYOMING_HOST says otherwise", () => {
    const on = loadConfig({ SVC_DB_PATH: "/tmp/a.db", HOST: "192.0.2.7", SVC_WYOMING_PORT: " 10300 " });
    expect(on.wyoming).toEqual({ host: "192.0.2.7", port: 10300 });
    const own = loadConfig({
      SVC_DB_PATH: "/tmp/a.db",
      SVC_WYOMING_PORT: "0",
      SVC_WYOMING_HOST: "127.0.0.1",
    });
    expect(own.wyoming).toEqual({ host: "127.0.0.1", port: 0 });
    expect(loadConfig({ SVC_DB_PATH: "/tmp/a.db", SVC_WYOMING_PORT: "" }).wyoming).toBeNull();
    expect(problems({ SVC_DB_PATH: "/tmp/a.db", SVC_WYOMING_PORT: "wyoming" })).toEqual([
      "SVC_WYOMING_PORT must be a port number (0 picks a free one), or unset to turn the listener off",
    ]);
    expect(problems({ SVC_DB_PATH: "/tmp/a.db", SVC_WYOMING_PORT: "70000" })).toEqual([
      "SVC_WYOMING_PORT must be at most 65535",
    ]);
  });

  test("parses lists, sizes and flags", () => {
    const config = loadConfig({
      SVC_DB_PATH: "/tmp/a.db",
      PORT: "8080",
      SVC_TRUSTED_ORIGINS: " https://Dictation.Example.com , app://svc ",
      SVC_ALLOWED_HOSTS: "SVC.lan, .example.com",
      SVC_MAX_BODY_SIZE: "10mb",
      DO_NOT_TRACK: "1",
      SVC_PLUGINS_DIR: "/opt/plugins",
    });
    expect(config.port).toBe(8080);
    expect([...config.trustedOrigins]).toEqual(["https://dictation.example.com", "app://svc"]);
    expect(config.allowedHosts).toEqual(["svc.lan", ".example.com"]);
    expect(config.body.maxUploadBytes).toBe(10 * 1024 * 1024);
    expect(config.doNotTrack).toBe(true);
    expect(config.pluginsDir).toBe("/opt/plugins");
  });
});

describe("parseByteSize", () => {
  test.each([
    ["1024", 1024],
    ["512k", 512 * 1024],
    ["64MB", 64 * 1024 * 1024],
    ["1.5g", 1.5 * 1024 ** 3],
    ["2 MiB", 2 * 1024 * 1024],
  ])("%p is %p bytes", (text, bytes) => {
    expect(parseByteSize(text)).toBe(bytes);
  });
  test.each(["", "-1", "ten", "5tb", "1e6"])("%p is not a size", (text) => {
    expect(parseByteSize(text)).toBeUndefined();
  });
});
