import { renameSync } from "node:fs";
import { AppError } from "../../../errors.ts";
import { fileSize, hashInto, newSha256, removeFile, type Sha256 } from "./files.ts";
import { acquireLock } from "./lock.ts";
import { type ModelPreset, presetUrl } from "./presets.ts";
import { type DownloadOptions, type DownloadTarget, request } from "./request.ts";
import type { InstalledModel, ModelStore } from "./store.ts";

export interface DownloadResult {
  model: InstalledModel;
  verified: "sha256" | "size" | "structure";
  resumedFrom: number;
}

export const presetTarget = (preset: ModelPreset, baseUrl: string): DownloadTarget => ({
  id: preset.id,
  url: presetUrl(baseUrl, preset),
  sizeBytes: preset.sizeBytes,
  sha256: preset.sha256,
});

const mismatch = (
  target: DownloadTarget,
  code: "size_mismatch" | "checksum_mismatch",
  message: string,
  details: object,
) =>
  new AppError(code, `${message} The partial download was deleted.`, {
    details: { id: target.id, url: target.url, ...details },
  });

/**
 * Downloads `target` into the store: resumes a `.partial` file left by a cut connection with a Range
 * request, hashes as bytes arrive, verifies size and SHA-256, validates the header, then renames the
 * file into place. The lock is taken before this returns, so a concurrent pull fails at once with 409.
 * A cut connection, a stall or an abort keeps the partial file for the next attempt; wrong bytes delete it.
 */
export function downloadModel(
  store: ModelStore,
  target: DownloadTarget,
  options: DownloadOptions = {},
): Promise<DownloadResult> {
  store.ensureDir();
  const release = acquireLock(store.lockPathFor(target.id), `Model ${target.id}`);
  return run(store, target, options).finally(release);
}

async function run(
  store: ModelStore,
  target: DownloadTarget,
  options: DownloadOptions,
): Promise<DownloadResult> {
  const partial = store.partialPathFor(target.id);
  const expected = target.sizeBytes;
  for (let attempt = 0; ; attempt++) {
    let offset = fileSize(partial) ?? 0;
    if (expected !== undefined && offset > expected) {
      removeFile(partial);
      offset = 0;
    }
    const hasher = newSha256();
    if (offset > 0) await hashInto(partial, hasher, options.signal);
    if (offset > 0 && offset === expected) return finish(store, target, hasher, offset);
    const outcome = await request(target, { partial, offset, expected, attempt }, hasher, options);
    if (outcome === "retry") {
      removeFile(partial);
      continue;
    }
    return finish(store, target, outcome.hasher, outcome.resumedFrom);
  }
}

function finish(
  store: ModelStore,
  target: DownloadTarget,
  hasher: Sha256,
  resumedFrom: number,
): DownloadResult {
  const partial = store.partialPathFor(target.id);
  const size = fileSize(partial) ?? 0;
  if (target.sizeBytes !== undefined && size < target.sizeBytes) {
    throw new AppError(
      "download_interrupted",
      `${target.url} ended after ${size} of ${target.sizeBytes} bytes. The partial download is kept: pull again to resume.`,
      { details: { id: target.id, url: target.url, receivedBytes: size, expectedBytes: target.sizeBytes } },
    );
  }
  if (target.sizeBytes !== undefined && size > target.sizeBytes) {
    removeFile(partial);
    throw mismatch(
      target,
      "size_mismatch",
      `${target.url} sent ${size} bytes, not the ${target.sizeBytes} expected.`,
      {
        expectedBytes: target.sizeBytes,
        receivedBytes: size,
      },
    );
  }
  const digest = hasher.digest("hex");
  if (target.sha256 !== undefined && digest !== target.sha256.toLowerCase()) {
    removeFile(partial);
    throw mismatch(target, "checksum_mismatch", `The file from ${target.url} has the wrong SHA-256.`, {
      expectedSha256: target.sha256,
      actualSha256: digest,
    });
  }
  try {
    store.validate(partial);
  } catch (error) {
    removeFile(partial);
    throw error;
  }
  renameSync(partial, store.pathFor(target.id));
  const model = store.get(target.id);
  if (!model) throw new Error(`downloaded model ${target.id} vanished from ${store.dir}`);
  const verified =
    target.sha256 !== undefined ? "sha256" : target.sizeBytes !== undefined ? "size" : "structure";
  return { model, verified, resumedFrom };
}
