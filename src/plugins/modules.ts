import { readdir } from "node:fs/promises";
import { dirname, join, relative } from "node:path";

const jsModule = /\.(?:m?js|cjs)$/;

/**
 * The JavaScript files in a plugin's `dist/` besides its entry, pages (`dist/ui/`) aside. A reload
 * imports the entry afresh, but modules it imports stay cached, so a plugin split into several
 * server modules does not pick up their changes until svc restarts: plugins ship one bundle.
 */
export async function extraServerModules(packageDir: string, main: string): Promise<string[]> {
  const root = join(packageDir, dirname(main));
  const found: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (path !== join(root, "ui")) await walk(path);
      } else if (jsModule.test(entry.name)) {
        const name = relative(packageDir, path).split("\\").join("/");
        if (name !== main) found.push(name);
      }
    }
  };
  await walk(root);
  return found.sort();
}

/** The warning for `extraServerModules`, naming the plugin and the first few files. */
export function extraModulesWarning(name: string, extra: readonly string[]): string {
  const shown = extra.slice(0, 3).join(", ") + (extra.length > 3 ? ", …" : "");
  return `plugin "${name}" has ${extra.length} JavaScript module(s) in dist/ besides its entry (${shown}): a reload re-imports only the entry, so changes to the others apply after a restart. Bundle the plugin into one file (bun build).`;
}
