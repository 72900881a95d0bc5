import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { errorCodes } from "../../../src/error-codes.ts";
import { ApiError } from "../../../src/web/console/api.ts";
import {
  errorSentences,
  errorWords,
  fieldMessage,
  PlainError,
} from "../../../src/web/console/error-words.ts";

const src = join(import.meta.dir, "../../../src");

/** Every `.ts` file of the server (the console itself and its generated API types left out). */
function serverFiles(dir = src): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return path.endsWith(join("web", "console")) ? [] : serverFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/**
 * Every code the server can answer: its table (AppError takes no other) and the codes written out
 * where the server answers without an AppError (`code: "client_closed"` in the renderer).
 */
function serverCodes(): string[] {
  const codes = new Set<string>(Object.keys(errorCodes));
  for (const file of serverFiles())
    for (const match of readFileSync(file, "utf8").matchAll(/\bcode:\s*"([a-z][a-z0-9_]*)"/g))
      if (match[1]) codes.add(match[1]);
  return [...codes].sort();
}

const sample = (code: string) =>
  new ApiError(
    502,
    code,
    "ECONNREFUSED: Unable to connect. Is the computer able to access the url? (GET /api/models, SVC_MODEL_BASE_URL)",
    undefined,
    30,
    "req-1234",
  );

describe("the console's error sentences", () => {
  test("every code the server can send has a plain sentence in the console's table", () => {
    const codes = serverCodes();
    // The scan finds the table and the renderer's own codes.
    expect(codes).toContain("download_failed");
    expect(codes).toContain("client_closed");
    expect(codes.filter((code) => !Object.hasOwn(errorSentences, code))).toEqual([]);
  });

  test("a sentence names no code, route, variable or runtime message, and ends as a sentence", () => {
    for (const code of [...serverCodes(), "offline", "http_error"]) {
      const { sentence } = errorWords(sample(code));
      expect({ code, sentence }).toEqual({ code, sentence: expect.stringMatching(/^[A-Zs].*[.)]$/) });
      for (const technical of [
        code.includes("_") ? code : "\u0000",
        "/api/",
        "SVC_",
        "ECONNREFUSED",
        "HTTP ",
      ])
        expect({ code, has: sentence.includes(technical) }).toEqual({ code, has: false });
    }
  });

  test("Details keep the code, status, svc's own message and the request id", () => {
    const words = errorWords(sample("download_failed"));
    expect(words.sentence).toBe(
      "svc could not download the model from the download server. Check this machine's internet connection and try again, or copy the model file in by hand (see Details).",
    );
    expect(words.details).toEqual([
      ["Error code", "download_failed (HTTP 502)"],
      ["svc said", expect.stringContaining("ECONNREFUSED")],
      ["What else helps", expect.stringContaining("svc models import FILE")],
      ["Request id", "req-1234"],
    ]);
  });

  test("a settings refusal says svc's own labelled sentence; a bare one does not", () => {
    const refusal = new ApiError(400, "invalid_setting", "LLM timeout must be at least 500 ms", {
      key: "llm_timeout_ms",
      issues: ["must be at least 500"],
    });
    expect(errorWords(refusal).sentence).toBe(
      "LLM timeout must be at least 500 ms. Correct it and save again.",
    );
    expect(fieldMessage(refusal)).toBe("LLM timeout must be at least 500 ms");
    const bare = new ApiError(400, "invalid_setting", 'Invalid value for setting "llm_timeout_ms"');
    expect(errorWords(bare).sentence).toBe(
      "That value is not valid for this setting. Correct it and save again.",
    );
    expect(fieldMessage(bare)).toBe(errorWords(bare).sentence);
  });

  test("a wait svc names is in the sentence", () => {
    expect(errorWords(sample("busy")).sentence).toBe("svc is busy with other work. Try again in 30 s.");
  });

  test("a code the console does not know still gets a plain sentence, by its status", () => {
    expect(errorWords(new ApiError(500, "plugin_own_code", "boom")).sentence).toStartWith(
      "svc could not do this.",
    );
    expect(errorWords(new ApiError(400, "plugin_own_code", "boom")).sentence).toStartWith(
      "svc did not accept",
    );
  });

  test("the console's own sentences stay; the browser's own errors go under Details", () => {
    expect(errorWords(new Error("Choose a .json or .csv file.")).sentence).toBe(
      "Choose a .json or .csv file.",
    );
    expect(errorWords(new PlainError("No microphone.", [["The browser said", "NotFoundError"]]))).toEqual({
      sentence: "No microphone.",
      details: [["The browser said", "NotFoundError"]],
    });
    const runtime = errorWords(new TypeError("Failed to fetch"));
    expect(runtime.sentence).toBe("Something went wrong in this page. Reload it and try again.");
    expect(runtime.details).toEqual([["The browser said", "TypeError: Failed to fetch"]]);
  });
});
