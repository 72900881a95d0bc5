import { rmSync, statSync } from "node:fs";
import { open } from "node:fs/promises";

export type Sha256 = Bun.CryptoHasher;

export const newSha256 = (): Sha256 => new Bun.CryptoHasher("sha256");

/** Size of a regular file, or undefined when there is none. */
export function fileSize(path: string): number | undefined {
  try {
    const stat = statSync(path);
    return stat.isFile() ? stat.size : undefined;
  } catch {
    return undefined;
  }
}

export const removeFile = (path: string) => rmSync(path, { force: true });

/** Feeds a file's bytes into `hasher`; a resumed download hashes what it already has this way. */
export async function hashInto(path: string, hasher: Sha256, signal?: AbortSignal): Promise<void> {
  for await (const chunk of Bun.file(path).stream()) {
    signal?.throwIfAborted();
    hasher.update(chunk);
  }
}

/** Copies `source` to `target` (overwriting it) and hashes the bytes in the same pass. */
export async function copyHashing(source: string, target: string): Promise<{ sha256: string; size: number }> {
  const hasher = newSha256();
  const out = await open(target, "w");
  let size = 0;
  try {
    for await (const chunk of Bun.file(source).stream()) {
      await out.write(chunk);
      hasher.update(chunk);
      size += chunk.byteLength;
    }
    await out.sync();
  } finally {
    await out.close();
  }
  return { sha256: hasher.digest("hex"), size };
}
