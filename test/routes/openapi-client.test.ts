import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import SwaggerParser from "@apidevtools/swagger-parser";
import openapiTS from "openapi-typescript";
import { createTestApp } from "../helpers/app.ts";

const root = new URL("../../", import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), "svc-openapi-client-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The served document, as plain JSON: both tools take it as a client would fetch it. */
async function servedDocument(): Promise<Record<string, unknown>> {
  const { request } = createTestApp();
  return (await (await request("/api/openapi.json")).json()) as Record<string, unknown>;
}

/** A client's code against the generated types: it compiles only if the types say what svc does. */
const usage = `import type { paths } from "./api";

type Json<T> = T extends { content: { "application/json": infer Body } } ? Body : never;

type EntryInput = NonNullable<paths["/api/dictionary"]["post"]["requestBody"]>["content"]["application/json"];
const entry: EntryInput = { key: "btw", value: "by the way" };
// @ts-expect-error: a dictionary entry needs its value.
const incomplete: EntryInput = { key: "btw" };

type HistoryPage = Json<paths["/api/history"]["get"]["responses"][200]>;
export const texts = (page: HistoryPage): string[] => page.items.map((item) => item.finalText);
export const total = (page: HistoryPage): number => page.total;

type Health = Json<paths["/api/health"]["get"]["responses"][200]>;
export const healthy = (health: Health): boolean => health.status === "ok";

type Failure = Json<paths["/api/transcribe"]["post"]["responses"]["415"]>;
export const code = (failure: Failure): string => failure.error.code;

export const sent = [entry, incomplete];
`;

const tsconfig = {
  compilerOptions: {
    strict: true,
    noUncheckedIndexedAccess: true,
    skipLibCheck: false,
    noEmit: true,
    target: "ES2022",
    lib: ["ES2022"],
    module: "Preserve",
    moduleResolution: "bundler",
    types: [],
  },
  files: ["api.d.ts", "usage.ts"],
};

describe("the OpenAPI document at /api/openapi.json", () => {
  test("passes a standard OpenAPI 3.0 validator with no errors", async () => {
    const doc = await servedDocument();
    // validate() throws with every schema error listed; it also dereferences, so give it a copy.
    await SwaggerParser.validate(structuredClone(doc) as never);
    expect(doc.openapi).toBe("3.0.3");
  });

  test("generates a typed client that compiles under the project's TypeScript", async () => {
    const types = await openapiTS(structuredClone(await servedDocument()) as never);
    expect(types).toContain('"/api/dictionary": {');
    await Bun.write(join(work, "api.d.ts"), types);
    await Bun.write(join(work, "usage.ts"), usage);
    await Bun.write(join(work, "tsconfig.json"), JSON.stringify(tsconfig));
    const tsc = Bun.spawnSync(
      [process.execPath, join(root, "node_modules/typescript/bin/tsc"), "-p", join(work, "tsconfig.json")],
      { cwd: work },
    );
    expect(`${tsc.stdout}${tsc.stderr}`).toBe("");
    expect(tsc.exitCode).toBe(0);
  }, 30_000);
});
