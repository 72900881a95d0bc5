import { networkInterfaces } from "node:os";
import { parseArgs } from "node:util";
import * as v from "valibot";
import type { CidrRange } from "./addresses.ts";
import { appDeps, createApp } from "./app.ts";
import { backupFile } from "./cli/backup.ts";
import { runDictateCommand } from "./cli/dictate.ts";
import { healthcheck } from "./cli/healthcheck.ts";
import { commandHelp, mainHelp } from "./cli/help.ts";
import { runKeysCommand } from "./cli/keys.ts";
import { runModelsCommand } from "./cli/models.ts";
import { runPluginsCommand } from "./cli/plugins.ts";
import { type OfflineCommand, runTranscribeCommand } from "./cli/transcribe.ts";
import { type Config, ConfigError, envSchema, loadConfig, whisperDeviceOf } from "./config.ts";
import { sqliteLibraryVersion, sqliteVersion } from "./db/database.ts";
import { lockDatabase, type ServerLock } from "./db/server-lock.ts";
import type { EngineDefinition } from "./dictation/engines/definition.ts";
import { GPU_ENGINE_COMMAND, GPU_PROBE_COMMAND } from "./dictation/engines/device-choice.ts";
import { engines } from "./dictation/engines/registry.ts";
import { engineStoresOf } from "./dictation/engines/stores.ts";
import { createLiveDriver } from "./dictation/live/driver.ts";
import { liveDoors, type OperatorLimits } from "./dictation/live/limits.ts";
import { SILERO_COMMAND } from "./dictation/vad/silero.ts";
import { reasonOf } from "./errors.ts";
import { lastResortError } from "./http/errors.ts";
import { socketHandler } from "./http/sockets.ts";
import { bindFailure, isLoopback, listenUrl, urlHost } from "./listen.ts";
import { createLogger, type Logger } from "./logger.ts";
import { openRuntime, type Runtime } from "./runtime.ts";
import { commit, version } from "./version.ts";
import { describeSvc, requestedModel } from "./wyoming/info.ts";
import { wyomingLimits } from "./wyoming/limits.ts";
import { createWyomingServer, type WyomingServer } from "./wyoming/server.ts";

type Env = Record<string, string | undefined>;

function fail(message: string, code = 1): number {
  process.stderr.write(`svc: ${message}\n`);
  return code;
}

