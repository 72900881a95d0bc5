import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { launchChromium } from "../helpers/browser.ts";
import { browserSuite } from "../helpers/browser-suite.ts";
import { desktop, openConsole, phone, screenshotPath, viaMenu } from "../helpers/console.ts";
import { freePort } from "../helpers/ports.ts";
import { TESTDATA } from "../helpers/sphinx-testdata.ts";
import { until } from "../helpers/until.ts";

// The Dictate screen against the compiled binary with the sphinx engine, Chromium's fake
// microphone playing pocketsphinx's goforward recording ("go forward ten meters").

function ffmpeg(...args: string[]): void {
  const result = Bun.spawnSync(["ffmpeg", "-hide_banner", "-loglevel", "error", "-y", ...args]);
  if (result.exitCode !== 0) throw new Error(`ffmpeg failed: ${result.stderr.toString()}`);
}

const suite = browserSuite("console-dictate", {
  prepare: (dir) => {
    const raw = ["-f", "s16le", "-ar", "16000", "-ac", "1", "-i", `${TESTDATA}/goforward.raw`];
    // The fake microphone loops its file: 4 s of silence after the speech keep one take per recording.
    ffmpeg(...raw, "-af", "apad=pad_dur=4", "-ar", "48000", join(dir, "goforward-mic.wav"));
    ffmpeg(...raw, "-c:a", "libopus", "-b:a", "32k", join(dir, "goforward.webm"));
  },
  chromium: (dir) => [
    "--use-fake-ui-for-media-stream",
    "--use-fake-device-for-media-stream",
    `--use-file-for-fake-audio-capture=${join(dir, "goforward-mic.wav")}`,
    "--autoplay-policy=no-user-gesture-required",
  ],
  ready: async ({ svc }) => {
    const engine = await fetch(`${svc.url}/api/settings/stt_engine`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ value: "sphinx" }),
    });
    expect(engine.status).toBe(200);
  },
});
const webm = () => join(suite.dir, "goforward.webm");

async function historyTexts(source?: string): Promise<string[]> {
  const list = (await (await fetch(`${suite.svc.url}/api/history`)).json()) as {
    items: { finalText: string; source: string }[];
  };
  return list.items
    .filter((item) => source === undefined || item.source === source)
    .map((item) => item.finalText);
}

