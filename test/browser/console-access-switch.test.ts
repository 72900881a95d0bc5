import { afterAll, describe, expect, test } from "bun:test";
import { join, resolve } from "node:path";
import { browserSuite } from "../helpers/browser-suite.ts";
import { openConsole } from "../helpers/console.ts";
import { createPeer, type Peer } from "../helpers/netns.ts";
import type { PeerAnswer } from "../helpers/peer-client.ts";

// The console's Access switch on svc as its defaults leave it (every interface, keys off): the
// banner on every screen, keys turned on from the Access screen with the first admin key shown once,
// and a device on the LAN (a network namespace) refused without a key and let in with it.

const root = resolve(import.meta.dir, "../..");
const made = createPeer();
const refused = "refused" in made ? made.refused : null;
if (refused)
  console.warn(`console-access-switch: skipped, the kernel refused a network namespace (${refused})`);
const peer = made as Peer;
afterAll(() => {
  if (!refused) peer.close();
});

const suite = browserSuite("console-access-switch", { env: () => ({ HOST: "0.0.0.0" }) });

async function fromPeer(path: string, key?: string): Promise<PeerAnswer> {
  const request = {
    method: "GET",
    url: `http://${peer.hostAddress}:${suite.svc.port}${path}`,
    headers: key ? { authorization: `Bearer ${key}` } : {},
  };
  const result = await peer.run([process.execPath, join(root, "test/helpers/peer-client.ts")], {
    stdin: JSON.stringify([request]),
  });
  return (JSON.parse(result.stdout) as PeerAnswer[])[0] as PeerAnswer;
}

describe.skipIf(refused !== null)("the console's Access switch (Chromium)", () => {
  test("the banner warns on every screen; the switch turns keys on, shows the admin key once, and a LAN device then needs it", async () => {
    expect(suite.svc.lines.some((line) => String(line.msg).startsWith("Anyone on your network"))).toBe(true);
    expect((await fromPeer("/api/history")).status).toBe(200);
    const { page } = await openConsole(suite.browser, `${suite.svc.url}/history`);
    const banner = page
      .getByRole("alert")
      .filter({ hasText: "Anyone on your network can use and change this svc" });
    await banner.waitFor({ timeout: 10_000 });
    await page.getByRole("link", { name: "Access" }).click();
    await banner.waitFor({ timeout: 10_000 });
    // The box follows the server: it is ticked once svc has stored the change.
    await page.getByLabel("Require a key from other devices").click();
    const key = (await page.getByTestId("revealed-key").textContent({ timeout: 10_000 }))?.trim() ?? "";
    expect(key).toMatch(/^svck_/);
    await banner.waitFor({ state: "detached", timeout: 10_000 });
    // This browser is on svc's machine: it stays trusted, as the desktop app does.
    await page.getByText("It is on svc's own machine: it needs no key.").waitFor({ timeout: 10_000 });

    expect((await fromPeer("/api/history")).status).toBe(401);
    expect((await fromPeer("/api/history", key)).status).toBe(200);

    await page.getByLabel("Require a key from other devices").click();
    await banner.waitFor({ timeout: 10_000 });
    expect((await fromPeer("/api/history")).status).toBe(200);
    expect(JSON.stringify(suite.svc.lines)).not.toContain(key);
  }, 90_000);
});
