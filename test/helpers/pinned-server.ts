// svc served over HTTP in the test process, wired as main.ts wires it, with model presets pinned to
// files a test generates. The compiled binary pins the upstream presets (their SHA-256 cannot be
// produced here), so a browser test of a successful model download runs against this instead.
import { randomUUID } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { appDeps, createApp } from "../../src/app.ts";
import { openDatabase } from "../../src/db/database.ts";
import { runMigrations } from "../../src/db/migrate.ts";
import { migrations } from "../../src/db/migrations/index.ts";
import type { ModelPreset } from "../../src/dictation/engines/whisper/models/presets.ts";
import { createEventBus } from "../../src/events.ts";
import { socketHandler } from "../../src/http/sockets.ts";
import { createLogger } from "../../src/logger.ts";
import { assembleRuntime } from "../../src/runtime.ts";

export interface PinnedServer {
  url: string;
  stop(): Promise<void>;
}

export function startPinnedServer(options: {
  modelsDir: string;
  modelBaseUrl: string;
  modelPresets: readonly ModelPreset[];
}): PinnedServer {
  const db = openDatabase(":memory:", { migrations });
  runMigrations(db, migrations);
  const events = createEventBus();
  const logger = createLogger({ level: "error", format: "json", write: () => {} });
  const runtime = assembleRuntime({
    db,
    events,
    logger,
    pluginsDir: join(tmpdir(), `svc-test-plugins-${randomUUID()}`),
    registryUrl: "http://127.0.0.1:9",
    ...options,
    modelPresets: { whisper: options.modelPresets },
  });
  const app = createApp(
    appDeps(runtime, {
      logger,
      version: "0.0.0-test",
      trustedOrigins: new Set(),
      allowedHosts: [],
      body: {
        maxUploadBytes: 1024 * 1024,
        maxJsonBytes: 1024 * 1024,
        maxImportBytes: 32 * 1024 * 1024,
        timeoutMs: 120_000,
        minBytesPerSecond: 1024,
        maxConcurrent: 32,
        maxJsonConcurrent: 32,
      },
    }),
  );
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    routes: app.bunRoutes,
    fetch: app.fetch,
    websocket: socketHandler,
    development: false,
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    async stop() {
      app.sockets.closeAll();
      await server.stop(true);
      await runtime.close();
    },
  };
}
