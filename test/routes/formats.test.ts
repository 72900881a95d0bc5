import { describe, expect, test } from "bun:test";
import { builtinFormats } from "../../src/formats/builtins.ts";
import type { Format } from "../../src/formats/types.ts";
import { createTestApp, type TestApp } from "../helpers/app.ts";
import { errorOf } from "../helpers/errors.ts";

type Page = { items: Format[]; total: number; limit: number; offset: number };
type Match = { format: Format | null; context: unknown };

const create = async (t: TestApp, body: Record<string, unknown>) => {
  const res = await t.json("/api/formats", "POST", { label: "Mine", appPattern: "slack", ...body });
  expect(res.status).toBe(201);
  return (await res.json()) as Format;
};
const match = async (t: TestApp, context?: string, query = "") => {
  const headers: Record<string, string> = context === undefined ? {} : { "x-app-context": context };
  const res = await t.request(`/api/formats/match${query}`, { headers });
  expect(res.status).toBe(200);
  return (await res.json()) as Match;
};
const builtin = async (t: TestApp, key: string) => {
  const page = (await (await t.request("/api/formats?limit=100")).json()) as Page;
  const found = page.items.find((format) => format.builtinKey === key);
  if (!found) throw new Error(`built-in ${key} missing`);
  return found;
};

describe("GET /api/formats", () => {
  test("lists the seeded built-ins with camelCase fields and full style", async () => {
    const t = createTestApp();
    const page = (await (await t.request("/api/formats?limit=100")).json()) as Page;
    expect(page.total).toBe(builtinFormats.length);
    const terminal = page.items.find((format) => format.builtinKey === "terminal");
    expect(terminal).toMatchObject({
      label: "Terminal",
      isBuiltin: true,
      enabled: true,
      style: { capitalize: false, spokenPunctuation: false, removeFillers: true, endPunctuation: "strip" },
    });
    expect(Object.keys(terminal ?? {})).toEqual(
      expect.arrayContaining(["appPattern", "instructions", "priority", "createdAt", "updatedAt"]),
    );
  });

  test("searches label, pattern and instructions literally, and pages", async () => {
    const t = createTestApp();
    await create(t, { label: "100% focus", appPattern: "focus_app" });
    const search = async (q: string) =>
      ((await (await t.request(`/api/formats?search=${q}`)).json()) as Page).items.map((f) => f.label);
    expect(await search("100%25")).toEqual(["100% focus"]);
    expect(await search("s_a")).toEqual(["100% focus"]);
    expect(await search("iterm2")).toEqual(["Terminal"]);
    const past = (await (await t.request("/api/formats?offset=500")).json()) as Page;
    expect(past.items).toEqual([]);
    expect((await t.request("/api/formats?limit=0")).status).toBe(400);
    expect((await t.request("/api/formats?limit=501")).status).toBe(400);
  });
});

describe("POST /api/formats", () => {
  test("creates a user format with defaults filled in", async () => {
    const t = createTestApp();
    const format = await create(t, { appPattern: "  slack | url:app.slack.com " });
    expect(format).toMatchObject({
      label: "Mine",
      appPattern: "slack | url:app.slack.com",
      instructions: "",
      enabled: true,
      priority: 0,
      isBuiltin: false,
      builtinKey: null,
      style: { capitalize: true, spokenPunctuation: true, removeFillers: true, endPunctuation: "keep" },
    });
    expect(t.events).toEqual([
      expect.objectContaining({ type: "formats.changed", action: "created", id: format.id }),
    ]);
  });

  test.each([
    ["a blank label", { label: " " }, "label"],
    ["an empty pattern", { appPattern: " | " }, "appPattern"],
    ["a url: entry without a host", { appPattern: "url:" }, "appPattern"],
    ["a fractional priority", { priority: 1.5 }, "priority"],
    ["a priority out of range", { priority: 5000 }, "priority"],
    ["an unknown style option", { style: { shout: true } }, "style.shout"],
    ["a bad endPunctuation", { style: { endPunctuation: "always" } }, "style.endPunctuation"],
    ["enabled as a string", { enabled: "yes" }, "enabled"],
    ["an unknown field", { regex: ".*" }, "regex"],
  ])("returns 400 for %s", async (_, body, field) => {
    const res = await createTestApp().json("/api/formats", "POST", { label: "L", appPattern: "a", ...body });
    expect(res.status).toBe(400);
    const error = await errorOf(res);
    expect((error.details as { path: string }[]).map((issue) => issue.path)).toContain(field);
  });
});

