// @ts-expect-error TypeScript types a .js import as the module; with type "file" Bun gives its path.
import profanityEntry from "../../plugins/profanity-filter/dist/index.js" with { type: "file" };
import profanityPage from "../../plugins/profanity-filter/dist/ui/index.html" with { type: "file" };
import profanityManifest from "../../plugins/profanity-filter/package.json" with { type: "file" };
import profanityPackage from "../../plugins/profanity-filter/package.json" with { type: "json" };

import { packPackage } from "./pack.ts";

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
      return packPackage(
        await Promise.all(
          Object.entries(files).map(
            async ([name, path]): Promise<[string, Uint8Array]> => [name, await Bun.file(path).bytes()],
          ),
        ),
      );
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
