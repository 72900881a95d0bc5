import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { downloadModel } from "../../../../src/dictation/engines/store/download.ts";
import type { DownloadProgress, DownloadTarget } from "../../../../src/dictation/engines/store/request.ts";
import { createModelStore, type ModelStore } from "../../../../src/dictation/engines/store/store.ts";
import { validateWhisperModel } from "../../../../src/dictation/engines/whisper/ggml-model.ts";
import { modelPresets } from "../../../../src/dictation/engines/whisper/models/presets.ts";
import { AppError } from "../../../../src/errors.ts";
import { appErrorOf } from "../../../helpers/errors.ts";
import { ggmlLikeFile, sha256Hex, whisperModelFile } from "../../../helpers/ggml-fixture.ts";
import { type ModelMirror, startModelMirror } from "../../../helpers/model-mirror.ts";
import { freePort } from "../../../helpers/ports.ts";

// About 1 MB: large enough that a download spans many chunks and can be cut and resumed.
const model = whisperModelFile(1, 8);
const SIZE = model.length;

let dir: string;
let store: ModelStore;
let mirror: ModelMirror;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "svc-models-"));
  store = createModelStore({ dir, presets: modelPresets, validate: validateWhisperModel });
  mirror = startModelMirror({ "ggml-test.bin": model });
});

afterEach(() => {
  mirror.stop();
  rmSync(dir, { recursive: true, force: true });
});

const target = (overrides: Partial<DownloadTarget> = {}): DownloadTarget => ({
  id: "test",
  url: `${mirror.url}/ggml-test.bin`,
  sizeBytes: SIZE,
  sha256: sha256Hex(model),
  ...overrides,
});

const installedBytes = () => new Uint8Array(readFileSync(store.pathFor("test")));

describe("downloadModel", () => {
  test("downloads, verifies the SHA-256 and renames the file into place", async () => {
    const progress: DownloadProgress[] = [];
    const result = await downloadModel(store, target(), { onProgress: (p) => progress.push(p) });
    expect(result.verified).toBe("sha256");
    expect(result.model).toMatchObject({ id: "test", file: "ggml-test.bin", sizeBytes: SIZE });
    expect(sha256Hex(installedBytes())).toBe(sha256Hex(model));
    expect(readdirSync(dir)).toEqual(["ggml-test.bin"]);
    expect(progress.at(-1)).toMatchObject({ receivedBytes: SIZE, totalBytes: SIZE, resumedFrom: 0 });
    const received = progress.map((p) => p.receivedBytes);
    expect(received).toEqual([...received].sort((a, b) => a - b));
  });

  test("resumes after a cut connection with a Range request and ends with the right file", async () => {
    mirror.cutNextAfter(300_000);
    const cut = await appErrorOf(downloadModel(store, target()));
    expect(cut.status).toBe(502);
    expect(cut.code).toBe("download_interrupted");
    expect(cut.message).toContain("pull again to resume");
    // The client may lose the last chunk in flight when the connection drops; it resumes from what it kept.
    const kept = store.partialBytes("test");
    expect(kept).toBeGreaterThan(100_000);
    expect(kept).toBeLessThanOrEqual(300_000);
    expect(existsSync(store.pathFor("test"))).toBe(false);

    const result = await downloadModel(store, target());
    expect(mirror.requests[1]).toMatchObject({
      range: `bytes=${kept}-`,
      status: 206,
      sentBytes: SIZE - kept,
    });
    expect(result.resumedFrom).toBe(kept);
    expect(sha256Hex(installedBytes())).toBe(sha256Hex(model));
    expect(readdirSync(dir)).toEqual(["ggml-test.bin"]);
  });

  test("restarts cleanly when the server ignores Range and answers 200", async () => {
    mirror.cutNextAfter(400_000);
    await appErrorOf(downloadModel(store, target()));
    const kept = store.partialBytes("test");
    expect(kept).toBeGreaterThan(0);
    mirror.ignoreRange = true;
    const result = await downloadModel(store, target());
    expect(mirror.requests[1]).toMatchObject({ range: `bytes=${kept}-`, status: 200, sentBytes: SIZE });
    expect(result.resumedFrom).toBe(0);
    expect(sha256Hex(installedBytes())).toBe(sha256Hex(model));
  });

  test("rejects a checksum mismatch with 502 and deletes the partial file", async () => {
    const error = await appErrorOf(
      downloadModel(store, target({ sha256: sha256Hex(ggmlLikeFile(SIZE, 2)) })),
    );
    expect(error.status).toBe(502);
    expect(error.code).toBe("checksum_mismatch");
    expect(error.details).toMatchObject({ actualSha256: sha256Hex(model) });
    expect(readdirSync(dir)).toEqual([]);
  });

  test("hashes a resumed partial file too: corrupt bytes already on disk fail the checksum", async () => {
    store.ensureDir();
    const corrupt = ggmlLikeFile(500_000, 3);
    writeFileSync(store.partialPathFor("test"), corrupt);
    const error = await appErrorOf(downloadModel(store, target()));
    expect(mirror.requests[0]?.range).toBe("bytes=500000-");
    expect(error.code).toBe("checksum_mismatch");
    expect(readdirSync(dir)).toEqual([]);
  });

  test("refuses a file whose size differs from the pinned size and deletes the partial file", async () => {
    const larger = await appErrorOf(downloadModel(store, target({ sizeBytes: SIZE + 10 })));
    expect(larger.code).toBe("size_mismatch");
    expect(larger.details).toMatchObject({ expectedBytes: SIZE + 10, offeredBytes: SIZE });
    mirror.files.set("ggml-test.bin", ggmlLikeFile(SIZE - 5));
    const smaller = await appErrorOf(downloadModel(store, target()));
    expect(smaller.code).toBe("size_mismatch");
    expect(readdirSync(dir)).toEqual([]);
  });

  test("a host that cannot be reached says so, keeps nothing and names the ways without a download", async () => {
    const url = `http://127.0.0.1:${freePort()}/ggml-test.bin`;
    const error = await appErrorOf(downloadModel(store, target({ url })));
    expect(error.status).toBe(502);
    expect(error.code).toBe("download_failed");
    expect(error.message).toContain("could not reach 127.0.0.1");
    // In plain words, not the runtime's ("ECONNREFUSED: Unable to connect. Is the computer able…").
    expect(error.message).toContain("nothing answered there");
    expect(error.message).not.toContain("ECONNREFUSED");
    expect(error.message).toContain("svc models import");
    expect(error.message).not.toContain("kept");
    expect(store.partialBytes("test")).toBe(0);
  });

  test("a 404 from the mirror is a clear error naming the URL", async () => {
    const error = await appErrorOf(downloadModel(store, target({ url: `${mirror.url}/ggml-missing.bin` })));
    expect(error.status).toBe(502);
    expect(error.code).toBe("model_not_found_upstream");
    expect(error.message).toContain(`${mirror.url}/ggml-missing.bin answered 404`);
    expect(error.message).toContain("SVC_MODEL_BASE_URL");
    expect(readdirSync(dir)).toEqual([]);
  });

  test("verifies a complete partial file left by an earlier run without a request", async () => {
    store.ensureDir();
    writeFileSync(store.partialPathFor("test"), model);
    const result = await downloadModel(store, target());
    expect(mirror.requests).toEqual([]);
    expect(result.verified).toBe("sha256");
  });

  test("starts over when the partial file is longer than the remote file (416)", async () => {
    store.ensureDir();
    writeFileSync(store.partialPathFor("test"), ggmlLikeFile(SIZE + 100));
    const result = await downloadModel(store, target({ sizeBytes: undefined }));
    expect(mirror.requests.map((r) => r.status)).toEqual([416, 200]);
    expect(result.verified).toBe("sha256");
    expect(sha256Hex(installedBytes())).toBe(sha256Hex(model));
  });

  test("checks the ggml header when no checksum is pinned", async () => {
    mirror.files.set("page.bin", new TextEncoder().encode("<html>mirror login page</html>".padEnd(200, " ")));
    const error = await appErrorOf(
      downloadModel(
        store,
        target({ url: `${mirror.url}/page.bin`, sha256: undefined, sizeBytes: undefined }),
      ),
    );
    expect(error.status).toBe(422);
    expect(error.code).toBe("invalid_model");
    expect(readdirSync(dir)).toEqual([]);
    const plain = await downloadModel(store, target({ sha256: undefined }));
    expect(plain.verified).toBe("size");
  });
});

