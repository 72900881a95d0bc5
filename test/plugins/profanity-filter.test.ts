import { describe, expect, test } from "bun:test";
import { cpSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { compileMatcher, matchCase } from "../../plugins/profanity-filter/src/matcher.ts";
import { runPluginHooks, startPluginApp } from "../helpers/plugins.ts";

const pluginDir = resolve(import.meta.dir, "../../plugins/profanity-filter");
const route = "/api/plugins/svc-profanity-filter/replacements";

function filterApp(options: { preserveCase?: boolean; dbPath?: string; pluginsDir?: string } = {}) {
  const pluginsDir = options.pluginsDir ?? mkdtempSync(join(tmpdir(), "svc-plugins-"));
  cpSync(pluginDir, join(pluginsDir, "svc-profanity-filter"), { recursive: true });
  const entry =
    options.preserveCase === undefined
      ? "@svc/profanity-filter"
      : (["@svc/profanity-filter", { preserveCase: options.preserveCase }] as const);
  return startPluginApp({ pluginsDir, entries: [entry], dbPath: options.dbPath });
}

const matcher = compileMatcher(
  new Map([
    ["damn", ["darn", "dang"]],
    ["damn it", ["darn it"]],
    ["ass", ["butt"]],
    ["straße", ["weg"]],
  ]),
);

describe("the profanity matcher", () => {
  test("replaces whole words only, phrases before their words, each in turn", () => {
    expect(matcher.apply("damn, damn it, damn, class", { preserveCase: false })).toBe(
      "darn, darn it, dang, class",
    );
  });

  test("matches phrases across any whitespace and never replaces a replacement", () => {
    const chain = compileMatcher(
      new Map([
        ["a b", ["c"]],
        ["c", ["d"]],
      ]),
    );
    expect(chain.apply("a \n b", { preserveCase: false })).toBe("c");
  });

  test("word boundaries are Unicode letters, not ASCII", () => {
    expect(matcher.apply("die Straße und Straßenbahn", { preserveCase: true })).toBe(
      "die Weg und Straßenbahn",
    );
  });

  test.each([
    ["DAMN", "darn", "DARN"],
    ["Damn", "darn", "Darn"],
    ["damn", "Darn it", "Darn it"],
    ["Damn It", "darn it", "Darn it"],
  ])("preserveCase mirrors %s onto %s → %s", (matched, replacement, expected) => {
    expect(matchCase(matched, replacement)).toBe(expected);
  });
});

describe("@svc/profanity-filter", () => {
  test("seeds the default list into storage and filters dictated text", async () => {
    const app = await filterApp();
    expect(await runPluginHooks(app, "Oh shit, what the fuck")).toBe("Oh shoot, what the heck");
    const stored = app.db
      .query("SELECT value FROM plugin_storage WHERE plugin = ? AND key = 'replacements'")
      .get("@svc/profanity-filter") as { value: string };
    expect(JSON.parse(stored.value).shit).toEqual(["shoot", "crap"]);
  });

  test("preserveCase: false inserts the alternative as stored", async () => {
    const app = await filterApp({ preserveCase: false });
    expect(await runPluginHooks(app, "SHIT")).toBe("shoot");
  });

  test("GET lists the words; POST adds one (409 when it exists); PUT updates; DELETE removes", async () => {
    const app = await filterApp();
    const list = (await (await app.request(route)).json()) as { preserveCase: boolean; count: number };
    expect(list.preserveCase).toBe(true);
    expect(list.count).toBeGreaterThan(20);

    const added = await app.json(route, "POST", { word: "  Heck ", alternatives: ["gosh", "golly"] });
    expect(added.status).toBe(201);
    expect(await added.json()).toEqual({ word: "heck", alternatives: ["gosh", "golly"] });
    expect((await app.json(route, "POST", { word: "heck", alternatives: ["x"] })).status).toBe(409);
    expect(await runPluginHooks(app, "heck heck heck")).toBe("gosh golly gosh");

    const updated = await app.json(route, "PUT", { word: "heck", alternatives: "gee, wow" });
    expect(await updated.json()).toEqual({ word: "heck", alternatives: ["gee", "wow"] });
    expect(await runPluginHooks(app, "Heck")).toBe("Gee");

    expect((await app.json(route, "DELETE", { word: "heck" })).status).toBe(200);
    expect((await app.json(route, "DELETE", { word: "heck" })).status).toBe(404);
    expect(await runPluginHooks(app, "heck")).toBe("heck");
  });

  test("a word storage refuses (413 list_too_large) is not kept: the live list equals the stored one", async () => {
    const app = await filterApp();
    const alternatives = Array.from({ length: 20 }, (_, i) => `${"x".repeat(95)}${i}`);
    let refused: string | undefined;
    // Long alternatives fill the plugin's storage value within a few hundred words.
    for (let i = 0; i < 2000 && refused === undefined; i++) {
      const word = `word${i}`;
      const res = await app.json(route, "POST", { word, alternatives });
      if (res.status === 413) {
        expect(((await res.json()) as { error: { code: string } }).error.code).toBe("list_too_large");
        refused = word;
      } else expect(res.status).toBe(201);
    }
    expect(refused).toBeDefined();
    const list = (await (await app.request(route)).json()) as { replacements: { word: string }[] };
    expect(list.replacements.some((entry) => entry.word === refused)).toBe(false);
    expect(await runPluginHooks(app, `${refused}`)).toBe(`${refused}`);
  });

  test.each([
    ["malformed JSON", "{", 400, "invalid_json"],
    ["no word", JSON.stringify({ alternatives: ["x"] }), 400, "invalid_request"],
    ["no alternatives", JSON.stringify({ word: "x", alternatives: [] }), 400, "invalid_request"],
  ])("POST with %s is a 400 envelope, never a 500", async (_what, body, status, code) => {
    const app = await filterApp();
    const res = await app.request(route, {
      method: "POST",
      body,
      headers: { "content-type": "application/json" },
    });
    expect(res.status).toBe(status);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe(code);
  });

  test("reset restores the defaults; the list survives a restart", async () => {
    const dbPath = join(mkdtempSync(join(tmpdir(), "svc-pf-")), "svc.db");
    const pluginsDir = mkdtempSync(join(tmpdir(), "svc-plugins-"));
    const first = await filterApp({ dbPath, pluginsDir });
    await first.json(route, "POST", { word: "blimey", alternatives: ["goodness"] });
    await first.plugins.stop();
    first.db.close();
    const second = await startPluginApp({ pluginsDir, dbPath });
    expect(await runPluginHooks(second, "blimey")).toBe("goodness");
    const reset = await second.request(`${route}/reset`, { method: "POST" });
    expect(reset.status).toBe(200);
    expect(await runPluginHooks(second, "blimey")).toBe("blimey");
    second.db.close();
  });

  test("serves its page sandboxed, and the page finds its routes from its own URL", async () => {
    const app = await filterApp();
    const status = await app.status("@svc/profanity-filter");
    expect(status?.pages[0]?.url).toBe("/api/plugins/svc-profanity-filter/ui/index.html");
    const res = await app.request("/api/plugins/svc-profanity-filter/ui/index.html");
    expect(res.headers.get("content-security-policy")).toStartWith("sandbox allow-scripts;");
    const html = await res.text();
    expect(html).toContain("window.svc");
    expect(html).not.toMatch(/\b(prompt|confirm|alert)\(/);
  });

  test("the committed dist/ is what the build script makes from src/", async () => {
    const outdir = mkdtempSync(join(tmpdir(), "svc-pf-build-"));
    const proc = Bun.spawn([process.execPath, join(pluginDir, "build.ts"), "--outdir", outdir], {
      stdout: "ignore",
    });
    expect(await proc.exited).toBe(0);
    for (const file of ["index.js", "ui/index.html"]) {
      expect(readFileSync(join(outdir, file), "utf8")).toBe(
        readFileSync(join(pluginDir, "dist", file), "utf8"),
      );
    }
  });
});
