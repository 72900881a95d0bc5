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

describe("logger.request, the per-request line", () => {
  const args = ["id-1", "GET", "/api/health", 200, 0.123456] as const;

  test("writes the same JSON line info() would, with ms rounded to 0.01", () => {
    const fast = capture("json");
    fast.logger.request(...args);
    const slow = capture("json");
    slow.logger.info("request", {
      requestId: "id-1",
      method: "GET",
      path: "/api/health",
      status: 200,
      ms: 0.12,
    });
    const strip = (line: string | undefined) => JSON.parse(line ?? "{}") as Record<string, unknown>;
    expect({ ...strip(fast.lines[0]), time: 0 }).toEqual({ ...strip(slow.lines[0]), time: 0 });
    expect(fast.lines[0]?.endsWith("}\n")).toBe(true);
  });

  test("escapes a path with quotes or control characters", () => {
    const { logger, lines } = capture("json");
    logger.request("id-2", "GET", '/api/x"y\\z\u0001', 404, 1);
    expect(JSON.parse(lines[0] ?? "")).toMatchObject({ path: '/api/x"y\\z\u0001', status: 404 });
  });

  test("is an info line: dropped at warn, readable in pretty format", () => {
    const quiet = capture("json", "warn");
    quiet.logger.request(...args);
    expect(quiet.lines).toEqual([]);
    const pretty = capture("pretty");
    pretty.logger.request(...args);
    expect(pretty.lines[0]).toMatch(
      / INFO {2}request requestId=id-1 method=GET path=\/api\/health status=200 ms=0\.12\n$/,
    );
  });
});
