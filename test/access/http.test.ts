import { describe, expect, test } from "bun:test";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AuthMode } from "../../src/access/keys.ts";
import { runKeysCommand } from "../../src/cli/keys.ts";
import { createTestApp, type TestApp } from "../helpers/app.ts";
import type { ErrorBody } from "../helpers/errors.ts";
import { fastTimeouts, pluginsDirWith } from "../helpers/plugins.ts";

// app.request has no socket: its caller is this process, which counts as a loopback peer. Under
// `keys` it is trusted; `keys-everywhere` asks it for a key like anyone. The network tests
// (test/e2e/access-peer.test.ts) cover a real peer on another address.

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

function withKeys(mode: AuthMode = "keys-everywhere", options: Parameters<typeof createTestApp>[0] = {}) {
  const t = createTestApp({ auth: mode, ...options });
  const admin = t.access.createKey("root", "admin").key;
  const dictate = t.access.createKey("phone", "dictate").key;
  return { t, admin, dictate };
}

const code = async (res: Response) => ((await res.json()) as ErrorBody).error.code;

function sessionOf(res: Response): string {
  const cookie = res.headers.get("set-cookie") ?? "";
  const token = /svc_session=([^;]*)/.exec(cookie)?.[1];
  if (!token) throw new Error(`no session cookie in ${cookie}`);
  return `svc_session=${token}`;
}

describe("SVC_AUTH off (the default)", () => {
  test("every route answers without a key, as SPEC.md §5 says", async () => {
    const t = createTestApp();
    expect((await t.request("/api/history")).status).toBe(200);
    expect((await t.request("/api/keys")).status).toBe(200);
    expect((await t.json("/api/settings/language", "PUT", { value: "de" })).status).toBe(200);
  });

  test("a wrong key is ignored, as before keys existed", async () => {
    const t = createTestApp();
    expect((await t.request("/api/history", { headers: bearer("svck_nonsense") })).status).toBe(200);
  });
});

describe("SVC_AUTH=keys", () => {
  test("this machine's unproxied requests need no key", async () => {
    const { t } = withKeys("keys");
    expect((await t.request("/api/keys")).status).toBe(200);
  });

  test("a request carrying Forwarded or X-Forwarded-For counts as remote", async () => {
    const { t, admin } = withKeys("keys");
    const proxied: Record<string, string>[] = [
      { "x-forwarded-for": "203.0.113.9" },
      { forwarded: "for=203.0.113.9" },
    ];
    for (const header of proxied) {
      const res = await t.request("/api/history", { headers: header });
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toStartWith("Bearer");
      const ok = await t.request("/api/history", { headers: { ...header, ...bearer(admin) } });
      expect(ok.status).toBe(200);
    }
  });
});