function configOrExit(env: Env): Config | number {
  try {
    return loadConfig(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    if (error.problems.length === 1) return fail(error.problems[0] ?? "invalid configuration", 2);
    return fail(`invalid configuration:\n${error.problems.map((p) => `  - ${p}`).join("\n")}`, 2);
  }
}

async function serve(env: Env): Promise<number> {
  const config = configOrExit(env);
  if (typeof config === "number") return config;
  // Lines leave in batches of up to 20 ms: under load, a write per request costs more than the
  // request. Whatever is held is written on exit, so nothing is lost.
  const logger = createLogger({
    level: config.logLevel,
    format: config.env === "production" ? "json" : "pretty",
    batchMs: 20,
  });
  process.on("exit", () => logger.flush());
  let runtime: Runtime;
  let lock: ServerLock | undefined;
  try {
    // Before the runtime: a second server must not even run migrations or start plugins.
    if (config.dbPath !== ":memory:") lock = lockDatabase(config.dbPath);
    runtime = await openRuntime(config, logger);
  } catch (error) {
    lock?.release();
    return fail(reasonOf(error));
  }
  const { db, services, dictation } = runtime;
  services.history.startRetention();
  const app = createApp(
    appDeps(runtime, {
      logger,
      version,
      trustedOrigins: config.trustedOrigins,
      allowedHosts: config.allowedHosts,
      body: config.body,
      authMaxFailures: config.authMaxFailures,
      trustedProxies: config.trustedProxies,
      sessionMaxMs: config.sessions.maxMs,
      operator: config.operator,
      exposed: !isLoopback(config.host),
      freestyleDesktop: config.freestyleDesktop,
    }),
  );
  let server: Bun.Server<unknown>;
  try {
    server = Bun.serve({
      hostname: config.host,
      port: config.port,
      routes: app.bunRoutes,
      fetch: app.fetch,
      // Each WebSocket route binds its own handlers at the upgrade (http/sockets.ts).
      websocket: socketHandler,
      // The app enforces the body limits itself, from Content-Length before reading a byte and
      // while counting a chunked body, and answers with the JSON envelope, the request id and a
      // log line. Bun's own cap would answer first with a bare 413 and none of them.
      maxRequestBodySize: Number.MAX_SAFE_INTEGER,
      idleTimeout: 120,
      // Bun's development mode (its default unless NODE_ENV=production) answers an escaped error
      // with an HTML page and a stack trace; svc answers every error with its JSON envelope, and
      // serves no HTML bundles that development mode would rebuild.
      development: false,
      error: lastResortError(logger, config.dbPath),
      // With development off, Bun 1.4 sets SO_REUSEPORT, so a second svc on the same port would
      // bind too and the kernel would split connections between the two. One port, one server.
      reusePort: false,
    });
  } catch (error) {
    await runtime.close();
    lock?.release();
    return fail(bindFailure(config.host, config.port, error), 3);
  }
  const url = listenUrl(server.hostname ?? config.host, server.port ?? config.port);
  let wyoming: WyomingServer | null = null;
  if (config.wyoming) {
    try {
      wyoming = listenWyoming(config.wyoming, runtime, url, logger, config);
    } catch (error) {
      await server.stop(true);
      await runtime.close();
      lock?.release();
      const { host, port } = config.wyoming;
      return fail(bindFailure(host, port, error, { host: "SVC_WYOMING_HOST", port: "SVC_WYOMING_PORT" }), 3);
    }
  }
  logger.info("svc listening", {
    url,
    version,
    db: config.dbPath,
    sqlite: sqliteVersion(db),
    env: config.env,
  });
  // After the signal handlers (waitForShutdown installs them): a stop that follows its lines at once
  // must find them.
  setImmediate(() => {
    dictation.check();
    // The start is over: from here on, code runs again and again, and earns the JIT's normal
    // policy (the binary starts with a reluctant one, scripts/compile.ts).
    Bun.unsafe.setJITPolicy(1);
  });
  announceAccess(runtime, config, server.port ?? config.port, logger);
  // Start-up lines are not held back: whoever started svc is waiting for them.
  logger.flush();
  return await waitForShutdown(async () => {
    app.sockets.closeAll();
    wyoming?.stop();
    // Stop accepting, let in-flight requests finish (bounded), then release everything else.
    const drained = server.stop(false);
    const timedOut = await Promise.race([
      drained.then(() => false),
      Bun.sleep(config.shutdownTimeoutMs).then(() => true),
    ]);
    if (timedOut) {
      logger.warn("shutdown timeout reached; closing remaining connections");
      await server.stop(true);
    }
    await runtime.close();
    lock?.release();
  }, logger);
}

/**
 * The start log's word on access: with keys required and no admin key yet, svc makes one and logs
 * once a console login link with a one-time code (the key itself is never shown); with keys off on
 * an address beyond loopback, one line saying so and how to turn them on.
 */
function announceAccess(runtime: Runtime, config: Config, port: number, logger: Logger): void {
  const { access } = runtime;
  const first = access.firstRun();
  if (first) {
    const link = `${listenUrl(reachableHost(config.host), port)}/login?code=${first.code}`;
    logger.warn(
      `Keys are required (SVC_AUTH=${access.mode()}) and there was no admin key: svc made one, "${first.key.name}". Open this link within 15 minutes to log in to the console with it (it works once): ${link}`,
    );
    return;
  }
  if (access.mode() === "off" && !isLoopback(config.host)) {
    logger.warn(
      `Anyone on your network can use and change this svc: it listens on ${config.host}:${port} and keys are off. ` +
        "Turn them on with SVC_AUTH=keys, or on the console's Access screen.",
    );
  }
}

/** An address a person can open from another machine: HOST, or this machine's first LAN address for 0.0.0.0/::. */
function reachableHost(host: string): string {
  if (host !== "0.0.0.0" && host !== "::" && host !== "[::]") return host;
  for (const addresses of Object.values(networkInterfaces())) {
    const lan = addresses?.find((address) => address.family === "IPv4" && !address.internal);
    if (lan) return lan.address;
  }
  return "localhost";
}

/** The Wyoming listener for Home Assistant (SVC_WYOMING_PORT); throws when it cannot bind. */
function listenWyoming(
  address: { host: string; port: number },
  runtime: Runtime,
  url: string,
  logger: Logger,
  config: { wyomingAllow: readonly CidrRange[]; operator: OperatorLimits },
): WyomingServer {
  const allow = config.wyomingAllow;
  const { services, dictation } = runtime;
  const sources = { version, url, settings: services.settings, stores: engineStoresOf(runtime.models) };
  const wyoming = createWyomingServer({
    live: createLiveDriver({
      transcriber: dictation.transcriber,
      vad: dictation.vad,
      door: liveDoors.wyoming,
      settings: services.settings,
      operator: config.operator,
    }),
    limits: wyomingLimits(services.settings, config.operator),
    info: () => describeSvc(sources),
    model: (name, language) => requestedModel(sources, name, language),
    logger,
    allow,
  });
  const listener = wyoming.listen(address.host, address.port);
  logger.info("wyoming listening", { address: `tcp://${urlHost(listener.hostname)}:${listener.port}` });
  if (!isLoopback(address.host)) {
    logger.info(
      `The Wyoming listener is bound to ${address.host}: the protocol has no credentials, so it accepts loopback and the clients SVC_WYOMING_ALLOW names (${allow.map((range) => range.text).join(", ") || "none"}); they can only dictate.`,
    );
  }
  return wyoming;
}

function waitForShutdown(stop: () => Promise<void>, logger: Logger): Promise<number> {
  return new Promise((resolve) => {
    let stopping = false;
    const onSignal = (signal: string) => {
      if (stopping) {
        // A second signal means "now": whoever sent it will not wait for the drain.
        logger.warn("second signal during shutdown; exiting now", { signal });
        logger.flush();
        process.exit(130);
      }
      stopping = true;
      logger.info("shutting down", { signal });
      stop().then(
        () => resolve(0),
        (error) => {
          logger.error("shutdown failed", { error });
          resolve(1);
        },
      );
    };
    process.on("SIGTERM", () => onSignal("SIGTERM"));
    process.on("SIGINT", () => onSignal("SIGINT"));
  });
}

async function runHealthcheck(env: Env): Promise<number> {
  const result = v.safeParse(v.pick(envSchema, ["HOST", "PORT"]), env);
  if (!result.success) return fail(result.issues.map((issue) => issue.message).join("; "), 2);
  return (await healthcheck(result.output.HOST, result.output.PORT)) ? 0 : 1;
}

function runBackup(env: Env, target: string | undefined): number {
  if (!target) return fail("usage: svc backup PATH", 2);
  const config = configOrExit(env);
  if (typeof config === "number") return config;
  try {
    const written = backupFile(config.dbPath, target);
    process.stdout.write(`backup written to ${written}\n`);
    return 0;
  } catch (error) {
    return fail(`backup failed: ${reasonOf(error)}`);
  }
}

function runModels(env: Env, args: string[]): Promise<number> | number {
  const config = configOrExit(env);
  if (typeof config === "number") return config;
  return runModelsCommand(args, {
    modelsDir: config.modelsDir,
    baseUrl: config.modelBaseUrl,
    stdout: process.stdout,
    stderr: process.stderr,
    interrupts: process,
  });
}

function runKeys(env: Env, args: string[]): number {
  const config = configOrExit(env);
  if (typeof config === "number") return config;
  if (config.dbPath === ":memory:")
    return fail("svc keys needs SVC_DB_PATH to name the server's database file", 2);
  try {
    return runKeysCommand(args, config.dbPath, { stdout: process.stdout, stderr: process.stderr });
  } catch (error) {
    return fail(reasonOf(error));
  }
}

/** svc transcribe and svc dictate: an offline command over a runtime opened from the environment. */
async function runOffline(command: OfflineCommand, env: Env, args: string[]): Promise<number> {
  const config = configOrExit(env);
  if (typeof config === "number") return config;
  // Results go to stdout; only warnings and errors are logged (to stderr), readable.
  const logger = createLogger({
    level: "warn",
    format: "pretty",
    write: (line) => process.stderr.write(line),
  });
  try {
    return await command(args, () => openRuntime(config, logger), {
      stdout: (text) => process.stdout.write(text),
      stderr: (text) => process.stderr.write(text),
      stderrTerminal: { tty: process.stderr.isTTY === true, columns: process.stderr.columns },
    });
  } catch (error) {
    return fail(reasonOf(error));
  }
}

/** The engine a hidden helper command names (`svc __gpu-devices whisper …`), if svc has it. */
const engineNamed = (name: string | undefined): EngineDefinition | undefined =>
  (engines as Record<string, EngineDefinition | undefined>)[name ?? ""];

async function printVersion(env: Env): Promise<number> {
  const device = whisperDeviceOf(env);
  process.stdout.write(
    `svc ${version} (commit ${commit}, bun ${Bun.version}, sqlite ${sqliteLibraryVersion()})\n`,
  );
  for (const engine of Object.values(engines) as EngineDefinition[])
    if (engine.library)
      process.stdout.write(`${engine.library.name}: ${await engine.library.describe(device)}\n`);
  return 0;
}

const hotCommands = new Set(["transcribe", "dictate", SILERO_COMMAND]);

export async function main(argv: string[], env: Env): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    options: { help: { type: "boolean", short: "h" }, version: { type: "boolean", short: "v" } },
    allowPositionals: true,
    strict: false,
  });
  const [command = "serve", ...rest] = positionals;
  // `--version` / `-v` is svc's only before the command: after it, it is the command's own
  // option (`svc plugins install NAME --version 2`).
  const commandAt = argv.findIndex((arg) => !arg.startsWith("-"));
  const before = commandAt < 0 ? argv : argv.slice(0, commandAt);
  if (before.includes("--version") || before.includes("-v")) return printVersion(env);
  if (command === "help") {
    process.stdout.write(`${commandHelp[rest[0] ?? ""] ?? mainHelp}\n`);
    return 0;
  }
  if (values.help) {
    process.stdout.write(`${(positionals.length > 0 && commandHelp[command]) || mainHelp}\n`);
    return 0;
  }
  // These commands' work is hot loops in JavaScript (decoding, resampling, the detector): the JIT's
  // normal policy from the start. The server sets it once it listens; the rest run briefly.
  if (hotCommands.has(command)) Bun.unsafe.setJITPolicy(1);
  switch (command) {
    case "serve":
      return serve(env);
    case "healthcheck":
      return runHealthcheck(env);
    case "backup":
      return runBackup(env, rest[0]);
    case "models":
      // Raw arguments: the subcommand's own options (--url, --sha256, --name) take values.
      return runModels(env, argv.slice(argv.indexOf(command) + 1));
    case "transcribe":
      return runOffline(runTranscribeCommand, env, argv.slice(argv.indexOf(command) + 1));
    case "dictate":
      return runOffline(runDictateCommand, env, argv.slice(argv.indexOf(command) + 1));
    case "plugins":
      return runPluginsCommand(argv.slice(argv.indexOf(command) + 1), env);
    case "keys":
      return runKeys(env, argv.slice(argv.indexOf(command) + 1));
    // Not for people: the voice-activity detector's own process (dictation/vad/silero.ts starts it).
    case SILERO_COMMAND:
      return (await import("./dictation/vad/silero-process.ts")).serveSilero();
    // Not for people: one engine's GPU devices, listed apart from the server (device-choice.ts).
    case GPU_PROBE_COMMAND: {
      const probe = engineNamed(rest[0])?.probeDevices;
      if (!probe || (rest[1] !== "vulkan" && rest[1] !== "cuda")) return 2;
      process.stdout.write(`${JSON.stringify(probe(rest[1]))}\n`);
      return 0;
    }
    // Not for people: one engine on a GPU, in a process of its own (device-choice.ts).
    case GPU_ENGINE_COMMAND: {
      const serve = engineNamed(rest[0])?.serveGpu;
      return serve ? serve() : 2;
    }
    case "version":
      return printVersion(env);
    default:
      process.stderr.write(`svc: unknown command "${command}"\n\n${mainHelp}\n`);
      return 2;
  }
}

if (import.meta.main) {
  process.exit(await main(process.argv.slice(2), process.env));
}
