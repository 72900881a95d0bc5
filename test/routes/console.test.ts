import { describe, expect, test } from "bun:test";
import { gunzipSync } from "node:zlib";
import { createTestApp } from "../helpers/app.ts";

const t = createTestApp();

async function documentAssets(): Promise<string[]> {
  const html = await (await t.request("/")).text();
  return [...html.matchAll(/(?:href|src|data-worklet)="(\/assets\/[^"]+)"/g)].map((match) => match[1] ?? "");
}

describe("the console document", () => {
  test.each(["/", "/history", "/settings", "/plugins", "/plugins/svc-profanity-filter/words"])(
    "GET %s answers the console with its policy, never cached",
    async (path) => {
      const res = await t.request(path);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toStartWith("text/html");
      expect(res.headers.get("cache-control")).toBe("no-cache");
      const csp = res.headers.get("content-security-policy") ?? "";
      for (const directive of [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "frame-ancestors 'none'",
        "frame-src http://localhost/api/plugins/",
      ])
        expect(csp).toContain(directive);
      expect(csp).not.toContain("unsafe-inline");
      const html = await res.text();
      expect(html).toContain('<div id="app"');
      // No inline script or style: everything comes from hashed files.
      expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
      expect(html).not.toMatch(/<style|style="/);
    },
  );

  test.each(["/nope", "/history/1", "/plugins/UPPER/page", "/plugins/a/b/c", "/assets"])(
    "GET %s is not a console path: 404 in the API's envelope",
    async (path) => {
      const res = await t.request(path);
      expect(res.status).toBe(404);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("not_found");
    },
  );

  test("asks the browser to fetch the first screen's files early (Link preload)", async () => {
    const res = await t.request("/");
    const [, css, script] = await documentAssets();
    expect(res.headers.get("link")).toBe(`<${css}>; rel=preload; as=style, <${script}>; rel=modulepreload`);
  });

  test("names frames from the host the page was asked for", async () => {
    const res = await t.request("http://127.0.0.1:4649/", { headers: { host: "127.0.0.1:4649" } });
    expect(res.headers.get("content-security-policy")).toContain(
      "frame-src http://127.0.0.1:4649/api/plugins/",
    );
  });

  test("the Host guard applies: a rebound name gets 403", async () => {
    const res = await t.request("http://evil.example/", { headers: { host: "evil.example" } });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("untrusted_host");
  });
});

describe("GET /assets/<name>.<hash>.<ext>", () => {
  test("serves every file the document names, cached for a year", async () => {
    const urls = await documentAssets();
    expect(urls.map((url) => url.replace(/\.[0-9a-f]{12}\./, ".*."))).toEqual([
      "/assets/icon.*.svg",
      "/assets/app.*.css",
      "/assets/app.*.js",
      "/assets/worklet.*.js",
    ]);
    for (const url of urls) {
      const res = await t.request(url);
      expect(res.status).toBe(200);
      expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
      const hash = /\.([0-9a-f]{12})\./.exec(url)?.[1];
      const body = new Uint8Array(await res.arrayBuffer());
      expect(new Bun.CryptoHasher("sha256").update(body).digest("hex").slice(0, 12)).toBe(hash ?? "");
    }
  });

  test("sends gzip to clients that accept it, the same bytes unpacked", async () => {
    const [, , script] = await documentAssets();
    const plain = new Uint8Array(await (await t.request(script ?? "")).arrayBuffer());
    const res = await t.request(script ?? "", { headers: { "accept-encoding": "gzip, br" } });
    expect(res.headers.get("content-encoding")).toBe("gzip");
    expect(res.headers.get("vary")).toBe("Accept-Encoding");
    // app.request hands back the encoded body as sent.
    expect(Buffer.from(gunzipSync(new Uint8Array(await res.arrayBuffer())))).toEqual(Buffer.from(plain));
  });

  test("an unknown or stale hash is 404", async () => {
    const [, , script] = await documentAssets();
    const stale = (script ?? "").replace(/\.[0-9a-f]{12}\./, ".000000000000.");
    expect((await t.request(stale)).status).toBe(404);
    expect((await t.request("/assets/app.js")).status).toBe(404);
  });
});

describe("an address that is no page", () => {
  test("a browser gets a 404 page with a way back; an API client gets JSON", async () => {
    const t = createTestApp();
    const browser = await t.request("/setings", {
      headers: { accept: "text/html,application/xhtml+xml,*/*;q=0.8" },
    });
    expect(browser.status).toBe(404);
    expect(browser.headers.get("content-type")).toStartWith("text/html");
    const page = await browser.text();
    expect(page).toContain('<a href="/">');
    expect(page).not.toContain("<script");
    const client = await t.request("/setings");
    expect(client.status).toBe(404);
    expect(((await client.json()) as { error: { code: string } }).error.code).toBe("not_found");
    // Under /api a browser still gets the API's answer.
    expect(
      (await t.request("/api/nope", { headers: { accept: "text/html" } })).headers.get("content-type"),
    ).toStartWith("application/json");
  });
});
