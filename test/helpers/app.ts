import { randomUUID } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as v from "valibot";
import type { AuthMode } from "../../src/access/keys.ts";
import type { AccessService } from "../../src/access/service.ts";
import { parseCidrList } from "../../src/addresses.ts";
import { appDeps, createApp } from "../../src/app.ts";
import { type Database, openDatabase } from "../../src/db/database.ts";
import { runMigrations } from "../../src/db/migrate.ts";
import { migrations } from "../../src/db/migrations/index.ts";
import type { Dictation } from "../../src/dictation/dictation.ts";
import type { ModelService } from "../../src/dictation/engines/store/service.ts";
import type { EngineModelServices } from "../../src/dictation/engines/stores.ts";
import type { ModelPreset } from "../../src/dictation/engines/whisper/models/presets.ts";
import { defaultOperatorLimits, type OperatorLimits } from "../../src/dictation/live/limits.ts";
import type { Transcriber } from "../../src/dictation/transcriber.ts";
import { createEventBus, type EventBus, type ServerEvent } from "../../src/events.ts";
import { type ApiDocs, routeErrors } from "../../src/http/api-docs.ts";
import type { BodyLimits } from "../../src/http/body-guard.ts";
import { rawPath } from "../../src/http/raw-path.ts";
import { createLogger, type Logger } from "../../src/logger.ts";
import type { PluginHost, PluginHostOptions } from "../../src/plugins/host.ts";
import { assembleRuntime } from "../../src/runtime.ts";
import type { Services } from "../../src/services.ts";

/** Whisper's model service: the one downloading engine the tests pin presets for. */
export function whisperService(services: EngineModelServices): ModelService {
  const service = services.whisper;
  if (!service) throw new Error("whisper declares no model store");
  return service;
}

export interface TestApp {
  app: ReturnType<typeof createApp>;
  db: Database;
  access: AccessService;
  /** Every event published while the test ran. */
  events: ServerEvent[];
  /** The bus they were published on (a test serving /api/events subscribes its socket to it). */
  bus: EventBus;
  /** Log lines written while the test ran (parsed JSON). */
  logs: Record<string, unknown>[];
  logger: Logger;
  services: Services;
  /** Not started: call `plugins.start()` to load the plugins directory. */
  plugins: PluginHost;
  models: ModelService;
  dictation: Dictation;
  /** Every downloading engine's model service (the runtime's). */
  modelServices: EngineModelServices;
  /** The documented routes, as the app mounted them. */
  docs: ApiDocs;
  /** `app.request`: the request is addressed to `http://localhost`, which the Host guard passes. */
  request(path: string, init?: RequestInit): Promise<Response>;
  json(path: string, method: string, body: unknown, headers?: Record<string, string>): Promise<Response>;
}

export interface TestAppOptions {
  trustedOrigins?: string[];
  allowedHosts?: string[];
  /** SVC_MAX_BODY_SIZE (audio uploads and plugin routes); default 1 MiB. */
  maxBodyBytes?: number;
  /** The other body limits; defaults as in production. */
  body?: Partial<BodyLimits>;
  /** Default: a fresh folder name under the temp directory, created when the host starts. */
  pluginsDir?: string;
  /** Default: a closed port, so no test reaches a real registry by accident. */
  npmRegistry?: string;
  pluginHost?: Partial<PluginHostOptions>;
  /** Default: an in-memory database; a file survives to a second app (restart tests). */
  dbPath?: string;
  /** Default: a fresh folder name under the temp directory, created only when a model is written. */
  modelsDir?: string;
  modelBaseUrl?: string;
  /** Presets whose pins match the test's generated files (the real ones cannot be downloaded here). */
  modelPresets?: readonly ModelPreset[];
  /** The bridge script plugin HTML documents get; default: the console's bridge.js. */
  bridgeScriptUrl?: string;
  /** SVC_AUTH; default unset (the stored mode, else off). */
  auth?: AuthMode;
  /** SVC_AUTH_MAX_FAILURES; default 10. */
  authMaxFailures?: number;
  /** SVC_TRUSTED_PROXIES, as the variable is written; default none. */
  trustedProxies?: string;
  /** Whether the app says it listens beyond loopback; default false. */
  exposed?: boolean;
  /** The operator's caps (SVC_DICTATE_MAX_*, SVC_WYOMING_MAX_*); default: their defaults. */
  operator?: Partial<OperatorLimits>;
  /** Wraps the transcriber the app's routes use (a test watching the pieces a live dictation asks for). */
  wrap?: (transcriber: Transcriber) => Transcriber;
  /** SVC_FREESTYLE_DESKTOP=1; default off. */
  freestyleDesktop?: boolean;
}

/**
 * Makes every answer of a documented route prove itself documented: a success body its documented
 * schema does not parse, or an error code its OpenAPI entry does not list (error-codes.ts, the
 * route's `errors` and its shape's), fails the request, and so the test that sent it. The whole
 * suite thereby checks the API reference.
 */
