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
