import { expect, test } from "bun:test";
import { browserSuite } from "../helpers/browser-suite.ts";
import { openConsole } from "../helpers/console.ts";

// A phone on the LAN over plain http: the browser gives the page no microphone. Chromium reaches
// the compiled svc as http://svc.lan (a name mapped to 127.0.0.1, which it does not count as this
// machine), as a phone would reach it by the NAS's name.

const suite = browserSuite("console-insecure", {
  env: () => ({ SVC_ALLOWED_HOSTS: "svc.lan" }),
  chromium: () => ["--host-resolver-rules=MAP svc.lan 127.0.0.1"],
  ready: async (s) => {
    await fetch(`${s.svc.url}/api/settings/stt_engine`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: '{"value":"sphinx"}',
    });
  },
});

test("over plain http from another device, Record says why it cannot record before it is pressed", async () => {
  const url = `http://svc.lan:${new URL(suite.svc.url).port}/`;
  const { page, problems } = await openConsole(suite.browser, url);
  const record = page.locator("button.record");
  await record.waitFor();
  expect(await page.evaluate(() => window.isSecureContext)).toBe(false);
  await page.getByText("browsers allow it only on https").waitFor({ timeout: 10_000 });
  expect(await record.getAttribute("aria-disabled")).toBe("true");
  // Pressing it starts nothing; a file can still be transcribed.
  await record.click({ force: true });
  expect(await record.textContent()).toBe("Record");
  expect(await page.getByText("Transcribe a file…").count()).toBe(1);
  expect(problems).toEqual([]);
  await page.context().close();
}, 60_000);
