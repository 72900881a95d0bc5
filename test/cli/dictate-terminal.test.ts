import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { encodeWav } from "../../src/dictation/audio/index.ts";
import { createTestApp } from "../helpers/app.ts";
import { librivoxClips } from "../helpers/sphinx-testdata.ts";
import { until } from "../helpers/until.ts";

// `svc dictate --realtime` in a real terminal (tmux, Debian's package): the guess at the piece
// being spoken is one line rewritten in place, not a new line per guess; piped, plain lines.

const repo = join(import.meta.dir, "..", "..");
let dir: string;
let file: string;
let env: Record<string, string>;
const socket = `svc-test-${process.pid}`;

const tmux = (...args: string[]) => {
  const run = Bun.spawnSync(["tmux", "-L", socket, "-f", "/dev/null", ...args], { env: process.env });
  return run.stdout.toString();
};

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "svc-dictate-tty-"));
  // Two LibriVox sentences (about 12 s) with a pause: the detector commits a piece at the pause,
  // and the engine, idle while each is spoken, guesses at it every half second.
  const clips = librivoxClips();
  const parts = [clips[0]?.pcm, new Float32Array(16_000 * 0.8), clips[2]?.pcm].filter(
    (part): part is Float32Array => part !== undefined,
  );
  const pcm = new Float32Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    pcm.set(part, at);
    at += part.length;
  }
  file = join(dir, "two-sentences.wav");
  Bun.write(file, encodeWav(pcm));
  const dbPath = join(dir, "svc.db");
  const setup = createTestApp({ dbPath });
  setup.services.settings.set("stt_engine", "sphinx");
  setup.db.close();
  env = { SVC_DB_PATH: dbPath, SVC_MODELS_DIR: join(dir, "models") };
});

afterAll(() => {
  tmux("kill-server");
  rmSync(dir, { recursive: true, force: true });
});

const command = (extra = "") =>
  `cd ${repo} && env ${Object.entries(env)
    .map(([key, value]) => `${key}=${value}`)
    .join(
      " ",
    )} ${process.execPath} src/main.ts dictate --realtime --no-history ${file}${extra}; echo "EXIT=$?"; sleep 120`;

describe("svc dictate in a terminal", () => {
  test("rewrites the provisional line in place on a TTY, then leaves the pieces and the text", async () => {
    tmux("new-session", "-d", "-s", "tty", "-x", "160", "-y", "50", command());
    const screens: string[] = [];
    await until(
      () => {
        const screen = tmux("capture-pane", "-p", "-t", "tty");
        screens.push(screen);
        return screen;
      },
      (screen) => screen.includes("EXIT="),
      { timeoutMs: 90_000, everyMs: 100, what: "svc dictate to finish in tmux" },
    );
    const lines = (screen: string) => screen.split("\n").filter((line) => line.trim() !== "");
    const final = lines(screens.at(-1) ?? "");
    expect(final.at(-1), final.join("\n")).toBe("EXIT=0");
    // Guesses were shown while it ran, never more than one at a time, and none is left at the end.
    const guessing = screens.filter((screen) => lines(screen).some((line) => line.startsWith("~ ")));
    expect(guessing.length).toBeGreaterThan(0);
    for (const screen of screens)
      expect(lines(screen).filter((line) => line.startsWith("~ ")).length).toBeLessThan(2);
    expect(final.some((line) => line.startsWith("~ "))).toBe(false);
    // The committed pieces stay, one a line, then the finished text on stdout.
    const pieces = final.filter((line) => line.startsWith("+ "));
    expect(pieces.length).toBeGreaterThanOrEqual(2);
    // The text may wrap over several rows of the pane: it is what follows the last piece.
    const lastPiece = final.findLastIndex((line) => line.startsWith("+ "));
    const text = final.slice(lastPiece + 1, -1).join("");
    expect(text).toMatch(/^And .* john .*cold hearted/);
  }, 120_000);

  test("writes plain lines, one per message, when stderr is piped", async () => {
    tmux("new-session", "-d", "-s", "piped", "-x", "160", "-y", "50", command(" 2>&1 | cat -v"));
    const screen = await until(
      () => tmux("capture-pane", "-p", "-t", "piped", "-S", "-200"),
      (captured) => captured.includes("EXIT="),
      { timeoutMs: 90_000, everyMs: 200, what: "piped svc dictate to finish in tmux" },
    );
    // cat -v shows a carriage return as ^M and an escape as ^[: neither is written to a pipe.
    expect(screen).not.toContain("^M");
    expect(screen).not.toContain("^[");
    const lines = screen.split("\n");
    expect(lines.filter((line) => line.startsWith("~ ")).length).toBeGreaterThan(0);
    expect(lines.filter((line) => line.startsWith("+ ")).length).toBeGreaterThanOrEqual(2);
  }, 120_000);
});
