import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAccessService } from "../../src/access/service.ts";
import { createAccessRepo } from "../../src/db/access-repo.ts";
import { openDatabase } from "../../src/db/database.ts";
import { runMigrations } from "../../src/db/migrate.ts";
import { migrations } from "../../src/db/migrations/index.ts";
import { lockDatabase } from "../../src/db/server-lock.ts";
import { encodeWav } from "../../src/dictation/audio/index.ts";
import { ensurePrivateDir } from "../../src/private-dir.ts";
import { connect, serveDictation } from "../helpers/dictate-server.ts";
import { goForward } from "../helpers/sphinx-testdata.ts";

// Issue 38's findings F3–F7, each as its acceptance says, against a real Bun.serve where the
// client's address matters: svc believes X-Forwarded-For only from SVC_TRUSTED_PROXIES (here the
// test itself, 127.0.0.1), so each request can come from an address of its choosing.

const work = mkdtempSync(join(tmpdir(), "svc-hardening-"));
const stops: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const stop of stops) await stop();
  rmSync(work, { recursive: true, force: true });
});

function serve(options: Parameters<typeof serveDictation>[0] = {}) {
  const served = serveDictation({ auth: "keys-everywhere", trustedProxies: "127.0.0.1", ...options });
  stops.push(served.stop);
  const base = `http://127.0.0.1:${served.port}`;
  const from = (address: string, path: string, init: RequestInit = {}) =>
    fetch(`${base}${path}`, {
      ...init,
      headers: { ...(init.headers as object), "x-forwarded-for": address },
    });
  const login = (address: string, body: object) =>
    from(address, "/api/auth/login", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  return { ...served, base, from, login };
}

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

describe("throttles that cannot lock the owner out (F3, F4)", () => {
  test("12 wrong codes from one address; the owner's key logs in from another address and from that one", async () => {
    const s = serve();
    const owner = s.app.access.createKey("owner", "admin").key;
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++)
      statuses.push((await s.login("198.51.100.7", { code: `wrong-code-${i}-xxxxxxxx` })).status);
    // Counted per client address: the first ten are wrong, the rest wait.
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(statuses.slice(10)).toEqual([429, 429]);
    // Another client (F3: all were one "local" address before) logs in; a code's refusal there is its own.
    expect((await s.login("203.0.113.20", { key: owner })).status).toBe(200);
    expect((await s.login("203.0.113.20", { code: "another-wrong-code-xx" })).status).toBe(401);
    // The throttled address itself: the right key is checked first.
    expect((await s.login("198.51.100.7", { key: owner })).status).toBe(200);
  });

  test("12 wrong keys from one address, then the right key from it: 200", async () => {
    const s = serve();
    const owner = s.app.access.createKey("owner", "admin").key;
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++)
      statuses.push(
        (await s.from("198.51.100.8", "/api/history", { headers: bearer(`svck_wrong${i}`) })).status,
      );
    expect(statuses.slice(10)).toEqual([429, 429]);
    expect((await s.from("198.51.100.8", "/api/history", { headers: bearer(owner) })).status).toBe(200);
    // Behind docs/install.md's proxies every client is 127.0.0.1: one host's guesses lock out no other.
    expect(
      (await s.from("198.51.100.9", "/api/history", { headers: bearer("svck_wrongagain") })).status,
    ).toBe(401);
  });

  test("guesses spread over one /24 or /64 count together, at four times an address's limit", async () => {
    const s = serve({ authMaxFailures: 2 });
    for (let i = 1; i <= 8; i++)
      expect((await s.from(`192.0.2.${i}`, "/api/history", { headers: bearer("svck_spread") })).status).toBe(
        401,
      );
    expect((await s.from("192.0.2.200", "/api/history", { headers: bearer("svck_spread") })).status).toBe(
      429,
    );
    expect((await s.from("192.0.3.1", "/api/history", { headers: bearer("svck_spread") })).status).toBe(401);
    for (let i = 1; i <= 8; i++)
      expect(
        (await s.from(`2001:db8:1:2::${i}`, "/api/history", { headers: bearer("svck_v6") })).status,
      ).toBe(401);
    expect((await s.from("2001:db8:1:2::ffff", "/api/history", { headers: bearer("svck_v6") })).status).toBe(
      429,
    );
  });

  test("a forwarded address is believed only from SVC_TRUSTED_PROXIES", async () => {
    const s = serve({ trustedProxies: "10.9.9.9", authMaxFailures: 2 });
    // The test's own 127.0.0.1 is not a trusted proxy here: every X-Forwarded-For is the one peer.
    for (let i = 0; i < 2; i++)
      await s.from(`198.51.100.${i + 1}`, "/api/history", { headers: bearer("svck_x") });
    expect((await s.from("198.51.100.99", "/api/history", { headers: bearer("svck_x") })).status).toBe(429);
  });
});

