import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createModelStore, type ModelStore } from "../../../../src/dictation/engines/store/store.ts";
import { validateWhisperModel } from "../../../../src/dictation/engines/whisper/ggml-model.ts";
import { AppError } from "../../../../src/errors.ts";
import { appErrorOf } from "../../../helpers/errors.ts";
import { ggmlLikeFile, presetFor, whisperModelFile } from "../../../helpers/ggml-fixture.ts";

let root: string;
let dir: string;
let store: ModelStore;
const upstream = whisperModelFile(7);

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "svc-store-"));
  dir = join(root, "models");
  store = createModelStore({
    dir,
    presets: [presetFor("tiny.en", upstream)],
    validate: validateWhisperModel,
  });
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

function source(name: string, bytes: Uint8Array): string {
  const path = join(root, name);
  writeFileSync(path, bytes);
  return path;
}

describe("models store", () => {
  test("lists nothing, and creates nothing, while the directory does not exist", () => {
    expect(store.listInstalled()).toEqual([]);
    expect(readdirSync(root)).toEqual([]);
  });

  test("lists preset and custom .bin files and never partial, lock or hidden files", () => {
    mkdirSync(dir);
    writeFileSync(join(dir, "ggml-tiny.en.bin"), upstream);
    writeFileSync(join(dir, "my-model.bin"), ggmlLikeFile(100));
    writeFileSync(join(dir, "ggml-base.en.bin.partial"), "x");
    writeFileSync(join(dir, "ggml-base.en.bin.lock"), "1");
    writeFileSync(join(dir, ".import-1234.partial"), "x");
    writeFileSync(join(dir, "notes.txt"), "x");
    const listed = store
      .listInstalled()
      .map(({ id, file, preset, sizeBytes }) => ({ id, file, preset, sizeBytes }));
    expect(listed).toEqual([
      { id: "tiny.en", file: "ggml-tiny.en.bin", preset: true, sizeBytes: upstream.length },
      { id: "my-model", file: "my-model.bin", preset: false, sizeBytes: 100 },
    ]);
    expect(store.pathFor("my-model")).toBe(join(dir, "my-model.bin"));
    expect(store.pathFor("base.en")).toBe(join(dir, "ggml-base.en.bin"));
    expect(store.partialBytes("base.en")).toBe(1);
  });

  test.each(["../evil", "a/b", "", ".hidden", "x.bin", "a".repeat(101)])("refuses the model id %j", (id) => {
    expect(() => store.pathFor(id)).toThrow(AppError);
  });

  test("imports a valid custom file under its own name after checking every tensor", async () => {
    const result = await store.importFile(source("ggml-whisper-nl.bin", whisperModelFile(2)));
    expect(result.verified).toBe("structure");
    expect(result.model).toMatchObject({ id: "whisper-nl", file: "ggml-whisper-nl.bin", preset: false });
    expect(readdirSync(dir)).toEqual(["ggml-whisper-nl.bin"]);
  });

  test("refuses a file whose header is whisper's but whose tensors are not, leaving nothing behind", async () => {
    const error = await appErrorOf(store.importFile(source("ggml-broken.bin", ggmlLikeFile(5000))));
    expect(error.status).toBe(422);
    expect(error.code).toBe("invalid_model");
    expect(readdirSync(dir)).toEqual([]);
  });

  test("refuses a file that is not a ggml model and leaves nothing behind", async () => {
    const gguf = ggmlLikeFile(5000);
    gguf.set(new TextEncoder().encode("GGUF"), 0);
    const error = await appErrorOf(store.importFile(source("model.bin", gguf)));
    expect(error.status).toBe(422);
    expect(error.code).toBe("invalid_model");
    expect(error.message).toContain("ggml magic");
    expect(readdirSync(dir)).toEqual([]);
  });

  test("recognises an upstream file by its bytes whatever it is called", async () => {
    const result = await store.importFile(source("downloaded.bin", upstream));
    expect(result.verified).toBe("sha256");
    expect(result.model).toMatchObject({ id: "tiny.en", preset: true });
  });

  test("refuses a file that claims a preset's name with other bytes", async () => {
    const error = await appErrorOf(store.importFile(source("ggml-tiny.en.bin", whisperModelFile(8))));
    expect(error.status).toBe(422);
    expect(error.code).toBe("preset_mismatch");
    expect(error.message).toContain("--name");
    expect(readdirSync(dir)).toEqual([]);
    const renamed = await store.importFile(source("ggml-tiny.en.bin", whisperModelFile(8)), {
      name: "tuned",
    });
    expect(renamed.model.id).toBe("tuned");
  });

  test("refuses to overwrite an installed custom model", async () => {
    await store.importFile(source("mine.bin", whisperModelFile(3)));
    const error = await appErrorOf(store.importFile(source("mine.bin", whisperModelFile(4))));
    expect(error.status).toBe(409);
    expect(error.code).toBe("model_exists");
  });

  test("a missing source file is a 404", async () => {
    const error = await appErrorOf(store.importFile(join(root, "nope.bin")));
    expect(error.status).toBe(404);
  });

  test("remove deletes the model and its partial download", async () => {
    await store.importFile(source("ggml-tiny.en.bin", upstream));
    writeFileSync(store.partialPathFor("tiny.en"), "x");
    expect(store.remove("tiny.en")).toBe(true);
    expect(readdirSync(dir)).toEqual([]);
    expect(store.remove("tiny.en")).toBe(false);
  });
});
