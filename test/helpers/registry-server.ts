import type { Server } from "bun";
import { packTar, type TarEntry } from "modern-tar";

export interface PublishOptions {
  /** Replaces the generated package.json fields. */
  manifest?: Record<string, unknown>;
  /** Extra or hostile tar entries, added after the package's own files. */
  extraEntries?: TarEntry[];
  /** Entries that replace the generated ones entirely. */
  entries?: TarEntry[];
  /** Published integrity, when it should not match the bytes. */
  integrity?: string;
  tarballUrl?: string;
  tags?: string[];
  /** Raw gzip bytes to serve instead of a packed archive. */
  gzip?: Uint8Array<ArrayBuffer>;
}

export const file = (name: string, body: string, type: "file" = "file"): TarEntry => ({
  header: { name, size: new TextEncoder().encode(body).length, type },
  body,
});

/** A plugin package's files: package.json and a dist/index.js whose hook appends `mark`. */
export function pluginFiles(
  name: string,
  version: string,
  mark: string,
  manifest: Record<string, unknown> = {},
) {
  const pkg = {
    name,
    version,
    type: "module",
    main: "dist/index.js",
    files: ["dist"],
    dependencies: { "svc-sdk": "^0.1.0" },
    svc: { icon: "package" },
    ...manifest,
  };
  const code = `import { transform } from "svc-sdk";
export default () => ({ name: ${JSON.stringify(name)}, afterCleanup: transform((text) => text + ${JSON.stringify(mark)}) });
`;
  return [
    { header: { name: "package/", size: 0, type: "directory" as const } },
    file("package/package.json", JSON.stringify(pkg)),
    file("package/dist/index.js", code),
  ];
}

export async function gzipTar(entries: TarEntry[]): Promise<Uint8Array<ArrayBuffer>> {
  return Bun.gzipSync(await packTar(entries));
}

export const sha512 = (bytes: Uint8Array) =>
  `sha512-${new Bun.CryptoHasher("sha512").update(bytes).digest("base64")}`;

/** A plugin package as `npm pack` makes it (or as `options` spoils it). */
export async function pluginTarball(
  name: string,
  version: string,
  mark: string,
  options: PublishOptions = {},
): Promise<Uint8Array<ArrayBuffer>> {
  const entries = options.entries ?? [
    ...pluginFiles(name, version, mark, options.manifest),
    ...(options.extraEntries ?? []),
  ];
  return options.gzip ?? (await gzipTar(entries));
}

/** A small real npm registry on 127.0.0.1: packuments and tarballs, with every request recorded. */
export async function startRegistry() {
  const packuments = new Map<
    string,
    { "dist-tags": Record<string, string>; versions: Record<string, unknown> }
  >();
  const tarballs = new Map<string, Uint8Array<ArrayBuffer>>();
  const requests: string[] = [];
  let gate: Promise<void> | undefined;
  const server: Server<undefined> = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const path = new URL(request.url).pathname;
      requests.push(path);
      if (path.startsWith("/-/tarballs/")) {
        await gate;
        const bytes = tarballs.get(path);
        return bytes ? new Response(bytes) : new Response("not found", { status: 404 });
      }
      const name = decodeURIComponent(path.slice(1));
      const packument = packuments.get(name);
      return packument
        ? Response.json({ name, ...packument })
        : Response.json({ error: "Not found" }, { status: 404 });
    },
  });
  const url = `http://127.0.0.1:${server.port}`;
  return {
    url,
    requests,
    /** Holds tarball downloads until the returned function is called. */
    hold(): () => void {
      let release = () => {};
      gate = new Promise((resolve) => {
        release = resolve;
      });
      return () => {
        gate = undefined;
        release();
      };
    },
    async publish(name: string, version: string, mark: string, options: PublishOptions = {}) {
      const bytes = await pluginTarball(name, version, mark, options);
      const tarballPath = `/-/tarballs/${encodeURIComponent(name)}-${version}.tgz`;
      tarballs.set(tarballPath, bytes);
      const packument = packuments.get(name) ?? { "dist-tags": {}, versions: {} };
      packument.versions[version] = {
        name,
        version,
        dist: {
          tarball: options.tarballUrl ?? `${url}${tarballPath}`,
          integrity: options.integrity ?? sha512(bytes),
        },
      };
      for (const tag of options.tags ?? ["latest"]) packument["dist-tags"][tag] = version;
      packuments.set(name, packument);
    },
    stop: () => server.stop(true),
  };
}
