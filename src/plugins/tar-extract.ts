import { lstat, mkdir, open, readdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { createTarDecoder } from "modern-tar";
import { AppError, errorCode, isStorageFull, reasonOf, storageFull } from "../errors.ts";

/** Caps for a UI + middleware plugin (notes/security.md §2.6). */
export interface ExtractLimits {
  maxUnpackedBytes: number;
  maxEntries: number;
  maxFileBytes: number;
  maxDepth: number;
  maxPathLength: number;
}

export const defaultExtractLimits: ExtractLimits = {
  maxUnpackedBytes: 50 * 1024 * 1024,
  maxEntries: 2000,
  maxFileBytes: 10 * 1024 * 1024,
  maxDepth: 16,
  maxPathLength: 255,
};

const unsafe = (message: string) =>
  new AppError("unsafe_archive", `The package archive was refused: ${message}. Nothing was installed.`);

// Conservative on purpose: a name outside this set is refused, never rewritten.
const segmentPattern = /^[A-Za-z0-9._@+~=,()[\] -]+$/;

function checkSegment(segment: string, path: string): void {
  if (segment === "" || segment === "." || segment === "..")
    throw unsafe(`entry "${path}" has an empty, "." or ".." part`);
  if (!segmentPattern.test(segment)) throw unsafe(`entry "${path}" has characters svc does not extract`);
  // Windows drops trailing dots and spaces, so "a." and "a" would be one file there.
  if (/[. ]$/.test(segment)) throw unsafe(`entry "${path}" has a part ending in a dot or space`);
}

/** The entry's path below `package/`, or null for the `package/` folder itself. */
export function entryPath(name: string, limits: ExtractLimits): string | null {
  const trimmed = name.endsWith("/") ? name.slice(0, -1) : name;
  if (trimmed === "package") return null;
  if (!trimmed.startsWith("package/")) throw unsafe(`entry "${name}" is outside the package/ folder`);
  const rest = trimmed.slice("package/".length);
  if (rest.length > limits.maxPathLength)
    throw unsafe(`entry "${name}" has a path longer than ${limits.maxPathLength}`);
  const segments = rest.split("/");
  if (segments.length > limits.maxDepth)
    throw unsafe(`entry "${name}" is nested deeper than ${limits.maxDepth}`);
  for (const segment of segments) checkSegment(segment, name);
  return rest;
}

function byteCap(max: number): TransformStream<Uint8Array, Uint8Array> {
  let total = 0;
  return new TransformStream({
    transform(chunk, controller) {
      total += chunk.length;
      if (total > max) controller.error(unsafe(`it unpacks to more than ${max} bytes`));
      else controller.enqueue(chunk);
    },
  });
}

async function writeFile(target: string, body: ReadableStream<Uint8Array>, size: number, max: number) {
  if (size > max) throw unsafe(`a file is larger than ${max} bytes`);
  await mkdir(dirname(target), { recursive: true, mode: 0o755 });
  // "wx": a path that already exists is an error, never an overwrite.
  const handle = await open(target, "wx", 0o644);
  let written = 0;
  try {
    for await (const chunk of body) {
      written += chunk.length;
      if (written > max) throw unsafe(`a file is larger than ${max} bytes`);
      await handle.write(chunk);
    }
  } finally {
    await handle.close();
  }
}

/** Belt and braces: after extraction not a single link may exist below `root`. */
async function assertNoLinks(root: string): Promise<void> {
  for (const entry of await readdir(root, { withFileTypes: true })) {
    const path = join(root, entry.name);
    const info = await lstat(path);
    if (info.isSymbolicLink()) throw unsafe(`a link appeared at ${entry.name}`);
    if (info.isDirectory()) await assertNoLinks(path);
    else if (!info.isFile()) throw unsafe(`${entry.name} is not a regular file`);
  }
}

/**
 * Extracts an npm tarball (.tgz) into the empty folder `dest`, keeping only regular files and
 * folders below `package/`. Links, devices, absolute or `..` paths, duplicates (also by case),
 * and anything over the limits are refused with 422 `unsafe_archive`.
 */
export async function extractPackage(
  tgz: Uint8Array<ArrayBuffer>,
  dest: string,
  limits: ExtractLimits = defaultExtractLimits,
): Promise<{ files: number }> {
  await mkdir(dest, { recursive: true, mode: 0o755 });
  const entries = new Blob([tgz])
    .stream()
    .pipeThrough(new DecompressionStream("gzip"))
    .pipeThrough(byteCap(limits.maxUnpackedBytes))
    .pipeThrough(createTarDecoder({ strict: true }));
  const seen = new Set<string>();
  let count = 0;
  let files = 0;
  let current = "";
  try {
    for await (const entry of entries) {
      const { header } = entry;
      current = header.name;
      if (++count > limits.maxEntries) throw unsafe(`it has more than ${limits.maxEntries} entries`);
      const type = header.type ?? "file";
      if (type !== "file" && type !== "directory") {
        throw unsafe(`entry "${header.name}" is a ${type}; only files and folders are allowed`);
      }
      const rest = entryPath(header.name, limits);
      if (rest === null) {
        await entry.body.cancel();
        continue;
      }
      // Case-folded, so two names one case-insensitive disk would merge are refused too.
      const key = rest.toLowerCase();
      if (seen.has(key))
        throw unsafe(`entry "${header.name}" appears twice (or differs from another only in case)`);
      seen.add(key);
      const target = join(dest, ...rest.split("/"));
      if (type === "directory") {
        await entry.body.cancel();
        await mkdir(target, { recursive: true, mode: 0o755 });
        continue;
      }
      await writeFile(target, entry.body, header.size, limits.maxFileBytes);
      files++;
    }
  } catch (error) {
    if (error instanceof AppError) throw error;
    // A full disk is the disk's problem, not the archive's.
    if (isStorageFull(error)) throw storageFull(dest, error);
    const code = errorCode(error);
    if (typeof code === "string" && code.startsWith("E")) {
      throw unsafe(`entry "${current}" clashes with another entry (${code})`);
    }
    const reason = reasonOf(error);
    throw unsafe(`it is not a readable gzip tarball (${reason})`);
  }
  await assertNoLinks(dest);
  return { files };
}
