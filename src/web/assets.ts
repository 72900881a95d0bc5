// The web console's files, embedded in the compiled binary (Bun's `type: "file"` imports) and
// served under content-hashed names. `scripts/build-console.ts` writes them; start, build,
// tests and `npm install` run it first.
import icon from "./console/icon.svg" with { type: "file" };
import appStyles from "./dist/app.css" with { type: "file" };
import appScript from "./dist/app.js.asset" with { type: "file" };
import bridgeScript from "./dist/frame.js.asset" with { type: "file" };
import workletScript from "./dist/worklet.js.asset" with { type: "file" };

/** One console file as served: its bytes, the gzip of them, and its hashed URL. */
export interface ConsoleAsset {
  readonly url: string;
  readonly type: string;
  /** Loaded by sandboxed plugin pages (an opaque origin), so served to any origin. */
  readonly crossOrigin: boolean;
  readonly body: Uint8Array<ArrayBuffer>;
  readonly gzip: Uint8Array<ArrayBuffer>;
}

const files = {
  "app.js": { path: appScript as string, type: "text/javascript; charset=utf-8" },
  "app.css": { path: appStyles as string, type: "text/css; charset=utf-8" },
  "worklet.js": { path: workletScript as string, type: "text/javascript; charset=utf-8" },
  "bridge.js": { path: bridgeScript as string, type: "text/javascript; charset=utf-8" },
  "icon.svg": { path: icon as string, type: "image/svg+xml" },
} as const;

export type ConsoleFile = keyof typeof files;

/** The console's files by name and by hashed URL path. */
export interface ConsoleAssets {
  byName: Record<ConsoleFile, ConsoleAsset>;
  byUrl: ReadonlyMap<string, ConsoleAsset>;
}

function hashedUrl(name: string, body: Uint8Array): string {
  const hash = new Bun.CryptoHasher("sha256").update(body).digest("hex").slice(0, 12);
  const dot = name.lastIndexOf(".");
  return `/assets/${name.slice(0, dot)}.${hash}${name.slice(dot)}`;
}

/** Reads, hashes and compresses the files once (about 1 ms); the server keeps the result. */
export async function loadConsoleAssets(): Promise<ConsoleAssets> {
  const entries = await Promise.all(
    Object.entries(files).map(async ([name, file]): Promise<[ConsoleFile, ConsoleAsset]> => {
      const body = await Bun.file(file.path).bytes();
      return [
        name as ConsoleFile,
        {
          url: hashedUrl(name, body),
          type: file.type,
          crossOrigin: name === "bridge.js",
          body,
          gzip: Bun.gzipSync(body),
        },
      ];
    }),
  );
  const byName = Object.fromEntries(entries) as Record<ConsoleFile, ConsoleAsset>;
  return { byName, byUrl: new Map(entries.map(([, asset]) => [asset.url, asset])) };
}

/** Loads the files on first use, once: the console routes and the plugin pages share them. */
export function consoleAssetLoader(): () => Promise<ConsoleAssets> {
  let loading: Promise<ConsoleAssets> | undefined;
  return () => {
    loading ??= loadConsoleAssets();
    return loading;
  };
}