function checkDocumentedErrors(app: ReturnType<typeof createApp>, docs: ApiDocs): void {
  const routes = docs.routes.map((doc) => ({
    doc,
    pattern: new RegExp(`^${doc.path.replace(/:[A-Za-z_]+/g, "[^/]+")}$`),
  }));
  const inner = app.fetch;
  app.fetch = async (request, env) => {
    const response = await inner(request, env);
    if (!response.headers.get("content-type")?.includes("json")) return response;
    const path = rawPath(request.url);
    const method = request.method.toLowerCase();
    // The most specific documented route: a literal path beats a parameter.
    const route = routes
      .filter(({ doc, pattern }) => doc.method === method && pattern.test(path))
      .sort((a, b) => a.doc.path.split(":").length - b.doc.path.split(":").length)[0];
    if (!route) return response;
    const documented = route.doc.responses?.[response.status]?.schema;
    if (response.status < 400) {
      if (documented) {
        const result = v.safeParse(documented, await response.clone().json());
        if (!result.success) {
          throw new Error(
            `${request.method} ${route.doc.path} answered ${response.status} with a body its API reference does not describe: ${v.summarize(result.issues)}`,
          );
        }
      }
      return response;
    }
    const body = (await response.clone().json()) as { error?: { code?: string } };
    const code = body.error?.code;
    if (code !== undefined && !(routeErrors(route.doc) as string[]).includes(code)) {
      throw new Error(
        `${request.method} ${route.doc.path} answered ${response.status} ${code}, which its API reference does not list`,
      );
    }
    return response;
  };
}

/** A fresh app over a fresh in-memory database, built exactly as main.ts builds it. */
export function createTestApp(options: TestAppOptions = {}): TestApp {
  const db = openDatabase(options.dbPath ?? ":memory:", { migrations });
  runMigrations(db, migrations);
  const events: ServerEvent[] = [];
  const bus = createEventBus();
  bus.subscribe((event) => events.push(event));
  const logs: Record<string, unknown>[] = [];
  const logger = createLogger({
    level: "debug",
    format: "json",
    write: (line) => logs.push(JSON.parse(line)),
  });
  const runtime = assembleRuntime({
    db,
    events: bus,
    logger,
    pluginsDir: options.pluginsDir ?? join(tmpdir(), `svc-test-plugins-${randomUUID()}`),
    registryUrl: options.npmRegistry ?? "http://127.0.0.1:9",
    modelsDir: options.modelsDir ?? join(tmpdir(), `svc-test-models-${randomUUID()}`),
    modelBaseUrl: options.modelBaseUrl ?? "http://127.0.0.1:9/unreachable",
    modelPresets: options.modelPresets ? { whisper: options.modelPresets } : undefined,
    pluginHost: options.pluginHost,
    authMode: options.auth ?? null,
  });
  const { services, plugins, models } = runtime;
  const { bridgeScriptUrl, wrap } = options;
  // The routes' dictation, its transcriber wrapped when a test watches it.
  const wrapped = wrap
    ? { ...runtime, dictation: { ...runtime.dictation, transcriber: wrap(runtime.dictation.transcriber) } }
    : runtime;
  const { dictation } = wrapped;
  const deps = appDeps(wrapped, {
    logger,
    version: "0.0.0-test",
    trustedOrigins: new Set(options.trustedOrigins ?? []),
    allowedHosts: options.allowedHosts ?? [],
    body: {
      maxUploadBytes: options.maxBodyBytes ?? 1024 * 1024,
      maxJsonBytes: 1024 * 1024,
      maxImportBytes: 32 * 1024 * 1024,
      timeoutMs: 120_000,
      minBytesPerSecond: 1024,
      maxConcurrent: 32,
      maxJsonConcurrent: 32,
      ...options.body,
    },
    bridgeScriptUrl: bridgeScriptUrl === undefined ? undefined : () => bridgeScriptUrl,
    authMaxFailures: options.authMaxFailures,
    trustedProxies: parseCidrList(options.trustedProxies ?? "").ranges,
    exposed: options.exposed,
    operator: { ...defaultOperatorLimits, ...options.operator },
    freestyleDesktop: options.freestyleDesktop,
  });
  const app = createApp(deps);
  checkDocumentedErrors(app, deps.docs);
  const request = (path: string, init: RequestInit = {}) => Promise.resolve(app.request(path, init));
  const json = (path: string, method: string, body: unknown, headers: Record<string, string> = {}) =>
    request(path, {
      method,
      body: JSON.stringify(body),
      headers: { "content-type": "application/json", ...headers },
    });
  return {
    app,
    db,
    access: runtime.access,
    events,
    bus,
    logs,
    logger,
    services,
    plugins,
    models: whisperService(models),
    modelServices: models,
    dictation,
    docs: deps.docs,
    request,
    json,
  };
}
