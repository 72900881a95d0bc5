import { packTar } from "modern-tar";
// @ts-expect-error TypeScript types a .js import as the module; with type "file" Bun gives its path.
import profanityEntry from "../../plugins/profanity-filter/dist/index.js" with { type: "file" };
import profanityPage from "../../plugins/profanity-filter/dist/ui/index.html" with { type: "file" };
import profanityManifest from "../../plugins/profanity-filter/package.json" with { type: "file" };
import profanityPackage from "../../plugins/profanity-filter/package.json" with { type: "json" };

/** A first-party plugin svc carries, so installing it needs no registry (and works offline). */
export interface BundledPlugin {
  version: string;
  /** The package as `npm pack` would make it, from the files compiled into svc. */
  tarball(): Promise<Uint8Array<ArrayBuffer>>;
}

function bundle(version: string, files: Record<string, string>): BundledPlugin {
  return {
    version,
    async tarball() {
      const entries = await Promise.all(
        Object.entries(files).map(async ([name, path]) => {
          const body = new Uint8Array(await Bun.file(path).arrayBuffer());
          return { header: { name: `package/${name}`, size: body.length, type: "file" as const }, body };
        }),
      );
      return Bun.gzipSync(await packTar(entries));
    },
  };
}

/** The first-party plugins, by package name (the files are embedded in the compiled binary). */
export const bundledPlugins: Readonly<Record<string, BundledPlugin>> = {
  "@svc/profanity-filter": bundle(profanityPackage.version, {
    "package.json": String(profanityManifest),
    "dist/index.js": String(profanityEntry),
    "dist/ui/index.html": String(profanityPage),
  }),
};
