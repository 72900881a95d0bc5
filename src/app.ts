import type { Server } from "bun";
import { Hono } from "hono";
import type { AccessService } from "./access/service.ts";
import type { CidrRange } from "./addresses.ts";
import type { Database } from "./db/database.ts";
import { createDesktopCors, desktopOrigin } from "./desktop/cors.ts";
import { withStreamAccess, withStreamToken } from "./desktop/stream-access.ts";
import type { Dictation } from "./dictation/dictation.ts";
import { activeLanguages } from "./dictation/engines/models.ts";
import { type EngineModelServices, engineStoresOf } from "./dictation/engines/stores.ts";
import type { OperatorLimits } from "./dictation/live/limits.ts";
import type { EventBus } from "./events.ts";
import { createAccessGate } from "./http/access.ts";
import { createAllowedMethods } from "./http/allowed-methods.ts";
import { type ApiDocs, createApiDocs } from "./http/api-docs.ts";
import { createAuthThrottle } from "./http/auth-throttle.ts";
import type { BodyLimits } from "./http/body-guard.ts";
import { createClientAddressing } from "./http/client-address.ts";
import type { DocumentedRoutes } from "./http/documented-routes.ts";
import { createErrorRenderer, type EnvelopeOf, notFoundRenderer } from "./http/errors.ts";
import { rawPath, routePath } from "./http/raw-path.ts";
import { createRequestContext, installRequestContext } from "./http/request-context.ts";
import { createRouteTable } from "./http/route-table.ts";
import { createOpenSockets } from "./http/sockets.ts";
import type { AppEnv } from "./http/types.ts";
import type { Logger } from "./logger.ts";
import type { PluginHost } from "./plugins/host.ts";
import { createAccessModeRoutes, createAuthRoutes, createKeysRoutes } from "./routes/access.ts";
import { createApiReferenceRoutes } from "./routes/api-reference.ts";
import { createConsoleRoutes } from "./routes/console.ts";
import { createDataTransferRoutes } from "./routes/data-transfer.ts";
import { createDesktopRoutes } from "./routes/desktop.ts";
import { createDevicesRoutes } from "./routes/devices.ts";
import { createDictateRoutes } from "./routes/dictate.ts";
import { createDictionaryRoutes } from "./routes/dictionary.ts";
import { createEnginesRoutes } from "./routes/engines.ts";
import { createEventsRoutes } from "./routes/events.ts";
import { createFormatsRoutes } from "./routes/formats.ts";
import { createHealthRoutes } from "./routes/health.ts";
import { createHistoryRoutes } from "./routes/history.ts";
import { createModelsRoutes } from "./routes/models.ts";
import { createOpenAiRoutes } from "./routes/openai.ts";
import { createPluginNamespace } from "./routes/plugin-namespace.ts";
import { createPluginRoutes } from "./routes/plugins.ts";
import { createPostProcessRoutes } from "./routes/post-process.ts";
import { createSettingsRoutes } from "./routes/settings.ts";
import { createTranscribeRoutes } from "./routes/transcribe.ts";
import { createVocabularyRoutes } from "./routes/vocabulary.ts";
import type { Runtime } from "./runtime.ts";
import type { Services } from "./services.ts";
import { consoleAssetLoader } from "./web/assets.ts";

/** What the HTTP application needs besides the runtime's parts. */
export interface HttpDeps {
  logger: Logger;
  version: string;
  trustedOrigins: ReadonlySet<string>;
  allowedHosts: readonly string[];
  /** Request body size, deadline, rate and concurrency limits. */
  body: BodyLimits;
  /** Wrong keys or codes an address may send a minute (SVC_AUTH_MAX_FAILURES); default 10. */
  authMaxFailures?: number;
  /** Proxies whose forwarded client address svc believes (SVC_TRUSTED_PROXIES); default none. */
  trustedProxies?: readonly CidrRange[];
  /** How long a console session lives, its cookie's Max-Age (SVC_SESSION_MAX_DAYS); default 180 days. */
  sessionMaxMs?: number;
  /** Whether svc listens beyond loopback (HOST): the console warns while keys are off. */
  exposed?: boolean;
  /** The caps that protect the server (SVC_DICTATE_MAX_*, SVC_WYOMING_MAX_*); default: their defaults. */
  operator?: OperatorLimits;
  /**
   * The path on svc of the script that defines `window.svc` in plugin pages, added to every
   * plugin HTML document. Default: the console's own bridge.js.
   */
  bridgeScriptUrl?: () => string | Promise<string>;
  /** SVC_FREESTYLE_DESKTOP=1: the Freestyle desktop app's dialect (src/desktop/); default off. */
  freestyleDesktop?: boolean;
}

/** The HTTP application's dependencies: the runtime's parts, and how it serves them. */
export interface AppDeps extends Services, HttpDeps {
  db: Database;
  /** Keys, sessions and the access mode: who may make which request (SVC_AUTH). */
  access: AccessService;
  events: EventBus;
  /** Route documentation collected as routes are mounted; served as /api/openapi.json. */
  docs: ApiDocs;
  /** Loaded plugins: management routes, `/api/plugins/<slug>/…` namespaces and the text hooks. */
  plugins: PluginHost;
  /** Speech model presets, downloads and the models directory. */
  models: EngineModelServices;
  /** The text pipeline and the transcriber built over the services, engines and plugin hooks. */
  dictation: Dictation;
}

/** The app's dependencies from an assembled runtime: main.ts and the tests wire svc alike. */
export function appDeps(runtime: Runtime, http: HttpDeps): AppDeps {
  const { services, plugins, models, dictation, db, events, access } = runtime;
  return { ...services, plugins, models, dictation, db, events, access, ...http, docs: createApiDocs() };
}

