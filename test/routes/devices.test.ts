import { describe, expect, test } from "bun:test";
import { createTestApp } from "../helpers/app.ts";
import type { ErrorBody } from "../helpers/errors.ts";

// app.request's caller counts as a loopback peer: under keys-everywhere it needs a key like any device.

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const code = async (res: Response) => ((await res.json()) as ErrorBody).error.code;

interface Device {
  name: string;
  role: string;
  code: string;
  expiresAt: string;
  path: string;
}

function withAdmin() {
  const t = createTestApp({ auth: "keys-everywhere" });
  const admin = t.access.createKey("root", "admin").key;
  return { t, admin };
}

/** The session cookie and check a login answered. */
async function sessionOf(res: Response): Promise<Record<string, string>> {
  const token = /svc_session=([^;]*)/.exec(res.headers.get("set-cookie") ?? "")?.[1];
  if (!token) throw new Error("no session cookie");
  const { check } = (await res.json()) as { check: string };
  return { cookie: `svc_session=${token}`, "x-svc-session-check": check };
}

describe("POST /api/devices", () => {
  test("makes a dictate key and a login code for it; the key itself is not answered", async () => {
    const { t, admin } = withAdmin();
    const res = await t.json("/api/devices", "POST", { name: "phone" }, bearer(admin));
    expect(res.status).toBe(201);
    const text = await res.text();
    expect(text).not.toContain("svck_");
    const device = JSON.parse(text) as Device;
    expect(device).toMatchObject({ name: "phone", role: "dictate", lastUsedAt: null });
    expect(device.path).toBe(`/login?code=${device.code}`);
    const left = Date.parse(device.expiresAt) - Date.now();
    expect(left).toBeGreaterThan(14 * 60_000);
    expect(left).toBeLessThanOrEqual(15 * 60_000);
    const keys = (await (await t.request("/api/keys", { headers: bearer(admin) })).json()) as {
      items: { name: string; role: string }[];
    };
    expect(keys.items).toContainEqual(expect.objectContaining({ name: "phone", role: "dictate" }));
  });

  test("the code logs in once with a dictate session, which may not change settings", async () => {
    const { t, admin } = withAdmin();
    const device = (await (
      await t.json("/api/devices", "POST", { name: "phone" }, bearer(admin))
    ).json()) as Device;
    const login = await t.json("/api/auth/login", "POST", { code: device.code });
    expect(login.status).toBe(200);
    const session = await sessionOf(login.clone());
    expect(await login.json()).toMatchObject({ name: "phone", role: "dictate" });
    expect((await t.request("/api/history", { headers: session })).status).toBe(200);
    const put = await t.json("/api/settings/language", "PUT", { value: "de" }, session);
    expect(put.status).toBe(403);
    expect(await code(put)).toBe("forbidden_role");
    const again = await t.json("/api/auth/login", "POST", { code: device.code });
    expect(again.status).toBe(401);
    expect(await code(again)).toBe("unauthorized");
    // Revoking the device's key ends its session.
    expect((await t.request("/api/keys/phone", { method: "DELETE", headers: bearer(admin) })).status).toBe(
      204,
    );
    expect((await t.request("/api/history", { headers: session })).status).toBe(401);
  });

  test("an admin device's code yields an admin session", async () => {
    const { t, admin } = withAdmin();
    const made = await t.json("/api/devices", "POST", { name: "tablet", role: "admin" }, bearer(admin));
    const device = (await made.json()) as Device;
    expect(device.role).toBe("admin");
    const session = await sessionOf(await t.json("/api/auth/login", "POST", { code: device.code }));
    expect((await t.json("/api/settings/language", "PUT", { value: "de" }, session)).status).toBe(200);
  });

  test("an expired code is refused with the login's usual answer", async () => {
    const { t, admin } = withAdmin();
    const device = (await (
      await t.json("/api/devices", "POST", { name: "phone" }, bearer(admin))
    ).json()) as Device;
    t.db.run("UPDATE access_codes SET expires_at = ?", [new Date(Date.now() - 1000).toISOString()]);
    const res = await t.json("/api/auth/login", "POST", { code: device.code });
    expect(res.status).toBe(401);
    expect(((await res.json()) as ErrorBody).error.message).toContain("a code works once, for 15 minutes");
  });

  test("only an admin adds a device: 403 forbidden_role for a dictate key, 401 for nobody", async () => {
    const { t } = withAdmin();
    const dictate = t.access.createKey("phone", "dictate").key;
    const res = await t.json("/api/devices", "POST", { name: "other" }, bearer(dictate));
    expect(res.status).toBe(403);
    expect(await code(res)).toBe("forbidden_role");
    expect((await t.json("/api/devices", "POST", { name: "other" })).status).toBe(401);
  });

  test("a name in use is 409 conflict; a bad role or name is 400 and makes nothing", async () => {
    const { t, admin } = withAdmin();
    const res = await t.json("/api/devices", "POST", { name: "root" }, bearer(admin));
    expect(res.status).toBe(409);
    expect(await code(res)).toBe("conflict");
    expect((await t.json("/api/devices", "POST", { name: "x", role: "owner" }, bearer(admin))).status).toBe(
      400,
    );
    expect((await t.json("/api/devices", "POST", { name: "a phone" }, bearer(admin))).status).toBe(400);
    expect(t.access.listKeys().map((key) => key.name)).toEqual(["root"]);
  });

  test("with keys off it is refused (409 keys_off) and makes no key", async () => {
    const t = createTestApp();
    const res = await t.json("/api/devices", "POST", { name: "phone" });
    expect(res.status).toBe(409);
    expect(await code(res)).toBe("keys_off");
    expect(t.access.listKeys()).toEqual([]);
  });
});
