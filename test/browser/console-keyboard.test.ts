import { afterAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { encodeWav } from "../../src/dictation/audio/index.ts";
import { browserSuite } from "../helpers/browser-suite.ts";
import { type ConsolePage, desktop, openConsole, phone, screenshotPath } from "../helpers/console.ts";
import { fakeSpeechServer } from "../helpers/speech-server.ts";
import { goForward } from "../helpers/sphinx-testdata.ts";
import { until } from "../helpers/until.ts";

// The console by keyboard and its errors, against the compiled binary in Chromium: the "?" sheet,
// where the focus goes after each action, Escape, and failures in plain words with their technical
// part under Details. Dictations go to the remote engine, answered by a local stand-in.

const provider = fakeSpeechServer("go forward ten meters");
afterAll(() => provider.stop());

const suite = browserSuite("console-keyboard", {
  ready: async () => {
    await call("PUT", "/api/settings/stt_engine", { value: "remote" });
    await call("PUT", "/api/settings/remote_stt_base_url", { value: provider.url });
    await call("PUT", "/api/settings/remote_stt_model", { value: "whisper-1" });
  },
});

async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(`${suite.svc.url}${path}`, {
    method,
    ...(body === undefined
      ? {}
      : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.status === 204 ? undefined : ((await res.json()) as Record<string, unknown>);
}

async function open(
  path: string,
  viewport: { width: number; height: number } = desktop,
): Promise<ConsolePage> {
  const opened = await openConsole(suite.browser, `${suite.svc.url}${path}`, { viewport });
  opened.page.setDefaultTimeout(8_000);
  await opened.page.locator("#screen-title").waitFor();
  return opened;
}

/** What has the focus: its id, else its accessible label, else its text. */
const focused = (page: Page) =>
  page.evaluate(() => {
    const element = document.activeElement;
    return element?.id || element?.getAttribute("aria-label") || element?.textContent?.trim() || "";
  });

/** Waits until the focus is on `want` (the page moves it after an answer or a frame). */
const focusOn = (page: Page, want: string) =>
  until(
    () => focused(page),
    (now) => now === want,
    { what: `the focus on ${want}` },
  );

/** Closes the page; nothing went wrong on it but the refusals (HTTP statuses) the test provoked. */
async function close(opened: ConsolePage, refusals: number[] = []) {
  const expected = (problem: string) =>
    refusals.some((status) => problem.includes(`the server responded with a status of ${status}`));
  expect(opened.problems.filter((problem) => !expected(problem))).toEqual([]);
  await opened.page.context().close();
}

describe("the keyboard sheet", () => {
  test("? opens it outside text fields; it lists the keys, keeps Tab inside, and Escape gives the focus back", async () => {
    const opened = await open("/dictionary");
    const { page } = opened;
    const sheet = page.getByRole("dialog", { name: "Keyboard keys" });
    // In a text field "?" is typed.
    await page.locator("#dictionary-search").focus();
    await page.keyboard.type("?");
    expect(await page.locator("#dictionary-search").inputValue()).toBe("?");
    expect(await sheet.isVisible()).toBe(false);

    await page.locator("#dictionary-search").fill("");
    const add = page.getByRole("button", { name: "Add", exact: true });
    await add.focus();
    await page.keyboard.press("?");
    await sheet.waitFor();
    for (const key of ["Space (hold)", "Ctrl+Z or ⌘Z", "Escape", "Enter", "?"])
      expect(await sheet.getByRole("rowheader", { name: key, exact: true }).count()).toBe(1);
    expect(await sheet.evaluate((dialog) => dialog.contains(document.activeElement))).toBe(true);
    for (let i = 0; i < 4; i++) {
      await page.keyboard.press(i % 2 ? "Shift+Tab" : "Tab");
      expect(await sheet.evaluate((dialog) => dialog.contains(document.activeElement))).toBe(true);
    }
    await page.screenshot({ path: screenshotPath("console-keyboard-sheet") });
    await page.keyboard.press("Escape");
    await sheet.waitFor({ state: "hidden" });
    expect(await add.evaluate((button) => button === document.activeElement)).toBe(true);

    // The menu's button opens it too, on a phone as well.
    await close(opened);
    const onPhone = await open("/", phone);
    await onPhone.page.getByRole("button", { name: "Menu" }).click();
    await onPhone.page.getByRole("button", { name: "Keyboard keys (?)" }).click();
    await onPhone.page.getByRole("dialog", { name: "Keyboard keys" }).waitFor();
    await onPhone.page.getByRole("button", { name: "Close" }).click();
    await focusOn(onPhone.page, "Keyboard keys (?)");
    await close(onPhone);
  }, 40_000);
});

describe("the focus after an action", () => {
  test("after a delete in the Dictionary: the next row, then the heading once the list is empty", async () => {
    await call("POST", "/api/dictionary/import?mode=replace", [
      { key: "alpha", value: "Alpha" },
      { key: "beta", value: "Beta" },
    ]);
    const opened = await open("/dictionary");
    const { page } = opened;
    const rows = page.locator("table.lexicon tbody tr:not(.add-row)");
    await rows.nth(1).waitFor();
    const [first, second] = ((await call("GET", "/api/dictionary"))?.items ?? []) as {
      id: number;
      key: string;
    }[];
    const remove = async (key: string) => {
      await page.getByRole("button", { name: `Delete “${key}”`, exact: true }).click();
      await page.keyboard.press("Enter");
    };
    await remove(first?.key ?? "");
    await focusOn(page, `dictionary-edit-${second?.id}`);
    await remove(second?.key ?? "");
    await focusOn(page, "screen-title");
    await close(opened);
  }, 30_000);

  test("after a phone-menu choice: the chosen screen's heading", async () => {
    const opened = await open("/", phone);
    const { page } = opened;
    await page.getByRole("button", { name: "Menu" }).click();
    await page.getByRole("link", { name: "Formats", exact: true }).press("Enter");
    await page.locator("#screen-title", { hasText: "Formats" }).waitFor();
    await focusOn(page, "screen-title");
    expect(await page.locator("#screen-title").textContent()).toBe("Formats");
    await close(opened);
  }, 30_000);

  test("the format editor: Cancel and Escape give the focus back to the button that opened it", async () => {
    const opened = await open("/formats");
    const { page } = opened;
    await page.getByRole("button", { name: "New format" }).click();
    await page.getByRole("heading", { name: "New format" }).waitFor();
    await page.getByRole("button", { name: "Cancel" }).click();
    await page.locator("form.format-editor").waitFor({ state: "detached" });
    await focusOn(page, "New format");

    const edit = page.locator("li.format-item").first().getByRole("button", { name: "Edit" });
    await edit.click();
    await page.locator("#format-label").focus();
    await page.keyboard.press("Escape");
    await page.locator("form.format-editor").waitFor({ state: "detached" });
    expect(await edit.evaluate((button) => button === document.activeElement)).toBe(true);
    await close(opened);
  }, 30_000);
});

describe("errors in plain words", () => {
  test("the sentence names no code or route; Details hold them, folded", async () => {
    const opened = await open("/plugins");
    const { page } = opened;
    await page.getByLabel("npm package name").fill("Not A Package!");
    await page.getByRole("button", { name: "Install" }).click();
    const alert = page.locator("#install-error");
    await alert.waitFor();
    const sentence = (await alert.locator(".error-sentence").textContent()) ?? "";
    expect(sentence).toBe(
      "That is not an npm package name. Check the spelling, such as @svc/profanity-filter.",
    );
    for (const technical of ["invalid_package_name", "/api/", "400"])
      expect(sentence).not.toContain(technical);
    const details = alert.locator("details");
    expect(await details.locator("summary").textContent()).toBe("Details");
    expect(await details.getAttribute("open")).toBeNull();
    await details.locator("summary").click();
    expect(await details.textContent()).toContain("invalid_package_name (HTTP 400)");
    await page.screenshot({ path: screenshotPath("console-error-details") });
    await close(opened, [400]);
  }, 30_000);

  test("on Dictate a new error does not sit under the last text", async () => {
    const opened = await open("/");
    const { page } = opened;
    const input = page.locator("#audio-file");
    await input.setInputFiles({
      name: "take.wav",
      mimeType: "audio/wav",
      buffer: Buffer.from(encodeWav(goForward())),
    });
    await page.locator("#result-text", { hasText: "go forward ten meters" }).waitFor({ timeout: 15_000 });
    await input.setInputFiles({
      name: "notes.txt",
      mimeType: "text/plain",
      buffer: Buffer.from("not sound"),
    });
    await page.getByRole("alert").locator(".error-sentence").waitFor();
    expect(await page.locator("#result-text").count()).toBe(0);
    await close(opened, [415]);
  }, 30_000);

  test("a message at an add-row field goes once the field is changed", async () => {
    const opened = await open("/vocabulary");
    const { page } = opened;
    await page.locator("#vocabulary-new-term").fill("   ");
    await page.getByRole("button", { name: "Add", exact: true }).click();
    const message = page.locator("#vocabulary-new-term-error");
    await message.waitFor();
    await page.locator("#vocabulary-new-term").fill("Jellyfin");
    await message.waitFor({ state: "detached" });
    expect(await page.locator("#vocabulary-new-term").getAttribute("aria-invalid")).toBeNull();
    await close(opened, [400]);
  }, 30_000);
});

describe("turning keys on", () => {
  test("puts the focus on the key shown once; the keys table lists it at once", async () => {
    const opened = await open("/access");
    const { page } = opened;
    // The box follows svc: it is ticked once svc has stored the change.
    await page.getByLabel("Require a key from other devices").click();
    const reveal = page.getByTestId("revealed-key");
    await reveal.waitFor();
    await focusOn(page, "Copy");
    const name = (await page.locator(".key-reveal strong").textContent()) ?? "";
    const names = page.locator("table tbody td:first-child");
    await until(
      () => names.allTextContents(),
      (listed) => listed.includes(name),
      { what: `the keys table to list ${name}` },
    );
    await page.getByRole("button", { name: "I have saved it" }).click();
    await focusOn(page, "screen-title");
    await close(opened);
  }, 30_000);
});