describe("SVC_AUTH=keys-everywhere", () => {
  test("without a key: 401 unauthorized with WWW-Authenticate: Bearer", async () => {
    const { t } = withKeys();
    const res = await t.request("/api/history");
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe('Bearer realm="svc"');
    expect(await code(res)).toBe("unauthorized");
  });

  test("the Bearer scheme is read in any case and with extra spaces; other schemes are refused", async () => {
    const { t, dictate } = withKeys();
    for (const authorization of [`bearer ${dictate}`, `Bearer   ${dictate}`, `BEARER ${dictate}  `]) {
      expect((await t.request("/api/history", { headers: { authorization } })).status).toBe(200);
    }
    for (const authorization of [`Basic ${dictate}`, `Bearer ${dictate}x`, `Bearer${dictate}`, "Bearer "]) {
      const res = await t.request("/api/history", { headers: { authorization } });
      expect(res.status).toBe(401);
      expect(await code(res)).toBe("unauthorized");
    }
  });

  test("GET /api/health and the login routes stay open", async () => {
    const { t } = withKeys();
    expect((await t.request("/api/health")).status).toBe(200);
    expect((await t.request("/api/auth/session")).status).toBe(200);
    expect((await t.json("/api/auth/login", "POST", { key: "svck_wrong" })).status).toBe(401);
  });

  test("a dictate key reads settings but may not change them: 403 forbidden_role", async () => {
    const { t, dictate } = withKeys();
    expect((await t.request("/api/settings/language", { headers: bearer(dictate) })).status).toBe(200);
    const res = await t.json("/api/settings/language", "PUT", { value: "de" }, bearer(dictate));
    expect(res.status).toBe(403);
    expect(await code(res)).toBe("forbidden_role");
  });

  test("an admin key reaches the admin routes", async () => {
    const { t, admin } = withKeys();
    expect((await t.json("/api/settings/language", "PUT", { value: "de" }, bearer(admin))).status).toBe(200);
    expect((await t.request("/api/keys", { headers: bearer(admin) })).status).toBe(200);
  });

  test("a key that differs in its last character from one already accepted is refused", async () => {
    const { t, dictate } = withKeys();
    expect((await t.request("/api/history", { headers: bearer(dictate) })).status).toBe(200);
    const last = dictate.at(-1) === "A" ? "B" : "A";
    const forged = `${dictate.slice(0, -1)}${last}`;
    expect((await t.request("/api/history", { headers: bearer(forged) })).status).toBe(401);
    expect((await t.request("/api/history", { headers: bearer(dictate) })).status).toBe(200);
  });

  test("a percent-encoded letter in a path is refused before the gate (400 non_canonical_path)", async () => {
    const { t, dictate } = withKeys();
    const res = await t.request("/api/%6Beys", { headers: bearer(dictate) });
    expect(res.status).toBe(400);
    expect(await code(res)).toBe("non_canonical_path");
  });

  test("/v1 refuses in OpenAI's error shape", async () => {
    const { t } = withKeys();
    const res = await t.request("/v1/models");
    expect(res.status).toBe(401);
    const body = (await res.json()) as { error: { type: string; code: string } };
    expect(body.error).toMatchObject({ type: "authentication_error", code: "unauthorized" });
  });

  test("past SVC_AUTH_MAX_FAILURES wrong keys the peer's wrong keys wait (429, Retry-After), whatever X-Forwarded-For claims; a right key still works", async () => {
    const { t, admin } = withKeys("keys", { authMaxFailures: 3 });
    const remote = (ip: string, key: string) =>
      t.request("/api/history", { headers: { "x-forwarded-for": ip, ...bearer(key) } });
    for (let i = 0; i < 3; i++) expect((await remote("203.0.113.1", "svck_wrong")).status).toBe(401);
    const slowed = await remote("203.0.113.1", "svck_wrong");
    expect(slowed.status).toBe(429);
    expect(Number(slowed.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await code(slowed)).toBe("too_many_attempts");
    // The peer's address counts, not what a header claims: another X-Forwarded-For does not escape.
    expect((await remote("203.0.113.2", "svck_wrong")).status).toBe(429);
    // The right key is checked before the throttle refuses: it works from the throttled peer.
    expect((await remote("203.0.113.1", admin)).status).toBe(200);
  });

  test("a refusal is logged with the address and the key's name, never the key", async () => {
    const { t, dictate } = withKeys();
    await t.json("/api/settings/language", "PUT", { value: "de" }, bearer(dictate));
    const refused = t.logs.find((line) => line.msg === "access refused" || line.message === "access refused");
    expect(refused).toMatchObject({ address: "local", key: "phone", code: "forbidden_role" });
    expect(JSON.stringify(t.logs)).not.toContain(dictate);
  });
});

describe("the console's session", () => {
  test("logging in with a key sets an HttpOnly SameSite=Strict cookie that works in its place", async () => {
    const { t, admin } = withKeys();
    const login = await t.json("/api/auth/login", "POST", { key: admin });
    expect(login.status).toBe(200);
    const cookie = login.headers.get("set-cookie") ?? "";
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Strict");
    expect(cookie).not.toContain(admin);
    const res = await t.request("/api/keys", { headers: { cookie: sessionOf(login) } });
    expect(res.status).toBe(200);
  });

  test("behind a TLS proxy the cookie is Secure", async () => {
    const { t, admin } = withKeys();
    const login = await t.json("/api/auth/login", "POST", { key: admin }, { "x-forwarded-proto": "https" });
    expect(login.headers.get("set-cookie")).toContain("; Secure");
    const plain = await t.json("/api/auth/login", "POST", { key: admin });
    expect(plain.headers.get("set-cookie")).not.toContain("Secure");
  });

  test("logout ends the session", async () => {
    const { t, admin } = withKeys();
    const session = sessionOf(await t.json("/api/auth/login", "POST", { key: admin }));
    expect(
      (await t.request("/api/auth/logout", { method: "POST", headers: { cookie: session } })).status,
    ).toBe(204);
    expect((await t.request("/api/keys", { headers: { cookie: session } })).status).toBe(401);
  });

  test("revoking a key ends its sessions at once", async () => {
    const { t, admin, dictate } = withKeys();
    const session = sessionOf(await t.json("/api/auth/login", "POST", { key: dictate }));
    expect((await t.request("/api/history", { headers: { cookie: session } })).status).toBe(200);
    expect((await t.request("/api/keys/phone", { method: "DELETE", headers: bearer(admin) })).status).toBe(
      204,
    );
    expect((await t.request("/api/history", { headers: { cookie: session } })).status).toBe(401);
    expect((await t.request("/api/history", { headers: bearer(dictate) })).status).toBe(401);
  });

  test("a one-time code logs in once", async () => {
    const t = createTestApp({ auth: "keys-everywhere" });
    const first = t.access.firstRun();
    if (!first) throw new Error("firstRun made nothing");
    const once = await t.json("/api/auth/login", "POST", { code: first.code });
    expect(once.status).toBe(200);
    expect(await once.json()).toEqual({ name: "admin", role: "admin", check: expect.any(String) });
    expect((await t.json("/api/auth/login", "POST", { code: first.code })).status).toBe(401);
    expect(t.access.firstRun()).toBeNull();
  });

  test("sessions survive a restart", async () => {
    const dbPath = join(tmpdir(), `svc-access-${crypto.randomUUID()}.db`);
    const first = createTestApp({ auth: "keys-everywhere", dbPath });
    const admin = first.access.createKey("root", "admin").key;
    const session = sessionOf(await first.json("/api/auth/login", "POST", { key: admin }));
    first.db.close();
    const second = createTestApp({ auth: "keys-everywhere", dbPath });
    expect((await second.request("/api/keys", { headers: { cookie: session } })).status).toBe(200);
  });
});

describe("keys over the API", () => {
  test("POST /api/keys shows the key once; GET lists names and roles, never a key", async () => {
    const t = createTestApp();
    const made = await t.json("/api/keys", "POST", { name: "laptop", role: "dictate" });
    expect(made.status).toBe(201);
    const { key } = (await made.json()) as { key: string };
    expect(key).toMatch(/^svck_[0-9a-f]{12}[A-Za-z0-9_-]{43}$/);
    const listed = await (await t.request("/api/keys")).text();
    expect(listed).toContain("laptop");
    expect(listed).not.toContain(key);
    expect((await t.json("/api/keys", "POST", { name: "laptop", role: "dictate" })).status).toBe(409);
  });

  test("the last admin key cannot be revoked while keys are required", async () => {
    const { t, admin } = withKeys();
    const res = await t.request("/api/keys/root", { method: "DELETE", headers: bearer(admin) });
    expect(res.status).toBe(409);
    expect(await code(res)).toBe("last_admin_key");
  });
});

describe("PUT /api/access", () => {
  test("turning keys on stores the mode, answers the first admin key once and logs the client in", async () => {
    const t = createTestApp();
    const res = await t.json("/api/access", "PUT", { mode: "keys-everywhere" });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { mode: string; key: string; keyName: string };
    expect(body).toMatchObject({ mode: "keys-everywhere", keyName: "admin" });
    expect(t.access.mode()).toBe("keys-everywhere");
    const session = sessionOf(res);
    expect((await t.request("/api/keys", { headers: { cookie: session } })).status).toBe(200);
    expect((await t.request("/api/keys")).status).toBe(401);
    expect((await t.request("/api/keys", { headers: bearer(body.key) })).status).toBe(200);
  });

  test("only an admin turns keys off", async () => {
    const t = createTestApp();
    const { key } = (await (await t.json("/api/access", "PUT", { mode: "keys-everywhere" })).json()) as {
      key: string;
    };
    const dictate = t.access.createKey("phone", "dictate").key;
    expect((await t.json("/api/access", "PUT", { mode: "off" }, bearer(dictate))).status).toBe(403);
    expect((await t.json("/api/access", "PUT", { mode: "off" })).status).toBe(401);
    expect((await t.json("/api/access", "PUT", { mode: "off" }, bearer(key))).status).toBe(200);
    expect((await t.request("/api/keys")).status).toBe(200);
  });

  test("SVC_AUTH decides: the stored choice cannot change it (409 access_locked)", async () => {
    const { t, admin } = withKeys();
    const res = await t.json("/api/access", "PUT", { mode: "off" }, bearer(admin));
    expect(res.status).toBe(409);
    expect(await code(res)).toBe("access_locked");
    const session = (await (await t.request("/api/auth/session", { headers: bearer(admin) })).json()) as {
      modeSource: string;
    };
    expect(session.modeSource).toBe("env");
  });
});

describe("history and keys", () => {
  const record = (t: TestApp, text: string, keyName: string | null) =>
    t.services.history.record({
      rawText: text,
      finalText: text,
      engine: "whisper",
      audioDurationMs: 1000,
      processingMs: 10,
      keyName,
    });

  test("a dictate key sees, counts and deletes only its own; an admin sees all and filters by key", async () => {
    const { t, admin, dictate } = withKeys();
    const mine = record(t, "mine", "phone");
    const theirs = record(t, "theirs", "root");
    record(t, "local", null);
    const own = (await (await t.request("/api/history", { headers: bearer(dictate) })).json()) as {
      items: { finalText: string; keyName: string }[];
    };
    expect(own.items.map((item) => item.finalText)).toEqual(["mine"]);
    expect(own.items[0]?.keyName).toBe("phone");
    expect((await t.request(`/api/history/${theirs}`, { headers: bearer(dictate) })).status).toBe(404);
    expect((await t.request(`/api/history/${mine}`, { headers: bearer(dictate) })).status).toBe(200);
    const stats = (await (await t.request("/api/history/stats", { headers: bearer(dictate) })).json()) as {
      sessions: number;
    };
    expect(stats.sessions).toBe(1);
    const all = (await (await t.request("/api/history", { headers: bearer(admin) })).json()) as {
      total: number;
    };
    expect(all.total).toBe(3);
    const filtered = (await (
      await t.request("/api/history?key=root", { headers: bearer(admin) })
    ).json()) as {
      items: { finalText: string }[];
    };
    expect(filtered.items.map((item) => item.finalText)).toEqual(["theirs"]);
    const cleared = await t.request("/api/history", { method: "DELETE", headers: bearer(dictate) });
    expect(await cleared.json()).toEqual({ deleted: 1 });
    const left = (await (await t.request("/api/history", { headers: bearer(admin) })).json()) as {
      total: number;
    };
    expect(left.total).toBe(2);
  });
});

describe("a plugin's routes", () => {
  test("are admin-only unless its manifest's svc.dictateRoutes marks them for dictate keys", async () => {
    const t = createTestApp({
      auth: "keys-everywhere",
      pluginsDir: pluginsDirWith("fx-dictate-routes"),
      pluginHost: { timeouts: fastTimeouts },
    });
    t.services.settings.set("plugins", ["@fx/dictate-routes"]);
    await t.plugins.start();
    const admin = t.access.createKey("root", "admin").key;
    const dictate = t.access.createKey("phone", "dictate").key;
    const get = (path: string, key?: string) =>
      t.request(`/api/plugins/fx-dictate-routes${path}`, { headers: key ? bearer(key) : {} });
    expect((await get("/ping")).status).toBe(401);
    expect((await get("/ping", dictate)).status).toBe(200);
    expect((await get("/secret", dictate)).status).toBe(403);
    expect((await get("/secret", admin)).status).toBe(200);
  });

  test("get neither the caller's key nor its session cookie or check; other cookies pass", async () => {
    const t = createTestApp({
      auth: "keys-everywhere",
      pluginsDir: pluginsDirWith("fx-dictate-routes"),
      pluginHost: { timeouts: fastTimeouts },
    });
    t.services.settings.set("plugins", ["@fx/dictate-routes"]);
    await t.plugins.start();
    const admin = t.access.createKey("root", "admin").key;
    const seen = await t.request("/api/plugins/fx-dictate-routes/headers", {
      method: "POST",
      headers: {
        ...bearer(admin),
        cookie: "svc_session=abc; theme=dark; __Host-svc_session=def",
        "x-svc-session-check": "xyz",
      },
    });
    expect(seen.status).toBe(200);
    expect(await seen.json()).toEqual({ authorization: null, cookie: "theme=dark", check: null });
  });
});

describe("a base URL's user name and password", () => {
  test("are write-only: shown as ***, kept when the shown value is saved back", async () => {
    const t = createTestApp();
    const put = await t.json("/api/settings/llm_base_url", "PUT", {
      value: "https://user:s3cret@llm.lan/v1",
    });
    expect(await put.text()).not.toContain("s3cret");
    const shown = ((await (await t.request("/api/settings/llm_base_url")).json()) as { value: string }).value;
    expect(shown).toBe("https://***@llm.lan/v1");
    expect(await (await t.request("/api/settings")).text()).not.toContain("s3cret");
    await t.json("/api/settings/llm_base_url", "PUT", { value: "https://***@llm.lan/v2" });
    expect(t.services.settings.get("llm_base_url")).toBe("https://user:s3cret@llm.lan/v2");
    // Another origin never inherits them.
    await t.json("/api/settings/llm_base_url", "PUT", { value: "https://***@elsewhere.example/v1" });
    expect(t.services.settings.get("llm_base_url")).not.toContain("s3cret");
  });
});

describe("a key made beside the running server", () => {
  test("works at once: svc keys create writes through another connection", async () => {
    const dbPath = join(tmpdir(), `svc-access-${crypto.randomUUID()}.db`);
    const t = createTestApp({ auth: "keys-everywhere", dbPath });
    expect((await t.request("/api/history")).status).toBe(401);
    let key = "";
    const quiet = { write: () => true };
    runKeysCommand(["create", "--name", "laptop", "--role", "dictate"], dbPath, {
      stdout: { write: (text: string) => (key += text) },
      stderr: quiet,
    });
    expect((await t.request("/api/history", { headers: bearer(key.trim()) })).status).toBe(200);
  });
});

describe("a revoked key", () => {
  test("is refused on its next request, though it was the key used last", async () => {
    const { t, dictate } = withKeys();
    for (let i = 0; i < 3; i++)
      expect((await t.request("/api/history", { headers: bearer(dictate) })).status).toBe(200);
    // Revoked with no other key used in between (as the API's DELETE would be, by an admin key).
    expect(t.access.revokeKey("phone")).toBe(true);
    const res = await t.request("/api/history", { headers: bearer(dictate) });
    expect(res.status).toBe(401);
    expect(await code(res)).toBe("unauthorized");
  });

  test("by svc keys revoke beside the running server, is refused within the cache's second", async () => {
    const dbPath = join(tmpdir(), `svc-access-${crypto.randomUUID()}.db`);
    const t = createTestApp({ auth: "keys-everywhere", dbPath });
    const { key } = t.access.createKey("laptop", "dictate");
    expect((await t.request("/api/history", { headers: bearer(key) })).status).toBe(200);
    const quiet = { write: () => true };
    runKeysCommand(["revoke", "laptop"], dbPath, { stdout: quiet, stderr: quiet });
    await Bun.sleep(1100);
    expect((await t.request("/api/history", { headers: bearer(key) })).status).toBe(401);
  });
});