/**
 * The router's path: the same function the request context gives the access gate, so the gate
 * decides on exactly the path that is routed. A path that is not canonical never reaches the
 * router (the context refuses it first); should one ever, it is routed as it came, undecoded.
 */
const routerPath = (request: Request): string => {
  const raw = rawPath(request.url);
  return routePath(raw) ?? raw;
};

/** Builds the HTTP application from its dependencies; does no I/O of its own. */
export function createApp(deps: AppDeps) {
  const app = new Hono<AppEnv>({ getPath: routerPath });
  const throttle = createAuthThrottle(deps.authMaxFailures ?? 10);
  const client = createClientAddressing(deps.trustedProxies ?? []);
  // The Freestyle desktop app's dialect (docs/freestyle.md): off unless switched on.
  const desktop = deps.freestyleDesktop === true;
  // What the guards, the access gate and the body guard need of a route, each from its declaration.
  const pluginNamespace = createPluginNamespace(deps.plugins);
  const table = createRouteTable(deps.docs, [pluginNamespace]);
  // A route declares the shape of its errors (OpenAI's under /v1): guards, the body reader, the
  // route and a 404 beside it all render in it, each once. The desktop app reads its own.
  const envelopeOf: EnvelopeOf = (method, path, origin) =>
    desktop && origin === desktopOrigin ? "freestyle" : table.envelope(method, path);
  const gate = createAccessGate({
    access: deps.access,
    throttle,
    client,
    routeAccess: desktop ? withStreamAccess(table.access) : table.access,
  });
  const context = createRequestContext({
    envelopeOf,
    logger: deps.logger,
    trustedOrigins: deps.trustedOrigins,
    allowedHosts: deps.allowedHosts,
    crossPort: table.crossPort,
    access: desktop ? withStreamToken(gate) : gate,
    ...(desktop ? { cors: createDesktopCors(deps.trustedOrigins) } : {}),
  });
  const mount = (routes: DocumentedRoutes) => app.route(routes.prefix, routes.app);
  installRequestContext(app, context, { limits: deps.body, kindOf: table.bodyKind });
  const health = createHealthRoutes({
    version: deps.version,
    docs: deps.docs,
    name: desktop ? "freestyle" : "svc",
  });
  mount(health.routes);
  // The WebSocket routes keep their open sockets here, for svc's shutdown (and a revoked key) to close.
  const sockets = createOpenSockets((keyId, session) => deps.access.credentialEnded(keyId, session));
  const accessDeps = { ...deps, throttle, client, sockets, exposed: deps.exposed ?? false };
  mount(createAuthRoutes(accessDeps));
  mount(createKeysRoutes(accessDeps));
  mount(createAccessModeRoutes(accessDeps));
  mount(createDevicesRoutes(deps));
  mount(createEventsRoutes({ ...deps, sockets }));
  mount(createDictateRoutes({ ...deps, sockets }));
  mount(
    createTranscribeRoutes({ transcriber: deps.dictation.transcriber, docs: deps.docs, cleaned: desktop }),
  );
  mount(
    createPostProcessRoutes({
      pipeline: deps.dictation.pipeline,
      docs: deps.docs,
      cleaned: desktop,
      notify: (event) => deps.plugins.notify(event),
      publish: (type, data) => deps.events.publish(type, data),
    }),
  );
  const engines = { settings: deps.settings, stores: engineStoresOf(deps.models) };
  mount(
    createOpenAiRoutes({
      transcriber: deps.dictation.transcriber,
      vad: deps.dictation.vad,
      engines,
      maxAudioMs: () => deps.settings.get("max_audio_seconds") * 1000,
      docs: deps.docs,
    }),
  );
  mount(createSettingsRoutes({ ...deps, languages: () => activeLanguages(engines) }));
  mount(createHistoryRoutes(deps));
  mount(createModelsRoutes(deps));
  mount(createEnginesRoutes({ engines, recogniser: deps.dictation.transcriber, docs: deps.docs }));
  mount(createDictionaryRoutes(deps));
  mount(createVocabularyRoutes(deps));
  mount(createFormatsRoutes(deps));
  mount(createDataTransferRoutes(deps));
  if (desktop) for (const routes of createDesktopRoutes({ ...deps, sockets })) mount(routes);
  // The console's files are loaded once, on first use: plugin pages name its bridge script.
  const consoleAssets = consoleAssetLoader();
  const bridgeScriptUrl =
    deps.bridgeScriptUrl ?? (async () => (await consoleAssets()).byName["bridge.js"].url);
  // Management first: its paths are reserved, so no plugin namespace can shadow them.
  mount(createPluginRoutes({ ...deps, bridgeScriptUrl }));
  app.all(pluginNamespace.path, pluginNamespace.handler);
  mount(createApiReferenceRoutes(deps));
  app.route("/", createConsoleRoutes({ version: deps.version, assets: consoleAssets }));
  app.notFound(
    notFoundRenderer(
      createAllowedMethods(() => app.routes),
      envelopeOf,
    ),
  );
  app.onError(createErrorRenderer(deps.db.filename, envelopeOf));
  return Object.assign(app, {
    /** The body limit a request gets, by its route (the body guard's choice; tests read it). */
    bodyKindOf: (path: string, method = "POST") => table.bodyKind(method, path),
    /** The open WebSockets (events, live dictations): `closeAll` ends them at shutdown. */
    sockets,
    /**
     * Bun.serve's native route table, searched before `fetch`: GET /api/health is answered there
     * without Hono's router, through the same request context (guards, id, headers, log line).
     * Other methods on the path fall through to Hono.
     */
    bunRoutes: {
      [health.route.path]: {
        GET: (request: Request, server: Server<unknown>) =>
          context(request, server, health.answer, health.route),
      },
    },
  });
}

export type App = ReturnType<typeof createApp>;
