import { describe, expect, setSystemTime, test } from "bun:test";
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

  test.each([0, 0.004, 0.005, 0.05, 0.1, 0.123456, 1, 1.5, 1.05, 1.999, 9.995, 12.345, 100, 2500.07])(
    "prints ms %p as the number rounded to 0.01",
    (ms) => {
      const { logger, lines } = capture("json");
      logger.request("id-3", "GET", "/api/health", 200, ms);
      const printed = /"ms":([^}]+)\}/.exec(lines[0] ?? "")?.[1];
      expect(printed).toBe(String(Math.round(ms * 100) / 100));
    },
  );

  test("lines to other routes carry their own method, path and status", () => {
    const { logger, lines } = capture("json");
    logger.request("a", "GET", "/api/health", 200, 1);
    logger.request("b", "POST", "/api/transcribe", 201, 2);
    logger.request("c", "GET", "/api/health", 404, 3);
    expect(lines.map((line) => JSON.parse(line))).toMatchObject([
      { requestId: "a", method: "GET", path: "/api/health", status: 200, ms: 1 },
      { requestId: "b", method: "POST", path: "/api/transcribe", status: 201, ms: 2 },
      { requestId: "c", method: "GET", path: "/api/health", status: 404, ms: 3 },
    ]);
  });

  test("a line asked for at debug is written at debug, and only when the level lets debug through", () => {
    const quiet = capture("json", "info");
    quiet.logger.request("a", "GET", "/api/health", 200, 1, "debug");
    expect(quiet.lines).toEqual([]);
    const verbose = capture("json", "debug");
    verbose.logger.request("a", "GET", "/api/health", 200, 1, "debug");
    expect(JSON.parse(verbose.lines[0] ?? "")).toMatchObject({ level: "debug", msg: "request", status: 200 });
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

describe("a batching logger (svc's stdout)", () => {
  function batching(batchMs = 20) {
    const writes: string[] = [];
    const logger = createLogger({
      level: "info",
      format: "json",
      write: (text) => writes.push(text),
      batchMs,
    });
    const lines = () => writes.join("").split("\n").filter(Boolean);
    return { logger, writes, lines };
  }

  test("holds lines, then writes them in order in one piece", () => {
    const { logger, writes, lines } = batching();
    logger.info("starting");
    logger.request("id-1", "GET", "/api/health", 200, 0.123456);
    logger.child({ component: "x" }).warn("child line");
    logger.request("id-2", "POST", '/api/x"y', 413, 2);
    expect(writes).toEqual([]);
    logger.flush();
    expect(writes).toHaveLength(1);
    const parsed = lines().map((line) => JSON.parse(line));
    expect(parsed.map((line) => line.msg)).toEqual(["starting", "request", "child line", "request"]);
    expect(parsed[1]).toMatchObject({
      level: "info",
      requestId: "id-1",
      method: "GET",
      status: 200,
      ms: 0.12,
    });
    expect(parsed[3]).toMatchObject({
      requestId: "id-2",
      method: "POST",
      path: '/api/x"y',
      status: 413,
      ms: 2,
    });
    expect(new Date(parsed[1].time).toISOString()).toBe(parsed[1].time);
    logger.flush();
    expect(writes).toHaveLength(1);
  });

  test("each request line in a batch keeps the time it was logged at", () => {
    const { logger, lines } = batching();
    const times = ["2026-11-22T08:00:00.001Z", "2026-11-22T08:00:00.001Z", "2026-11-22T08:00:07.250Z"];
    try {
      for (const [i, time] of times.entries()) {
        setSystemTime(new Date(time));
        logger.request(`id-${i}`, "GET", "/api/health", 200, 1);
      }
    } finally {
      setSystemTime();
    }
    logger.flush();
    expect(lines().map((line) => JSON.parse(line).time)).toEqual(times);
  });

  test("a request line reads the same batched or not", () => {
    const batched = batching();
    batched.logger.request("id-1", "GET", "/api/health", 200, 0.123456);
    batched.logger.flush();
    const direct = capture("json");
    direct.logger.request("id-1", "GET", "/api/health", 200, 0.123456);
    const strip = (line: string | undefined) => ({ ...JSON.parse(line ?? "{}"), time: 0 });
    expect(strip(batched.lines()[0])).toEqual(strip(direct.lines[0]));
    expect(batched.writes[0]?.endsWith("}\n")).toBe(true);
  });

  test("writes by itself after batchMs", async () => {
    const { logger, writes, lines } = batching(5);
    logger.request("id-1", "GET", "/api/health", 200, 1);
    await Bun.sleep(30);
    expect(writes).toHaveLength(1);
    logger.info("later");
    await Bun.sleep(30);
    expect(lines().map((line) => JSON.parse(line).msg)).toEqual(["request", "later"]);
  });

  test("a full batch is written at once, and nothing is lost", () => {
    const { logger, writes, lines } = batching(60_000);
    for (let i = 0; i < 5000; i++) logger.request(`id-${i}`, "GET", "/api/health", 200, 1);
    expect(writes).toHaveLength(1);
    logger.flush();
    const ids = lines().map((line) => JSON.parse(line).requestId);
    expect(ids).toHaveLength(5000);
    expect(ids[0]).toBe("id-0");
    expect(ids[4999]).toBe("id-4999");
  });
});