describe("/api/formats/:id", () => {
  test("PATCH changes a built-in, merging style options one by one", async () => {
    const t = createTestApp();
    const email = await builtin(t, "email");
    const res = await t.json(`/api/formats/${email.id}`, "PATCH", {
      style: { capitalize: false },
      priority: 3,
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      id: email.id,
      label: "Email",
      priority: 3,
      isBuiltin: true,
      style: { ...email.style, capitalize: false },
    });
    expect(t.events.at(-1)).toMatchObject({ type: "formats.changed", action: "updated", id: email.id });
  });

  test("DELETE removes a user format but refuses a built-in with 409", async () => {
    const t = createTestApp();
    const mine = await create(t, {});
    expect((await t.request(`/api/formats/${mine.id}`, { method: "DELETE" })).status).toBe(204);
    expect(t.events.at(-1)).toMatchObject({ action: "deleted", id: mine.id });
    const email = await builtin(t, "email");
    const res = await t.request(`/api/formats/${email.id}`, { method: "DELETE" });
    expect(res.status).toBe(409);
    expect((await errorOf(res)).code).toBe("builtin_format");
    expect((await t.request(`/api/formats/${email.id}`)).status).toBe(200);
  });

  test("404 for unknown ids and 400 for malformed ones and empty patches", async () => {
    const t = createTestApp();
    expect((await t.request("/api/formats/9999")).status).toBe(404);
    expect((await t.json("/api/formats/9999", "PATCH", { label: "x" })).status).toBe(404);
    expect((await t.request("/api/formats/9999", { method: "DELETE" })).status).toBe(404);
    expect((await t.request("/api/formats/0")).status).toBe(400);
    expect((await t.json("/api/formats/1", "PATCH", {})).status).toBe(400);
    expect((await t.json("/api/formats/1", "PATCH", { appPattern: "url:" })).status).toBe(400);
  });
});

describe("GET /api/formats/match", () => {
  test("reads a JSON context, a bare app name, a percent-encoded one, or query parameters", async () => {
    const t = createTestApp();
    const json = await match(t, JSON.stringify({ app: "Google Chrome", url: "https://chatgpt.com/c/1" }));
    expect(json.format?.builtinKey).toBe("ai-chat");
    expect(json.context).toEqual({ app: "Google Chrome", url: "https://chatgpt.com/c/1" });
    expect((await match(t, "iTerm2")).format?.builtinKey).toBe("terminal");
    expect((await match(t, encodeURIComponent('{"app":"Slack","title":"général"}'))).format?.label).toBe(
      "Team chat",
    );
    expect((await match(t, undefined, "?app=Slack")).format?.builtinKey).toBe("team-chat");
  });

  test("answers null without a context or without a match", async () => {
    const t = createTestApp();
    expect(await match(t)).toEqual({ format: null, context: null });
    expect((await match(t, "Calculator")).format).toBeNull();
  });

  test("a user format beats the built-in; disabling it brings the built-in back", async () => {
    const t = createTestApp();
    const mine = await create(t, {
      label: "Work Slack",
      appPattern: "slack",
      style: { endPunctuation: "add" },
    });
    expect((await match(t, "Slack")).format).toMatchObject({ id: mine.id, style: { endPunctuation: "add" } });
    await t.json(`/api/formats/${mine.id}`, "PATCH", { enabled: false });
    expect((await match(t, "Slack")).format?.builtinKey).toBe("team-chat");
  });

  test("a disabled built-in never matches", async () => {
    const t = createTestApp();
    const terminal = await builtin(t, "terminal");
    await t.json(`/api/formats/${terminal.id}`, "PATCH", { enabled: false });
    expect((await match(t, "iTerm2")).format).toBeNull();
  });

  test("malformed JSON context is 400 invalid_app_context", async () => {
    const res = await createTestApp().request("/api/formats/match", {
      headers: { "x-app-context": '{"app":' },
    });
    expect(res.status).toBe(400);
    expect((await errorOf(res)).code).toBe("invalid_app_context");
  });
});

describe("POST /api/formats/reset", () => {
  test("restores edited and disabled built-ins and keeps the user's formats", async () => {
    const t = createTestApp();
    const terminal = await builtin(t, "terminal");
    await t.json(`/api/formats/${terminal.id}`, "PATCH", {
      enabled: false,
      label: "Shell",
      style: { capitalize: true },
    });
    const mine = await create(t, {});
    const res = await t.request("/api/formats/reset", { method: "POST" });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ restored: builtinFormats.length });
    const restored = await builtin(t, "terminal");
    expect(restored).toMatchObject({
      id: terminal.id,
      label: "Terminal",
      enabled: true,
      style: terminal.style,
    });
    expect((await t.request(`/api/formats/${mine.id}`)).status).toBe(200);
    expect((await match(t, "iTerm2")).format?.id).toBe(terminal.id);
    expect(t.events.at(-1)).toMatchObject({ type: "formats.changed", action: "reset" });
  });
});

describe("format limits", () => {
  test("creating past 500 formats is 413 limit_exceeded", async () => {
    const t = createTestApp();
    const style = {
      capitalize: true,
      spokenPunctuation: true,
      removeFillers: true,
      endPunctuation: "keep" as const,
    };
    const extra = 500 - builtinFormats.length;
    const items = Array.from({ length: extra }, (_, i) => ({
      label: `F${i}`,
      appPattern: `app${i}`,
      instructions: "",
      enabled: true,
      priority: 0,
      style,
    }));
    t.services.formats.importAll(items);
    const res = await t.json("/api/formats", "POST", { label: "One more", appPattern: "x" });
    expect(res.status).toBe(413);
    expect((await errorOf(res)).code).toBe("limit_exceeded");
    expect(() =>
      t.services.formats.importAll(
        [{ label: "Z", appPattern: "z", instructions: "", enabled: true, priority: 0, style }],
        {
          maxEntries: 500,
        },
      ),
    ).toThrow("the limit is 500");
  });
});
