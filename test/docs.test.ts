import { expect, test } from "bun:test";
import { join } from "node:path";
import { withGeneratedSections } from "../scripts/docs.ts";

// The README's error tables are generated from src/error-codes.ts and the routes' declared codes;
// `bun run docs` rewrites them. Table padding is Biome's, so cells are compared trimmed.
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

test("the README's generated sections match the code (run `bun run docs`)", async () => {
  const readme = await Bun.file(join(import.meta.dir, "..", "README.md")).text();
  expect(cells(readme)).toBe(cells(withGeneratedSections(readme)));
});

test("the README's configuration section names every environment variable svc reads", async () => {
  const { envSchema } = await import("../src/config.ts");
  const readme = await Bun.file(join(import.meta.dir, "..", "README.md")).text();
  const section = readme.slice(readme.indexOf("## Configuration"), readme.indexOf("## Settings"));
  const missing = Object.keys(envSchema.entries).filter((name) => !section.includes(`\`${name}\``));
  expect(missing).toEqual([]);
});

test("the README's settings table lists exactly the catalog's settings, and no retired one", async () => {
  const { settingKeys, retiredSettings } = await import("../src/settings/catalog.ts");
  const readme = await Bun.file(join(import.meta.dir, "..", "README.md")).text();
  const table = readme.slice(
    readme.indexOf("<!-- generated:settings -->"),
    readme.indexOf("<!-- /generated:settings -->"),
  );
  const listed = [...table.matchAll(/^\| `([a-z0-9_]+)`/gm)].map((match) => match[1]);
  expect(listed).toEqual([...settingKeys]);
  for (const retired of Object.keys(retiredSettings)) expect(listed).not.toContain(retired);
});
