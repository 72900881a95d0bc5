import { expect } from "bun:test";
import type { Frame } from "playwright-core";

// What the fixture plugin page fx-hostile-page reports after trying every way out of its sandbox
// and namespace, and what svc must have made of each attempt, wherever the page is framed.

export type Outcome = {
  status?: number;
  ok?: boolean;
  code?: string;
  body?: string;
  threw?: string;
} & Record<string, unknown>;

const own = "/api/plugins/fx-hostile-page";

/** What the page's attempts may make svc serve, sorted: its own routes and /api/health. */
export const hostilePageRequests = [
  `GET ${own}/ui/index.html`,
  `GET ${own}/ui/hostile.js`,
  `GET ${own}/ping`,
  `GET ${own}/slow`,
  `GET ${own}/teapot`,
  `GET ${own}/empty`,
  `POST ${own}/redirect`,
  "GET /api/health",
].toSorted();

/** Waits for the page to finish its attempts and reads its report. */
export async function hostileResults(frame: Frame): Promise<Record<string, Outcome>> {
  await frame.locator("body[data-done]").waitFor({ timeout: 15_000 });
  return JSON.parse((await frame.locator("#results").textContent()) ?? "{}") as Record<string, Outcome>;
}

/** Every way out was refused or unreadable; the page's own routes and /api/health worked. */
export function expectConfined(results: Record<string, Outcome>): void {
  const direct = Object.keys(results).filter((name) => name.startsWith("direct "));
  expect(direct).toHaveLength(5);
  for (const name of direct)
    expect({ name, threw: results[name]?.threw }).toEqual({ name, threw: expect.stringMatching(/Error: /) });
  const refused = Object.keys(results).filter((name) => name.startsWith("svc.api "));
  expect(refused).toHaveLength(20);
  for (const name of refused) {
    const { status, code } = results[name] ?? {};
    expect({ name, status, code }).toEqual({ name, status: 403, code: "bridge_forbidden" });
  }
  expect(results["own route answering 307"]).toMatchObject({
    status: 502,
    ok: false,
    code: "bridge_redirect",
  });
  for (const name of ["parent.document", "top.document", "parent.bridgeActions"])
    expect({ name, threw: results[name]?.threw }).toEqual({
      name,
      threw: expect.stringMatching(/^SecurityError: /),
    });
  expect(results["window.open"]).toEqual({ opened: false });
  expect(results["replace window.svc"]).toEqual({ same: true, frozen: true });
  expect(results["forged replies to the page's own bridge"]).toMatchObject({
    status: 200,
    body: '{"slow":true}',
  });
  expect(results["nested frame spoofing the console"]).toEqual({ nestedReport: true, sent: 8, replies: [] });

  expect(results["own route"]).toEqual({ status: 200, ok: true, body: '{"pong":true}' });
  expect(results.health).toMatchObject({ status: 200, ok: true });
  expect(JSON.parse(results.health?.body ?? "{}")).toMatchObject({ status: "ok" });
  expect(results["own error status"]).toMatchObject({ status: 418, ok: false, code: "teapot" });
  expect(results["own empty answer"]).toEqual({ status: 204, ok: true, body: "" });
}