describe("session cookies a page on another port cannot use (F5)", () => {
  /** A console's login: its cookie and the check it keeps in page storage. */
  async function consoleLogin(s: ReturnType<typeof serve>, key: string) {
    const res = await s.login("127.0.0.1", { key });
    const answer = (await res.json()) as { check: string };
    const cookie = /svc_session=[^;]+/.exec(res.headers.get("set-cookie") ?? "")?.[0] ?? "";
    return { cookie, check: answer.check };
  }

  const dictate = (s: ReturnType<typeof serve>, headers: Record<string, string>) =>
    s.from("127.0.0.1", "/api/transcribe", {
      method: "POST",
      body: encodeWav(goForward()),
      headers: { "content-type": "audio/wav", ...headers },
    });

  test("a planted session never receives the victim's dictation", async () => {
    const s = serve();
    s.app.services.settings.set("stt_engine", "sphinx");
    s.app.access.createKey("owner", "admin");
    const victimKey = s.app.access.createKey("victim", "admin").key;
    const attackerKey = s.app.access.createKey("attacker", "dictate").key;
    const victim = await consoleLogin(s, victimKey);
    const attacker = await consoleLogin(s, attackerKey);
    expect(victim.cookie).toStartWith("svc_session=");
    // Shadowed: the planted cookie (Path=/api/transcribe) arrives first, the victim's beside it.
    const shadowed = await dictate(s, {
      cookie: `${attacker.cookie}; ${victim.cookie}`,
      "x-svc-session-check": victim.check,
    });
    expect(shadowed.status).toBe(401);
    // Overwritten (cookies ignore ports: the page set svc_session itself): the victim's check is not its.
    const overwritten = await dictate(s, { cookie: attacker.cookie, "x-svc-session-check": victim.check });
    expect(overwritten.status).toBe(401);
    // A state-changing request without the check is refused; the victim's own session works.
    expect((await dictate(s, { cookie: victim.cookie })).status).toBe(401);
    const own = await dictate(s, { cookie: victim.cookie, "x-svc-session-check": victim.check });
    expect(own.status).toBe(200);
    const history = s.app.db.query<{ key_name: string | null }, []>("SELECT key_name FROM history").all();
    expect(history).toEqual([{ key_name: "victim" }]);
    // And the live socket: the check rides on its URL; the planted session's socket is not opened.
    await expect(connect(s.url, { cookie: attacker.cookie }).opened).rejects.toThrow("websocket error");
    const live = connect(`${s.url}?session_check=${victim.check}`, { cookie: victim.cookie });
    await live.opened;
    live.ws.close();
  }, 30_000);

  test("under https the cookie is __Host-svc_session: Secure, Path=/, no Domain", async () => {
    const s = serve();
    const key = s.app.access.createKey("owner", "admin").key;
    const res = await s.from("127.0.0.1", "/api/auth/login", {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-proto": "https" },
      body: JSON.stringify({ key }),
    });
    const cookie = res.headers.get("set-cookie") ?? "";
    expect(cookie).toStartWith("__Host-svc_session=");
    expect(cookie).toContain("; Secure");
    expect(cookie).toContain("Path=/;");
    expect(cookie.toLowerCase()).not.toContain("domain=");
    const { check } = (await res.json()) as { check: string };
    const token = /__Host-svc_session=[^;]+/.exec(cookie)?.[0] ?? "";
    const put = await s.from("127.0.0.1", "/api/settings/language", {
      method: "PUT",
      headers: { cookie: token, "x-svc-session-check": check, "content-type": "application/json" },
      body: '{"value":"de"}',
    });
    expect(put.status).toBe(200);
  });
});

