import { lstat, readdir } from "node:fs/promises";
import { join } from "node:path";
import { AppError } from "../errors.ts";
import { ManifestError, type PluginManifest, readManifest } from "./manifest.ts";
import { providedModules } from "./sdk-provider.ts";

const invalid = (message: string) =>
  new AppError("invalid_manifest", `The package is not an installable svc plugin: ${message}.`);

async function isRegularFile(path: string): Promise<boolean> {
  return lstat(path).then(
    (info) => info.isFile(),
    () => false,
  );
}

/** Native code would need a build step and a toolchain; plugins ship plain JavaScript. */
async function findNativeCode(root: string, prefix = ""): Promise<string | undefined> {
  for (const entry of await readdir(root, { withFileTypes: true })) {
    const path = `${prefix}${entry.name}`;
    if (entry.isDirectory()) {
      const found = await findNativeCode(join(root, entry.name), `${path}/`);
      if (found) return found;
    } else if (entry.name.endsWith(".node") || entry.name === "binding.gyp") {
      return path;
    }
  }
  return undefined;
}

/**
 * Checks an extracted package before it is moved into place: a valid manifest naming the
 * requested package and version, no dependencies to install, and every declared file present.
 */
export async function checkPackage(
  dir: string,
  expected: { name: string; version: string },
): Promise<PluginManifest> {
  let manifest: PluginManifest;
  try {
    manifest = await readManifest(dir);
  } catch (error) {
    throw invalid(error instanceof ManifestError ? error.message : String(error));
  }
  if (manifest.name !== expected.name || manifest.version !== expected.version) {
    throw invalid(
      `its package.json says ${manifest.name}@${manifest.version}, not ${expected.name}@${expected.version}`,
    );
  }
  if (manifest.devSource !== null) throw invalid('"svcDev" is reserved for development copies');
  const extra = manifest.dependencies.filter((dependency) => !providedModules.includes(dependency));
  if (extra.length > 0) {
    throw invalid(
      `it depends on ${extra.join(", ")}; svc installs no dependencies, so plugins must bundle their code (svc-sdk and freestyle-voice are provided)`,
    );
  }
  for (const path of [manifest.main, ...manifest.pages.map((page) => page.entry)]) {
    if (!(await isRegularFile(join(dir, path)))) throw invalid(`${path} is declared but not in the package`);
  }
  const native = await findNativeCode(dir);
  if (native) throw invalid(`it contains native code (${native})`);
  return manifest;
}
