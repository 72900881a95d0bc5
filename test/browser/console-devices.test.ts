import { describe, expect, test } from "bun:test";
import jsQR from "jsqr";
import type { Page } from "playwright-core";
import { browserSuite } from "../helpers/browser-suite.ts";
import { axeViolations, openConsole, phone, screenshotPath } from "../helpers/console.ts";

// "Add a device" on the Access screen, under SVC_AUTH=keys-everywhere so that a second Chromium
// context on this machine stands for a phone on the LAN: the admin gets a link and its QR code, the
// phone opens the link and has a dictate console without ever seeing the key.

const suite = browserSuite("console-devices", { env: () => ({ SVC_AUTH: "keys-everywhere" }) });

/** The start log's one-time link, which logs the admin in. */
function startLink(): string {
  const link = suite.svc.lines
    .map((line) => String(line.msg ?? ""))
    .flatMap((msg) => /https?:\/\/\S+\/login\?code=[A-Za-z0-9_-]+/.exec(msg) ?? [])[0];
  if (!link) throw new Error("svc logged no login link");
  return link;
}

/** The page's QR code drawn by Chromium onto a canvas (in a page of its own: the console's CSP allows no data: images), as RGBA. */
async function qrPixels(admin: Page): Promise<{ data: Uint8ClampedArray; width: number }> {
  const svg = await admin.getByTestId("device-qr").evaluate((element) => element.outerHTML);
  const blank = await admin.context().newPage();
  const { data, width } = await blank.evaluate(async (markup) => {
    const side = 400;
    const image = new Image(side, side);
    image.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(markup.replace("<svg", `<svg xmlns="http://www.w3.org/2000/svg" width="${side}" height="${side}"`))}`;
    await image.decode();
    const canvas = document.createElement("canvas");
    canvas.width = canvas.height = side;
    const context = canvas.getContext("2d");
    if (!context) throw new Error("no 2d canvas");
    context.drawImage(image, 0, 0, side, side);
    return { data: Array.from(context.getImageData(0, 0, side, side).data), width: side };
  }, svg);
  await blank.close();
  return { data: Uint8ClampedArray.from(data), width };
}

const menuLinks = (page: Page) =>
  page.getByRole("navigation", { name: "svc" }).getByRole("link").allTextContents();

describe("Add a device (Chromium)", () => {
  let admin: Page;
  let link: string;
  let device: Page;

  test("an admin adds a phone: a one-time link and its QR code, with a warning about localhost", async () => {
    ({ page: admin } = await openConsole(suite.browser, startLink()));
    await admin.getByRole("link", { name: "Access" }).click();
    await admin.getByLabel("It may").selectOption("admin");
    await admin.getByRole("alert").filter({ hasText: "An admin device can change every setting" }).waitFor();
    await admin.getByLabel("It may").selectOption("dictate");
    await admin.getByLabel("Device", { exact: true }).fill("phone");
    await admin.getByRole("button", { name: "Add device" }).click();
    link = (await admin.getByTestId("device-link").textContent({ timeout: 10_000 }))?.trim() ?? "";
    expect(link).toMatch(new RegExp(`^${suite.svc.url}/login\\?code=[A-Za-z0-9_-]+$`));
    // The page is on 127.0.0.1, which no phone can reach: the screen says so.
    expect(await admin.getByTestId("localhost-warning").textContent()).toContain(
      "A phone cannot reach localhost",
    );
    expect(await admin.content()).not.toContain("svck_");
    await admin.screenshot({ path: screenshotPath("access-add-device"), fullPage: true });
    expect(await axeViolations(admin)).toEqual([]);
    const { data, width } = await qrPixels(admin);
    expect(jsQR(data, width, width)?.data).toBe(link);
    // The device is in the keys table at once.
    const row = admin.getByRole("row").filter({ hasText: "phone" });
    expect(await row.getByRole("cell").nth(1).textContent()).toBe("dictate");
  }, 120_000);

  test("the phone opens the link and has Dictate and History, nothing an admin needs", async () => {
    ({ page: device } = await openConsole(suite.browser, link, { viewport: phone }));
    await device.getByRole("heading", { name: "Dictate", exact: true }).waitFor({ timeout: 10_000 });
    expect(new URL(device.url()).search).toBe("");
    expect(await device.evaluate(() => document.cookie)).toBe("");
    const toggle = device.getByRole("navigation", { name: "svc" }).getByRole("button", { name: "Menu" });
    if (await toggle.isVisible()) await toggle.click();
    const menu = (await menuLinks(device)).map((text) => text.trim());
    expect(menu).toContain("History");
    for (const admin of ["Settings", "Plugins", "Access", "Models"]) expect(menu).not.toContain(admin);
  }, 60_000);

  test("the link works once; the admin sees the phone's last use and revoking it logs the phone out", async () => {
    const again = await openConsole(suite.browser, link);
    await again.page.getByRole("alert").filter({ hasText: "not valid" }).waitFor({ timeout: 10_000 });
    await again.page.context().close();
    await admin.reload();
    const row = admin.getByRole("row").filter({ hasText: "phone" });
    await row.waitFor({ timeout: 10_000 });
    expect(await row.getByRole("cell").nth(3).textContent()).not.toBe("never");
    await admin.getByRole("button", { name: "Revoke phone" }).click();
    await admin.getByRole("button", { name: "Click again to revoke phone" }).click();
    await device.getByLabel("Key or one-time code").waitFor({ timeout: 10_000 });
  }, 60_000);
});