describe("session lifetimes and cap (F11)", () => {
  test("idle and absolute lifetimes end a session; past the cap per key the oldest ends", () => {
    const db = openDatabase(":memory:", { migrations });
    runMigrations(db, migrations);
    let clock = Date.parse("2026-01-01T00:00:00Z");
    const access = createAccessService({
      repo: createAccessRepo(db),
      envMode: "keys-everywhere",
      sessions: { idleMs: 10_000, maxMs: 60_000, perKey: 2 },
      now: () => clock,
    });
    const { info } = access.createKey("owner", "admin");
    const a = access.createSession(info.id);
    clock += 9_000;
    expect(access.sessionKey(a.token, a.check)?.name).toBe("owner");
    clock += 9_000; // used 9 s ago: still alive
    expect(access.sessionKey(a.token, a.check)?.name).toBe("owner");
    clock += 10_000; // unused for 10 s
    expect(access.sessionKey(a.token, a.check)).toBeNull();
    const b = access.createSession(info.id);
    for (let i = 0; i < 7; i++) {
      clock += 8_000;
      expect(access.sessionKey(b.token, b.check)).not.toBeNull();
    }
    clock += 5_000; // 61 s since it began, however busy
    expect(access.sessionKey(b.token, b.check)).toBeNull();
    const later = () => {
      clock += 1;
      return access.createSession(info.id);
    };
    const [c, d, e] = [later(), later(), later()];
    expect(access.sessionKey(c.token, c.check)).toBeNull();
    expect(access.sessionKey(d.token, d.check)).not.toBeNull();
    expect(access.sessionKey(e.token, e.check)).not.toBeNull();
    expect(access.sessionKey(e.token, "wrong")).toBeNull();
  });
});

describe("turning keys on (F6, F12)", () => {
  test("leaves the owner logged in, warns of admin keys made while off, ends what keys-off let anyone make", async () => {
    const s = serve({ auth: undefined });
    // While keys are off, a LAN host makes an admin key and a session for it.
    const lan = await s.from("127.0.0.1", "/api/keys", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"name":"lan-made","role":"admin"}',
    });
    expect(lan.status).toBe(201);
    const lanKey = ((await lan.json()) as { key: string }).key;
    const lanSession = await s.login("127.0.0.1", { key: lanKey });
    const lanCookie = /svc_session=[^;]+/.exec(lanSession.headers.get("set-cookie") ?? "")?.[0] ?? "";
    const events = connect(`${s.url.replace("/api/dictate", "/api/events")}`);
    await events.opened;
    // The owner turns keys on from this machine's console.
    const res = await fetch(`${s.base}/api/access`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: '{"mode":"keys-everywhere"}',
    });
    expect(res.status).toBe(200);
    const answer = (await res.json()) as { madeWhileOff?: string[]; check?: string; keyName?: string };
    expect(answer.madeWhileOff).toEqual(["lan-made"]);
    expect(answer.keyName).toBe("admin");
    const cookie = /svc_session=[^;]+/.exec(res.headers.get("set-cookie") ?? "")?.[0] ?? "";
    const keys = await fetch(`${s.base}/api/keys`, {
      headers: { cookie, "x-svc-session-check": answer.check ?? "" },
    });
    expect(keys.status).toBe(200);
    expect(((await keys.json()) as { items: { name: string; madeWhileOff: boolean }[] }).items).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: "lan-made", madeWhileOff: true }),
        expect.objectContaining({ name: "admin", madeWhileOff: false }),
      ]),
    );
    // The session made while keys were off is over, and so is the socket opened with no key.
    expect((await fetch(`${s.base}/api/keys`, { headers: { cookie: lanCookie } })).status).toBe(401);
    expect((await events.closed).code).toBe(1008);
  });
});

describe("files (F7)", () => {
  test("the data folder is 0700 and plugins/ not writable by others, under umask 000", () => {
    const before = process.umask(0);
    try {
      const data = join(work, "umask", "data");
      lockDatabase(join(data, "svc.db"))?.release();
      expect(statSync(data).mode & 0o777).toBe(0o700);
      const db = openDatabase(join(data, "svc.db"), { migrations });
      db.close();
      expect(statSync(data).mode & 0o777).toBe(0o700);
      expect(statSync(join(data, "svc.db")).mode & 0o777).toBe(0o600);
      ensurePrivateDir(join(data, "plugins"));
      expect(statSync(join(data, "plugins")).mode & 0o777).toBe(0o700);
    } finally {
      process.umask(before);
    }
  });
});
