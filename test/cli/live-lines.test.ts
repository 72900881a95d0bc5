import { describe, expect, test } from "bun:test";
import { createLiveLines } from "../../src/cli/live-lines.ts";

function recorder(terminal: { tty: boolean; columns?: number }) {
  const written: string[] = [];
  return { written, lines: createLiveLines((text) => written.push(text), terminal) };
}

describe("createLiveLines", () => {
  test("on a terminal, a guess rewrites its line and a piece replaces it for good", () => {
    const { written, lines } = recorder({ tty: true, columns: 80 });
    lines.partial("go for");
    lines.partial("go forward");
    lines.commit("go forward ten meters");
    lines.commit("then stop");
    expect(written).toEqual([
      "\r\x1b[2K~ go for",
      "\r\x1b[2K~ go forward",
      "\r\x1b[2K+ go forward ten meters\n",
      "+ then stop\n",
    ]);
  });

  test("a guess wider than the terminal keeps its last words on one line", () => {
    const { written, lines } = recorder({ tty: true, columns: 20 });
    lines.partial("one two three four five six seven");
    expect(written[0]).toBe("\r\x1b[2K~ …five six seven");
    expect((written[0] ?? "").length - "\r\x1b[2K".length).toBeLessThan(20);
    lines.clear();
    expect(written.at(-1)).toBe("\r\x1b[2K");
  });

  test("piped, every message is a plain line and nothing is erased", () => {
    const { written, lines } = recorder({ tty: false });
    lines.partial("go for");
    lines.commit("go forward");
    lines.clear();
    expect(written).toEqual(["~ go for\n", "+ go forward\n"]);
  });
});
