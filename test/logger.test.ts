import { describe, expect, test } from "bun:test";
import { createLogger } from "../src/logger.ts";

function capture(format: "json" | "pretty", level: "debug" | "info" | "warn" | "error" = "info") {
  const lines: string[] = [];
  const logger = createLogger({ level, format, write: (line) => lines.push(line) });
  return { logger, lines };
}

describe("createLogger", () => {
  test("json lines are valid JSON with time, level, message, bound and call fields", () => {
    const { logger, lines } = capture("json");
    logger
      .child({ requestId: "r1" })
      .info('say "hi"\n', { status: 200, ms: 1.5, bad: Number.NaN, nested: { a: [1] } });
    expect(lines).toHaveLength(1);
    expect(lines[0]?.endsWith("\n")).toBe(true);
    const parsed = JSON.parse(lines[0] ?? "");
    expect(parsed).toMatchObject({
      level: "info",
      msg: 'say "hi"\n',
      requestId: "r1",
      status: 200,
      ms: 1.5,
      bad: null,
    });
    expect(parsed.nested).toEqual({ a: [1] });
    expect(new Date(parsed.time).toISOString()).toBe(parsed.time);
  });

  test("errors are logged with their message and stack", () => {
    const { logger, lines } = capture("json");
    logger.error("failed", { error: new Error("boom") });
    const parsed = JSON.parse(lines[0] ?? "");
    expect(parsed.error.message).toBe("boom");
    expect(parsed.error.stack).toContain("boom");
  });

  test("drops lines below the level", () => {
    const { logger, lines } = capture("json", "warn");
    logger.debug("d");
    logger.info("i");
    logger.warn("w");
    logger.error("e");
    expect(lines.map((line) => JSON.parse(line).msg)).toEqual(["w", "e"]);
  });

  test("pretty lines are readable", () => {
    const { logger, lines } = capture("pretty");
    logger.child({ requestId: "r1" }).warn("slow request", { path: "/api/x y" });
    expect(lines[0]).toMatch(/^\d\d:\d\d:\d\d\.\d{3} WARN {2}slow request requestId=r1 path="\/api\/x y"\n$/);
  });
});

describe("json lines with awkward strings", () => {
  test.each(['a "quoted" path', "back\\slash", "tab\there", "emoji 🎙️ ok", "lone \ud800 surrogate", "é"])(
    "%p round-trips",
    (text) => {
      const lines: string[] = [];
      createLogger({ level: "info", format: "json", write: (line) => lines.push(line) }).info("m", { text });
      expect(JSON.parse(lines[0] ?? "").text).toBe(text);
    },
  );
});