describe("the Dictate screen", () => {
  test("records the microphone and shows the finished text, stored in history", async () => {
    const { page, problems } = await openConsole(suite.browser, `${suite.svc.url}/`);
    const record = page.getByRole("button", { name: "Record" });
    await record.click();
    await page.getByRole("button", { name: "Stop" }).waitFor();
    // The level meter moves while the recording plays.
    await page.waitForFunction(() => (document.querySelector("meter")?.value ?? 0) > 0.01, null, {
      timeout: 5_000,
    });
    // Live dictation: the piece is cut at the pause after the words and shown while recording, as
    // committed text (guesses before it are the provisional part, and may stop short).
    await page.waitForFunction(
      () => {
        const shown = document.querySelector("#live-text")?.cloneNode(true) as HTMLElement | undefined;
        shown?.querySelector(".provisional")?.remove();
        return /go forward ten meters/i.test(shown?.textContent ?? "");
      },
      null,
      { timeout: 10_000 },
    );
    await page.getByRole("button", { name: "Stop" }).click();
    const text = page.locator("#result-text");
    await text.waitFor({ timeout: 20_000 });
    expect((await text.textContent())?.toLowerCase()).toContain("go forward ten meters");
    expect(await page.locator(".timings").textContent()).toContain("engine");
    // The real times: the engine's own, and the wait after Stop for a live dictation.
    const times = (await page.locator(".result .muted.small").first().textContent()) ?? "";
    expect(times).toMatch(/engine \d+ ms/);
    expect(times).toMatch(/text [\d.]+ (ms|s) after Stop/);
    expect(await page.locator(".engine-line").textContent()).toContain("Dictating with PocketSphinx");
    await page.screenshot({ path: screenshotPath("dictate-result-desktop") });
    // Through GET /api/dictate, not an upload: history marks it live.
    expect((await historyTexts("live")).some((item) => /go forward ten meters/i.test(item))).toBe(true);
    // And on the History screen, reached from the menu.
    await viaMenu(page, "History");
    await page
      .getByText(/go forward ten meters/i)
      .first()
      .waitFor({ timeout: 10_000 });
    expect(problems).toEqual([]);
    await page.context().close();
  }, 60_000);

  test("transcribes a WebM file chosen with the picker and one dropped on the page", async () => {
    const { page, problems } = await openConsole(suite.browser, `${suite.svc.url}/`, { viewport: phone });
    await page.setInputFiles("#audio-file", webm());
    const text = page.locator("#result-text");
    await text.waitFor({ timeout: 20_000 });
    expect((await text.textContent())?.toLowerCase()).toContain("go forward ten meters");
    const bytes = [...new Uint8Array(await Bun.file(webm()).arrayBuffer())];
    const dropped = await page.evaluateHandle((data) => {
      const transfer = new DataTransfer();
      transfer.items.add(new File([new Uint8Array(data)], "clip.webm", { type: "audio/webm" }));
      return transfer;
    }, bytes);
    const answered = page.waitForResponse((response) => response.url().endsWith("/api/transcribe"));
    await page.dispatchEvent("section.dictate", "drop", { dataTransfer: dropped });
    const response = await answered;
    expect(response.request().headers()["content-type"]).toBe("audio/webm");
    expect(((await response.json()) as { text: string }).text.toLowerCase()).toContain(
      "go forward ten meters",
    );
    await page.screenshot({ path: screenshotPath("dictate-file-phone") });
    expect(problems).toEqual([]);
    await page.context().close();
  }, 60_000);

  test("from the keyboard: a quick Space tap ends its recording, Enter keeps the focus to stop", async () => {
    const { page, problems } = await openConsole(suite.browser, `${suite.svc.url}/`);
    const record = page.locator("button.record");
    await page.getByRole("button", { name: "Record" }).waitFor();
    // Released before the microphone has started: the release is remembered.
    await page.keyboard.down("Space");
    await page.keyboard.up("Space");
    await page.getByRole("button", { name: "Stop" }).waitFor({ state: "detached", timeout: 20_000 });
    // Idle again: "Record", no longer waiting on a start or an answer (starting also reads "Record").
    await until(
      async () => `${await record.textContent()}|${await record.getAttribute("aria-disabled")}`,
      (state) => state === "Record|null",
      { what: "Record again", timeoutMs: 20_000 },
    );
    expect(await record.getAttribute("aria-pressed")).toBe("false");

    await record.focus();
    await page.keyboard.press("Enter");
    await page.getByRole("button", { name: "Stop" }).waitFor();
    // The button kept the focus while the microphone started: a second Enter stops.
    expect(await page.evaluate(() => document.activeElement?.classList.contains("record"))).toBe(true);
    await Bun.sleep(2500);
    await page.keyboard.press("Enter");
    await page.locator("#result-text").waitFor({ timeout: 20_000 });
    // The finished text is announced: it sits in a live region.
    expect(await page.locator("#result-text").getAttribute("aria-live")).toBe("polite");

    // Space on the focused Record button, where Tab lands, is hold-to-talk too: held, it records;
    // released, it stops, and the button's own click on release does not start another.
    await until(
      async () => `${await record.textContent()}|${await record.getAttribute("aria-disabled")}`,
      (state) => state === "Record|null",
      { what: "Record again", timeoutMs: 20_000 },
    );
    await record.focus();
    await page.keyboard.down("Space");
    await page.getByRole("button", { name: "Stop" }).waitFor();
    await Bun.sleep(2000);
    await page.keyboard.up("Space");
    await page.getByRole("button", { name: "Stop" }).waitFor({ state: "detached", timeout: 20_000 });
    await Bun.sleep(1000);
    expect(await record.getAttribute("aria-pressed")).toBe("false");

    // The file picker's label shows the hidden input's keyboard focus.
    await page.focus("#audio-file");
    const outline = await page.evaluate(
      () => getComputedStyle(document.querySelector("label[for=audio-file]") as Element).outlineStyle,
    );
    expect(outline).not.toBe("none");
    expect(problems).toEqual([]);
    await page.context().close();
  }, 90_000);

  test("a recording whose transcription fails is kept: sent again once svc can, or saved", async () => {
    const put = (key: string, value: unknown) =>
      fetch(`${suite.svc.url}/api/settings/${key}`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ value }),
      });
    const { page, problems } = await openConsole(suite.browser, `${suite.svc.url}/`);
    await page.getByRole("button", { name: "Record" }).click();
    await page.getByRole("button", { name: "Stop" }).waitFor();
    // While it records, the engine becomes a server nobody answers: live pieces and the upload fail.
    expect((await put("remote_stt_base_url", `http://127.0.0.1:${freePort()}/v1`)).status).toBe(200);
    expect((await put("stt_engine", "remote")).status).toBe(200);
    await Bun.sleep(2500);
    await page.getByRole("button", { name: "Stop" }).click();
    const kept = page.getByRole("group", { name: "The recording that was not transcribed" });
    await kept.waitFor({ timeout: 30_000 });
    const save = kept.getByRole("link", { name: "Save the recording" });
    expect(await save.getAttribute("download")).toBe("svc-recording.wav");
    expect(await save.getAttribute("href")).toStartWith("blob:");

    // The offered fix takes the person to Models and back: the recording is still there.
    await page.getByRole("navigation", { name: "svc" }).getByRole("link", { name: "Models" }).click();
    await page.getByRole("heading", { name: "Speech engine" }).waitFor();
    expect((await put("stt_engine", "sphinx")).status).toBe(200);
    await page.getByRole("navigation", { name: "svc" }).getByRole("link", { name: "Dictate" }).click();
    await kept.waitFor({ timeout: 10_000 });
    await kept.getByRole("button", { name: "Transcribe it again" }).click();
    const text = page.locator("#result-text");
    await text.waitFor({ timeout: 20_000 });
    expect((await text.textContent())?.toLowerCase()).toContain("go forward ten meters");
    expect(await kept.count()).toBe(0);
    // The failed attempts were answered with errors; nothing else went wrong.
    expect(problems.filter((problem) => !problem.includes("Failed to load resource"))).toEqual([]);
    await page.context().close();
  }, 90_000);

  test("a refused microphone gets a sentence that says what to do", async () => {
    // No fake permission prompt: headless Chromium answers the prompt with a refusal.
    const refusing = await launchChromium([
      "--use-fake-device-for-media-stream",
      "--deny-permission-prompts",
    ]);
    try {
      const { page, problems } = await openConsole(refusing, `${suite.svc.url}/`);
      await page.getByRole("button", { name: "Record" }).click();
      const alert = page.getByRole("alert");
      await alert.waitFor({ timeout: 10_000 });
      expect(await alert.textContent()).toStartWith("Microphone access was refused.");
      // Nothing is being recorded: the button offers to record again.
      await page.getByRole("button", { name: "Record" }).waitFor();
      expect(problems).toEqual([]);
    } finally {
      await refusing.close();
    }
  }, 30_000);

  test("offers the languages the language setting lists, named in the reader's language", async () => {
    // The choices are the selected engine's: sphinx speaks English alone, so for this test whisper
    // with a multilingual model (the setting decides; the model need not be installed).
    const put = (key: string, value: unknown) =>
      fetch(`${suite.svc.url}/api/settings/${key}`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ value }),
      });
    const engineBefore = (
      (await (await fetch(`${suite.svc.url}/api/settings/stt_engine`)).json()) as { value: string }
    ).value;
    expect((await put("stt_engine", "whisper")).status).toBe(200);
    expect((await put("stt_model", "base")).status).toBe(200);
    const { page, problems } = await openConsole(suite.browser, `${suite.svc.url}/`, { viewport: desktop });
    const schema = (await (await fetch(`${suite.svc.url}/api/settings/schema`)).json()) as {
      items: { key: string; schema: { examples?: string[] } }[];
    };
    const examples = schema.items.find((item) => item.key === "language")?.schema.examples ?? [];
    expect(examples).toContain("de");
    const select = page.locator("#language");
    await page.waitForFunction(() => (document.querySelectorAll("#language option").length ?? 0) > 2);
    const options = await select
      .locator("option")
      .evaluateAll((nodes) =>
        nodes.map((node) => [(node as HTMLOptionElement).value, node.textContent ?? ""]),
      );
    // "As in Settings" (no header: the setting decides), then every example, "auto" as "Detect".
    expect(options.length).toBe(examples.length + 1);
    expect(options.slice(0, 2)).toEqual([
      ["", "As in Settings"],
      ["auto", "Detect"],
    ]);
    expect(options).toContainEqual(["de", "German"]);
    await select.selectOption("de");
    expect(await page.evaluate(() => localStorage.getItem("svc.language"))).toBe("de");
    expect(problems).toEqual([]);
    await page.context().close();
    await fetch(`${suite.svc.url}/api/settings/stt_model`, { method: "DELETE" });
    expect((await put("stt_engine", engineBefore)).status).toBe(200);
  }, 30_000);

  test("a language the model does not speak is said before Record is pressed", async () => {
    // sphinx speaks English alone; the setting asks for German.
    const put = await fetch(`${suite.svc.url}/api/settings/language`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ value: "de" }),
    });
    expect(put.status).toBe(200);
    try {
      const { page, problems } = await openConsole(suite.browser, `${suite.svc.url}/`, { viewport: desktop });
      const record = page.getByRole("button", { name: "Record" });
      const hint = page.locator("#record-hint");
      await until(async () => (await hint.textContent())?.includes("does not speak German") === true);
      expect(await hint.textContent()).toBe(
        "This model does not speak German: choose another language below, or in Settings, or a multilingual model in Models.",
      );
      expect(await record.getAttribute("aria-disabled")).toBe("true");
      // Pressed anyway (Playwright would wait for an aria-disabled button), it records nothing.
      await record.click({ force: true });
      expect(await record.getAttribute("aria-pressed")).toBe("false");
      // This browser's own choice decides over the setting: Detect lets Record go.
      await page.locator("#language").selectOption("auto");
      await until(async () => (await record.getAttribute("aria-disabled")) === null);
      expect(await hint.textContent()).not.toContain("does not speak");
      expect(problems).toEqual([]);
      await page.context().close();
    } finally {
      await fetch(`${suite.svc.url}/api/settings/language`, { method: "DELETE" });
    }
  }, 30_000);

  test("a file that is not audio gets a sentence, not a crash", async () => {
    const { page, problems } = await openConsole(suite.browser, `${suite.svc.url}/`, { viewport: desktop });
    const notAudio = join(suite.dir, "notes.txt");
    await Bun.write(notAudio, "these are not sounds");
    await page.setInputFiles("#audio-file", notAudio);
    const alert = page.getByRole("alert");
    await alert.waitFor({ timeout: 10_000 });
    expect(await alert.textContent()).toStartWith("That file is not audio svc can read.");
    // The failed request is the only console error: the browser logs the 415 itself.
    expect(problems.filter((problem) => !problem.includes("415"))).toEqual([]);
    await page.context().close();
  }, 30_000);
});
