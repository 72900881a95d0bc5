import { describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { browserSuite } from "../helpers/browser-suite.ts";
import { openConsole } from "../helpers/console.ts";
import { pluginsDirWith } from "../helpers/plugins.ts";

// The console under SVC_AUTH=keys-everywhere, so that Chromium on this machine needs a key as a
// browser on another would under keys: the start log's one-time link, logging in with a key, logging
// out, a revoked key's session, and a plugin page framed by a logged-in console.

const suite = browserSuite("console-access", {
  makeDir: () => pluginsDirWith("fx-hostile-page"),
  env: (dir) => ({ SVC_PLUGINS_DIR: dir, SVC_AUTH: "keys-everywhere" }),
});

/** The link the start log printed, once. */
function startLink(): string {
  const links = suite.svc.lines
    .map((line) => String(line.msg ?? ""))
    .flatMap((msg) => /https?:\/\/\S+\/login\?code=[A-Za-z0-9_-]+/.exec(msg) ?? []);
  expect(links).toHaveLength(1);
  return links[0] ?? "";
}

const consoleShown = (page: Page) => page.getByRole("link", { name: "Access" }).waitFor({ timeout: 10_000 });
const loginShown = (page: Page) => page.getByLabel("Key or one-time code").waitFor({ timeout: 10_000 });

async function logInWithKey(key: string, shown = consoleShown): Promise<Page> {
  const { page } = await openConsole(suite.browser, `${suite.svc.url}/login`);
  await page.getByLabel("Key or one-time code").fill(key);
  await page.getByRole("button", { name: "Log in" }).click();
  await shown(page);
  return page;
}

/** A dictate key's console: Dictate and its own History, and nothing an admin key is needed for. */
const dictateConsoleShown = (page: Page) =>
  page.getByRole("link", { name: "History" }).waitFor({ timeout: 10_000 });

describe("the console's login (Chromium)", () => {
  let admin: Page;
  let spareKey = "";

  test("the start log's link logs in once; a second use fails", async () => {
    const link = startLink();
    expect(suite.svc.lines.some((line) => JSON.stringify(line).includes("svck_"))).toBe(false);
    const first = await openConsole(suite.browser, link);
    await consoleShown(first.page);
    // The code left the address bar.
    expect(new URL(first.page.url()).search).toBe("");
    admin = first.page;
    const second = await openConsole(suite.browser, link);
    await loginShown(second.page);
    await second.page.getByRole("alert").filter({ hasText: "not valid" }).waitFor({ timeout: 10_000 });
    await second.page.context().close();
  }, 60_000);

  test("an admin makes a dictate key on the Access screen; its session ends when it is revoked", async () => {
    await admin.getByRole("link", { name: "Access" }).click();
    await admin.getByLabel("Name").fill("phone");
    await admin.getByRole("button", { name: "Create key" }).click();
    const key = (await admin.getByTestId("revealed-key").textContent())?.trim() ?? "";
    expect(key).toMatch(/^svck_/);
    const phone = await logInWithKey(key, dictateConsoleShown);
    expect(await phone.evaluate(() => document.cookie)).toBe("");
    // A dictate key's menu has Dictate and History only; an admin screen says why it is not shown.
    const menu = await phone.getByRole("navigation", { name: "svc" }).getByRole("link").allTextContents();
    expect(menu.filter((text) => ["Settings", "Plugins", "Access", "Models"].includes(text.trim()))).toEqual(
      [],
    );
    await phone.goto(`${suite.svc.url}/settings`);
    await phone.getByText("This screen is for admin keys").waitFor({ timeout: 10_000 });
    await phone.goto(`${suite.svc.url}/`);
    await dictateConsoleShown(phone);
    await admin.getByRole("button", { name: "Revoke phone" }).click();
    await admin.getByRole("button", { name: "Click again to revoke phone" }).click();
    await admin.getByText("Revoked phone").waitFor({ timeout: 10_000 });
    // No reload: the events socket closes 1008 for the revoked key, and the login page follows.
    await loginShown(phone);
    await phone.context().close();
  }, 60_000);

  test("a plugin page framed by the logged-in console reads neither the cookie nor a key", async () => {
    const enabled = await admin.evaluate(async () => {
      // The console keeps its session's check in its own storage and sends it beside the cookie.
      const check = localStorage.getItem("svc.sessionCheck") ?? "";
      const response = await fetch("/api/plugins/fx-hostile-page/enable", {
        method: "POST",
        headers: { "x-svc-session-check": check },
      });
      return response.status;
    });
    expect(enabled).toBe(200);
    await admin.goto(`${suite.svc.url}/plugins/fx-hostile-page/main`);
    const frame = await (
      await admin.locator("iframe.plugin-frame").elementHandle({ timeout: 10_000 })
    )?.contentFrame();
    if (!frame) throw new Error("the console did not frame the plugin page");
    await frame.locator("body[data-done]").waitFor({ timeout: 15_000 });
    const seen = await frame.evaluate(async () => {
      let cookie: string;
      try {
        cookie = document.cookie;
      } catch (error) {
        cookie = `threw ${(error as Error).name}`;
      }
      let keys: string;
      try {
        const response = await fetch("/api/keys", { credentials: "include" });
        keys = `${response.status}`;
      } catch (error) {
        keys = `threw ${(error as Error).name}`;
      }
      return { cookie, keys, html: document.documentElement.outerHTML };
    });
    expect(seen.cookie).not.toContain("svc_session");
    expect(seen.keys).not.toBe("200");
    expect(seen.html).not.toContain("svck_");
    expect(seen.html).not.toContain("svc_session");
  }, 60_000);

  test("an admin's logout first shows the way back, offers a key, then ends the session", async () => {
    await admin.goto(`${suite.svc.url}/access`);
    await admin.getByRole("button", { name: "Log out" }).click();
    await admin.getByText("To come back you will need an admin key").waitFor({ timeout: 10_000 });
    await admin.getByRole("button", { name: "Make an admin key first" }).click();
    const spare = (await admin.getByTestId("revealed-key").textContent())?.trim() ?? "";
    expect(spare).toMatch(/^svck_/);
    spareKey = spare;
    await admin.getByRole("button", { name: "Log out" }).click();
    await loginShown(admin);
    // The key shown is a way back in.
    expect(
      (await fetch(`${suite.svc.url}/api/keys`, { headers: { authorization: `Bearer ${spare}` } })).status,
    ).toBe(200);
    await admin.reload();
    await loginShown(admin);
    expect((await fetch(`${suite.svc.url}/api/history`)).status).toBe(401);
  }, 60_000);

  test("revoking the admin key this browser uses first shows the way back, then logs out", async () => {
    const page = await logInWithKey(spareKey);
    await page.getByRole("link", { name: "Access" }).click();
    const own = (
      (await (
        await fetch(`${suite.svc.url}/api/keys`, { headers: { authorization: `Bearer ${spareKey}` } })
      ).json()) as { items: { name: string; lastUsedAt: string | null }[] }
    ).items.filter((key) => key.name.startsWith("owner-"));
    expect(own).toHaveLength(1);
    const name = own[0]?.name ?? "";
    const revoke = page.getByRole("button", { name: `Revoke ${name}`, exact: true });
    await revoke.click();
    await page.getByText("To come back you will need an admin key").waitFor({ timeout: 10_000 });
    // Staying is one key away wherever the focus is, even still on the button that asked (a person
    // quick with Escape), and the key is still there.
    await revoke.focus();
    await page.keyboard.press("Escape");
    await page.getByText("To come back you will need an admin key").waitFor({ state: "detached" });
    // Focus goes back to the Revoke button that asked.
    await page.waitForFunction((id) => document.activeElement?.id === id, `revoke-own-${name}`, {
      timeout: 5_000,
    });
    await revoke.click();
    await page.getByRole("button", { name: "Make an admin key first" }).click();
    const next = (await page.getByTestId("revealed-key").textContent())?.trim() ?? "";
    expect(next).toMatch(/^svck_/);
    // A key shown once is not lost to a stray Escape.
    await page.keyboard.press("Escape");
    await page.getByRole("button", { name: `Revoke ${name} and log out` }).waitFor({ timeout: 1_000 });
    expect(await page.getByTestId("revealed-key").isVisible()).toBe(true);
    await page.getByRole("button", { name: `Revoke ${name} and log out` }).click();
    await loginShown(page);
    // The revoked key is gone; the one just shown is the way back in.
    expect(
      (await fetch(`${suite.svc.url}/api/keys`, { headers: { authorization: `Bearer ${spareKey}` } })).status,
    ).toBe(401);
    expect(
      (await fetch(`${suite.svc.url}/api/keys`, { headers: { authorization: `Bearer ${next}` } })).status,
    ).toBe(200);
    await page.context().close();
  }, 60_000);
});
