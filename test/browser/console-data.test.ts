import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import type { Page } from "playwright-core";
import { encodeWav } from "../../src/dictation/audio/index.ts";
import { undoMs } from "../../src/web/console/toast.tsx";
import { browserSuite } from "../helpers/browser-suite.ts";
import { type ConsolePage, desktop, openConsole, phone, screenshotPath } from "../helpers/console.ts";
import { fakeSpeechServer } from "../helpers/speech-server.ts";
import { goForward } from "../helpers/sphinx-testdata.ts";
import { until } from "../helpers/until.ts";

// The History, Dictionary and Vocabulary screens against the compiled binary in Chromium. What
// the UI does is checked through the API, what the API does is checked in the UI. Dictations come
// from a real recording sent to the remote speech engine, answered by a local server standing in
// for the provider with the texts each test queues.

const spoken: string[] = [];
const clip = encodeWav(goForward());

const provider = fakeSpeechServer(() => spoken.shift() ?? "nothing queued");
afterAll(() => provider.stop());

const suite = browserSuite("console-data", {
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

interface Listed {
  items: Record<string, unknown>[];
  total: number;
}
const list = async (path: string) => (await call("GET", path)) as unknown as Listed;

/** Dictates `text` (from `app`) through POST /api/transcribe. */
async function dictate(text: string, app: string) {
  spoken.push(text);
  const res = await fetch(`${suite.svc.url}/api/transcribe`, {
    method: "POST",
    body: clip,
    headers: { "content-type": "audio/wav", "x-app-context": app },
  });
  if (res.status !== 200) throw new Error(`transcribe: ${res.status} ${await res.text()}`);
}

async function open(
  path: string,
  viewport: { width: number; height: number } = desktop,
): Promise<ConsolePage> {
  const opened = await openConsole(suite.browser, `${suite.svc.url}${path}`, { viewport });
  // A missing element fails the test with a locator's message, well before the test's own timeout.
  opened.page.setDefaultTimeout(8_000);
  await opened.page.locator("#screen-title").waitFor();
  return opened;
}

/**
 * Closes the page; nothing may have gone wrong on it but the refusals the test provoked, which
 * Chromium logs as console errors ("Failed to load resource: … status of 400").
 */
async function close(opened: ConsolePage, refusals: number[] = []) {
  await opened.page.context().close();
  const refused = (status: number) =>
    `console: Failed to load resource: the server responded with a status of ${status}`;
  const unexpected = opened.problems.filter(
    (problem) => !refusals.some((status) => problem.startsWith(refused(status))),
  );
  expect(unexpected).toEqual([]);
  for (const status of refusals) expect(opened.problems.join("\n")).toContain(refused(status));
}

/** Reads until `read` gives `want` (the page settles after the event that was awaited) or 5 s pass. */
async function settled<T>(read: () => Promise<T>, want: T): Promise<T> {
  let value = await read();
  for (let tries = 0; tries < 50 && !Bun.deepEquals(value, want); tries++) {
    await Bun.sleep(100);
    value = await read();
  }
  return value;
}

const rows = (page: Page) => page.locator("table.lexicon tbody tr:not(.add-row)");
const row = (page: Page, text: string) => rows(page).filter({ hasText: text });

/** Clicks a ConfirmButton twice: arm, then confirm. */
async function confirm(page: Page, name: string) {
  await page.getByRole("button", { name, exact: true }).click();
  await page
    .getByRole("button", { name: `Confirm delete ${name.replace(/^Delete /, "")}`, exact: true })
    .click();
}

const upload = (page: Page, name: string, mimeType: string, text: string) =>
  page.locator("input[type=file]").setInputFiles({ name, mimeType, buffer: Buffer.from(text) });

interface LexiconCase {
  name: "dictionary" | "vocabulary";
  key: string;
  other: string;
}

for (const { name, key, other } of [
  { name: "dictionary", key: "key", other: "value" },
  { name: "vocabulary", key: "term", other: "notes" },
] satisfies LexiconCase[]) {
  const api = `/api/${name}`;
  const empty = () => call("POST", `${api}/import?mode=replace`, []);
  const entries = async () => (await list(`${api}?limit=500`)).items;

  describe(`the ${name} screen`, () => {
    test("an entry added, edited and deleted in the table is visible through the API", async () => {
      await empty();
      const opened = await open(`/${name}`);
      const { page } = opened;
      await page.locator(`#${name}-new-${key}`).fill("kube control");
      await page.locator(`#${name}-new-${other}`).fill("kubectl");
      await page.locator(`#${name}-new-${other}`).press("Enter");
      await row(page, "kube control").waitFor();
      const [created] = await entries();
      expect(created).toMatchObject({ [key]: "kube control", [other]: "kubectl" });
      // The add row is empty and ready for the next entry.
      expect(await settled(() => page.locator(`#${name}-new-${key}`).inputValue(), "")).toBe("");

      await page.getByRole("button", { name: "Edit “kube control”" }).click();
      // Edit puts the cursor in the row's first field.
      const first = `${name}-edit-${created?.id}-field-${key}`;
      const focused = () => page.evaluate(() => document.activeElement?.id);
      expect(await settled(focused, first)).toBe(first);
      const field = page.locator(`#${name}-edit-${created?.id}-field-${other}`);
      await field.fill("kubectl (CLI)");
      await field.press("Enter");
      await row(page, "kubectl (CLI)").waitFor();
      expect(await entries()).toMatchObject([{ [key]: "kube control", [other]: "kubectl (CLI)" }]);

      // Escape leaves the entry as it was.
      await page.getByRole("button", { name: "Edit “kube control”" }).click();
      await field.fill("never saved");
      await field.press("Escape");
      await row(page, "kubectl (CLI)").waitFor();
      expect(await settled(focused, `${name}-edit-${created?.id}`)).toBe(`${name}-edit-${created?.id}`);
      expect(await entries()).toMatchObject([{ [other]: "kubectl (CLI)" }]);

      await confirm(page, "Delete “kube control”");
      await row(page, "kube control").waitFor({ state: "detached" });
      expect(await entries()).toEqual([]);
      await close(opened);
    }, 20_000);

    test("the API's validation message appears at the field it concerns", async () => {
      await empty();
      await call("POST", api, { [key]: "Postgres", [other]: "PostgreSQL" });
      const opened = await open(`/${name}`);
      const { page } = opened;
      await row(page, "Postgres").waitFor();
      await page.locator(`#${name}-new-${key}`).fill("   ");
      await page.getByRole("button", { name: "Add", exact: true }).click();
      const blank = page.locator(`#${name}-new-${key}-error`);
      expect(await blank.textContent()).toBe(`${key[0]?.toUpperCase()}${key.slice(1)} must not be blank.`);
      expect(await page.locator(`#${name}-new-${key}`).getAttribute("aria-invalid")).toBe("true");

      // A key that exists in another letter case: the API's 409 sentence, at the key.
      await page.locator(`#${name}-new-${key}`).fill("postgres");
      await page.locator(`#${name}-new-${other}`).fill("x");
      await page.locator(`#${name}-new-${key}`).press("Enter");
      await blank.filter({ hasText: "already in the" }).waitFor();
      expect(await blank.textContent()).toContain(`"postgres" is already in the ${name} as "Postgres"`);
      expect((await entries()).length).toBe(1);
      await page.screenshot({ path: screenshotPath(`console-${name}-field-error`) });
      await close(opened, [400, 409]);
    }, 20_000);

    test("an entry added through the API appears without a reload", async () => {
      await empty();
      const opened = await open(`/${name}`);
      await opened.page.locator(".empty").waitFor();
      await opened.live;
      await call("POST", api, { [key]: "Wireguard", [other]: "WireGuard" });
      await row(opened.page, "Wireguard").waitFor({ timeout: 5_000 });
      await call("POST", `${api}/import`, [{ [key]: "Grafana", [other]: "Grafana" }]);
      await row(opened.page, "Grafana").waitFor({ timeout: 5_000 });
      await close(opened);
    }, 20_000);

    test("search narrows the table", async () => {
      await empty();
      await call("POST", `${api}/import`, [
        { [key]: "nginx", [other]: "NGINX" },
        { [key]: "tailscale", [other]: "Tailscale" },
        { [key]: "traefik", [other]: "Traefik" },
      ]);
      const opened = await open(`/${name}`);
      await row(opened.page, "nginx").waitFor();
      expect(await rows(opened.page).count()).toBe(3);
      await opened.page.getByLabel(`Search the ${name}`).fill("tail");
      await row(opened.page, "nginx").waitFor({ state: "detached" });
      expect(await rows(opened.page).allTextContents()).toEqual([expect.stringContaining("tailscale")]);
      await close(opened);
    }, 20_000);

    test("pages through a long list", async () => {
      const many = Array.from({ length: 55 }, (_, i) => ({
        [key]: `word ${String(i).padStart(2, "0")}`,
        [other]: "x",
      }));
      await call("POST", `${api}/import?mode=replace`, many);
      const opened = await open(`/${name}`);
      const pager = opened.page.getByRole("navigation", { name: /pages$/ });
      await pager.getByText("1–50 of 55").waitFor();
      expect(await rows(opened.page).count()).toBe(50);
      await pager.getByRole("button", { name: "Next" }).click();
      await pager.getByText("51–55 of 55").waitFor();
      expect(await rows(opened.page).count()).toBe(5);
      await close(opened);
    }, 20_000);

    test("an import with bad rows lists the API's problems per line and changes nothing", async () => {
      await empty();
      await call("POST", api, { [key]: "keep me", [other]: "kept" });
      const opened = await open(`/${name}`);
      const { page } = opened;
      await row(page, "keep me").waitFor();
      await upload(page, "bad.csv", "text/csv", `${key},${other}\nfirst,1\n   ,2\nfirst,3\n`);
      const problems = page.getByRole("list", { name: "Problems in the file" }).locator("li");
      await problems.first().waitFor();
      expect(await problems.allTextContents()).toEqual([
        `Line 3 (${key}): ${key} must not be blank`,
        "Line 4: duplicates line 2 (compared ignoring letter case)",
      ]);
      const refusal = page.locator(".transfer .error");
      expect(await refusal.locator(".error-sentence").textContent()).toBe(
        "The file has entries svc cannot take, so nothing was imported. Fix them and import it again.",
      );
      expect(await refusal.locator("details").textContent()).toContain(
        `2 ${name} row(s) are invalid, so nothing was imported.`,
      );
      // A JSON file names items by index.
      await upload(page, "bad.json", "application/json", JSON.stringify([{ [key]: "ok" }, { [key]: 7 }]));
      await problems.filter({ hasText: `Item 1 (${key})` }).waitFor();
      expect(await problems.allTextContents()).toContain(`Item 1 (${key}): ${key} must be a string`);
      expect(await entries()).toMatchObject([{ [key]: "keep me" }]);
      await page.screenshot({ path: screenshotPath(`console-${name}-import-refused`), fullPage: true });
      await close(opened, [400]);
    }, 20_000);

    test("a good import adds the rows; exports download what the API holds", async () => {
      await empty();
      const opened = await open(`/${name}`);
      const { page } = opened;
      await upload(
        page,
        `${name}.csv`,
        "",
        `${key},${other}\nsyncthing,Syncthing\n"immich, photos",Immich\n`,
      );
      await row(page, "immich, photos").waitFor();
      await row(page, "syncthing").waitFor();
      expect((await entries()).map((entry) => entry[key]).sort()).toEqual(["immich, photos", "syncthing"]);
      // The rows can come from the import's own live event, before the POST's answer shows the toast.
      await page.locator(".toast", { hasText: "Imported: 2 added, 0 updated, 0 unchanged." }).waitFor();

      for (const format of ["json", "csv"]) {
        const [download] = await Promise.all([
          page.waitForEvent("download"),
          page.getByRole("link", { name: `Export ${format.toUpperCase()}` }).click(),
        ]);
        expect(download.suggestedFilename()).toMatch(
          new RegExp(`^svc-${name}-\\d{4}-\\d{2}-\\d{2}\\.${format}$`),
        );
        const saved = readFileSync((await download.path()) ?? "");
        const fromApi = await (await fetch(`${suite.svc.url}${api}/export?format=${format}`)).arrayBuffer();
        expect(saved.equals(Buffer.from(fromApi))).toBe(true);
        expect(saved.toString("utf8")).toContain("immich, photos");
      }
      await close(opened);
    }, 20_000);
  });
}

describe("the history screen", () => {
  const history = (query = "") => list(`/api/history${query}`);

  test("shows dictations with their stats, adds new ones live, and search narrows them", async () => {
    await call("DELETE", "/api/history");
    await dictate("Buy oat milk and bread", "Slack");
    await dictate("Schedule the dentist appointment for Friday", "Mail");
    const opened = await open("/history");
    const { page } = opened;
    const items = page.locator(".history-item");
    await items.nth(1).waitFor();
    expect(await items.count()).toBe(2);
    expect(await items.first().textContent()).toContain("dentist");
    expect(await items.first().locator(".tag").first().textContent()).toBe("Mail");
    const figure = (name: string) => page.locator(".figures div").filter({ hasText: name }).locator("dd");
    expect(await figure("Dictations").textContent()).toBe("2");
    // The chart is described to screen readers in a sentence.
    await page.getByRole("img", { name: /^Dictations per day\. 2 dictations in the last 30 days/ }).waitFor();

    await items
      .first()
      .getByRole("button", { name: /^Copy the dictation from / })
      .click();
    await page.locator(".toast").filter({ hasText: "Copied" }).waitFor();

    await dictate("Deploy the staging cluster tonight", "Terminal");
    await items.filter({ hasText: "staging cluster" }).waitFor({ timeout: 5_000 });
    await figure("Dictations").filter({ hasText: "3" }).waitFor();

    await page.getByLabel("Search dictations").fill("dent");
    await items.filter({ hasText: "oat milk" }).waitFor({ state: "detached" });
    expect(await items.allTextContents()).toEqual([expect.stringContaining("dentist appointment")]);
    await page.getByLabel("Search dictations").fill("nothing like this");
    await page.getByText("No dictation matches these filters.").waitFor();
    await close(opened);
  }, 20_000);

  test("a date range filters by local day and shows the API's message for an impossible one", async () => {
    await call("DELETE", "/api/history");
    await dictate("Dictated today", "Notes");
    const opened = await open("/history");
    const { page } = opened;
    await page.locator(".history-item").waitFor();
    const day = (offset: number) =>
      page.evaluate((offset) => {
        const date = new Date(Date.now() + offset * 86_400_000);
        const pad = (n: number) => String(n).padStart(2, "0");
        return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
      }, offset);
    // The item is on screen before the filter applies: wait for the filtered answer itself.
    const filtered = page.waitForResponse((response) => {
      const query = new URL(response.url()).searchParams;
      return response.url().includes("/api/history?") && query.has("from") && query.has("to");
    });
    await page.getByLabel("From", { exact: true }).fill(await day(0));
    await page.getByLabel("To", { exact: true }).fill(await day(0));
    expect(((await (await filtered).json()) as { total: number }).total).toBe(1);
    expect(await page.locator(".history-item").count()).toBe(1);
    await page.getByLabel("From", { exact: true }).fill(await day(1));
    await page.getByText("The From date is after the To date. Change one of them.").waitFor();
    await page.getByLabel("To", { exact: true }).fill(await day(1));
    await page.getByText("No dictation matches these filters.").waitFor();
    await page.getByRole("button", { name: "Clear filters" }).click();
    await page.locator(".history-item").waitFor();
    await close(opened);
  }, 20_000);

  test("pages through long history", async () => {
    await call("DELETE", "/api/history");
    for (let i = 1; i <= 22; i++) await dictate(`Note number ${i}`, "Notes");
    const opened = await open("/history");
    const { page } = opened;
    const pager = page.getByRole("navigation", { name: "History pages" });
    await pager.getByText("1–20 of 22").waitFor();
    // Newest first: Older goes back in time, and the focus stays on it at the end.
    const older = pager.getByRole("button", { name: "Older" });
    await older.click();
    await pager.getByText("21–22 of 22").waitFor();
    expect(await older.getAttribute("aria-disabled")).toBe("true");
    expect(await older.evaluate((button) => button === document.activeElement)).toBe(true);
    expect(await page.locator(".history-text").allTextContents()).toEqual([
      "Note number 2.",
      "Note number 1.",
    ]);
    await close(opened);
  }, 60_000);

  test("deletes wait for Undo, then reach the API; Delete all names its count", async () => {
    await call("DELETE", "/api/history");
    await dictate("Keep this one", "Notes");
    await dictate("Remove this one", "Notes");
    const opened = await open("/history");
    const { page } = opened;
    const items = page.locator(".history-item");
    await items.nth(1).waitFor();
    const doomed = items.filter({ hasText: "Remove this one" });
    await doomed.getByRole("button", { name: /^Delete the dictation from / }).click();
    await doomed.getByRole("button", { name: /^Confirm delete the dictation from / }).click();
    await doomed.waitFor({ state: "detached" });
    // Hidden at once, deleted only once Undo has had its time: Undo brings it back untouched.
    expect((await history()).total).toBe(2);
    // The focus went to the notice's Undo (not to the page's body): Enter takes it.
    const undo = page
      .locator(".toast", { hasText: "Deleted the dictation." })
      .getByRole("button", { name: "Undo" });
    await until(
      () => page.evaluate(() => document.activeElement?.textContent ?? ""),
      (text) => text === "Undo",
    );
    await page.keyboard.press("Enter");
    await doomed.waitFor();
    expect(await undo.count()).toBe(0);
    // The focus is back on the row Undo brought back, on its Delete.
    await until(
      () => page.evaluate(() => document.activeElement?.getAttribute("aria-label") ?? ""),
      (label) => label.startsWith("Delete the dictation from"),
    );
    expect(await doomed.evaluate((row) => row.contains(document.activeElement))).toBe(true);
    // Ctrl+Z is the same Undo.
    await doomed.getByRole("button", { name: /^Delete the dictation from / }).click();
    await doomed.getByRole("button", { name: /^Confirm delete the dictation from / }).click();
    await doomed.waitFor({ state: "detached" });
    await page.keyboard.press("Control+z");
    await doomed.waitFor();
    await Bun.sleep(undoMs + 500);
    expect((await history()).total).toBe(2);

    await doomed.getByRole("button", { name: /^Delete the dictation from / }).click();
    await doomed.getByRole("button", { name: /^Confirm delete the dictation from / }).click();
    await until(
      async () => (await history()).items.map((item) => item.finalText),
      (texts) => texts.length === 1,
      { timeoutMs: undoMs + 5000 },
    );
    expect((await history()).items.map((item) => item.finalText)).toEqual(["Keep this one."]);

    await page.getByRole("button", { name: "Delete all (1)" }).click();
    await page.getByRole("button", { name: "Confirm: delete all 1 dictation" }).click();
    await page.getByText("No dictations yet.").waitFor({ timeout: undoMs + 5000 });
    expect((await history()).total).toBe(0);
    await close(opened);
  }, 60_000);
});

describe("every data screen at desktop and phone sizes", () => {
  test("renders without errors or CSP violations and without sideways scrolling", async () => {
    await call("DELETE", "/api/history");
    await dictate("Remind me to water the tomatoes when I get home tonight", "Messages");
    await dictate("Meeting notes: ship the console, then the bridge", "Docs");
    await call("POST", "/api/dictionary/import?mode=replace", [
      { key: "svc", value: "SVC" },
      { key: "open AI", value: "OpenAI" },
      { key: "my address", value: "221B Baker Street, London NW1 6XE, United Kingdom" },
    ]);
    await call("POST", "/api/vocabulary/import?mode=replace", [
      { term: "Kubernetes", notes: "container orchestration" },
      { term: "Jellyfin" },
    ]);
    for (const [label, viewport] of [
      ["desktop", desktop],
      ["phone", phone],
    ] as const) {
      for (const screen of ["history", "dictionary", "vocabulary"]) {
        const opened = await open(`/${screen}`, viewport);
        const { page } = opened;
        await page
          .locator(screen === "history" ? ".history-item" : "table.lexicon tbody tr:nth-child(2)")
          .first()
          .waitFor();
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - innerWidth);
        await page.screenshot({ path: screenshotPath(`console-${screen}-${label}`), fullPage: true });
        await page.emulateMedia({ colorScheme: "dark" });
        await page.screenshot({ path: screenshotPath(`console-${screen}-${label}-dark`), fullPage: true });
        expect({ screen, label, overflow }).toEqual({ screen, label, overflow: 0 });
        if (label === "phone") {
          // The narrowest phone in common use.
          await page.setViewportSize({ width: 360, height: 740 });
          const narrow = await page.evaluate(() => document.documentElement.scrollWidth - innerWidth);
          expect({ screen, narrow }).toEqual({ screen, narrow: 0 });
        }
        await close(opened);
      }
    }
  }, 60_000);
});
