import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { generatedFiles, withGeneratedSections } from "../scripts/docs.ts";

const repo = join(import.meta.dir, "..");
const read = (file: string) => readFileSync(join(repo, file), "utf8");

// The docs' error and settings tables are generated from src/error-codes.ts, the routes' declared
// codes and the settings catalog; `bun run docs` rewrites them. Table padding is Biome's, so cells
// are compared trimmed.
const cells = (text: string) =>
  text
    .split("\n")
    .map((line) =>
      line.startsWith("|")
        ? line
            .split("|")
            .map((cell) => cell.trim().replace(/^-+$/, "-"))
            .join("|")
        : line,
    )
    .join("\n");

describe("generated sections", () => {
  for (const file of Object.keys(generatedFiles)) {
    test(`${file}'s match the code (run \`bun run docs\`)`, () => {
      const text = read(file);
      expect(cells(text)).toBe(cells(withGeneratedSections(file, text)));
    });
  }
});

test("the configuration page's environment variables section names every variable svc reads", async () => {
  const { envSchema } = await import("../src/config.ts");
  const page = read("docs/configuration.md");
  const section = page.slice(page.indexOf("## Environment variables"), page.indexOf("## Settings"));
  const missing = Object.keys(envSchema.entries).filter((name) => !section.includes(`\`${name}\``));
  expect(missing).toEqual([]);
});

test("the settings table lists exactly the catalog's settings, and no retired one", async () => {
  const { settingKeys, retiredSettings } = await import("../src/settings/catalog.ts");
  const page = read("docs/configuration.md");
  const table = page.slice(
    page.indexOf("<!-- generated:settings -->"),
    page.indexOf("<!-- /generated:settings -->"),
  );
  const listed = [...table.matchAll(/^\| `([a-z0-9_]+)`/gm)].map((match) => match[1]);
  expect(listed).toEqual([...settingKeys]);
  for (const retired of Object.keys(retiredSettings)) expect(listed).not.toContain(retired);
});