describe("downloadModel: interruptions and locking", () => {
  test("an abort keeps the partial file and the lock is released", async () => {
    mirror.pace = { chunkBytes: 64 * 1024, delayMs: 20 };
    const controller = new AbortController();
    const running = downloadModel(store, target(), {
      signal: controller.signal,
      onProgress: (p) => {
        if (p.receivedBytes >= 128 * 1024) controller.abort();
      },
    });
    const error = await running.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((error as Error).name).toBe("AbortError");
    expect(store.partialBytes("test")).toBeGreaterThanOrEqual(128 * 1024);
    expect(existsSync(store.lockPathFor("test"))).toBe(false);
  });

  test("a stalled connection fails with download_stalled and keeps what arrived", async () => {
    mirror.pace = { chunkBytes: 100_000, delayMs: 400 };
    const error = await appErrorOf(downloadModel(store, target(), { idleTimeoutMs: 100 }));
    expect(error.code).toBe("download_stalled");
    expect(store.partialBytes("test")).toBe(100_000);
  });

  test("a second download of the same model fails at once with 409 while the first runs", async () => {
    mirror.pace = { chunkBytes: 64 * 1024, delayMs: 10 };
    const first = downloadModel(store, target());
    let second: unknown;
    try {
      void downloadModel(store, target());
    } catch (error) {
      second = error;
    }
    expect(second).toBeInstanceOf(AppError);
    expect((second as AppError).status).toBe(409);
    expect((second as AppError).code).toBe("download_in_progress");
    await first;
    expect(mirror.requests).toHaveLength(1);
  });

  test("takes over a lock naming this process that this process does not hold (a restarted PID 1)", async () => {
    store.ensureDir();
    writeFileSync(store.lockPathFor("test"), String(process.pid));
    const result = await downloadModel(store, target());
    expect(result.verified).toBe("sha256");
    expect(existsSync(store.lockPathFor("test"))).toBe(false);
  });

  test("takes over a lock left by a process that has exited", async () => {
    const gone = Bun.spawn(["true"]);
    await gone.exited;
    store.ensureDir();
    writeFileSync(store.lockPathFor("test"), String(gone.pid));
    const result = await downloadModel(store, target());
    expect(result.verified).toBe("sha256");
  });
});
