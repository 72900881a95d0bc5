import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
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

const pages = [
  "README.md",
  ...readdirSync(join(repo, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
];

/** The page's lines outside fenced code blocks. */
function prose(text: string): string[] {
  let fenced = false;
  return text.split("\n").filter((line) => {
    if (line.startsWith("```")) fenced = !fenced;
    return !fenced && !line.startsWith("```");
  });
}

/**
 * The page's heading anchors as GitHub makes them: the text lower-cased, punctuation dropped, each
 * space a "-", a repeated one numbered (-1, -2, …).
 */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  for (const line of prose(text)) {
    const heading = /^#{1,6} (.*)$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = heading
      .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M} _-]/gu, "")
      .replaceAll(" ", "-");
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    found.add(count === 0 ? base : `${base}-${count}`);
  }
  return found;
}

/** Every link target in the page that is not a URL with a scheme (code holds no links). */
function relativeLinks(text: string): string[] {
  const targets = prose(text)
    .map((line) => line.replace(/`[^`]*`/g, ""))
    .flatMap((line) => [...line.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((match) => match[1] ?? ""));
  return targets.filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

describe("the README and docs/", () => {
  test("README.md is a front page: at most 400 lines", () => {
    expect(read("README.md").trimEnd().split("\n").length).toBeLessThanOrEqual(400);
  });

  test("every relative link resolves to a file, and every #anchor to a heading", () => {
    const broken: string[] = [];
    for (const page of pages) {
      for (const link of relativeLinks(read(page))) {
        const [path = "", anchor] = link.split("#");
        const target = path === "" ? join(repo, page) : resolve(repo, dirname(page), decodeURI(path));
        if (!existsSync(target)) broken.push(`${page}: ${link} (no such file)`);
        else if (anchor !== undefined && target.endsWith(".md")) {
          if (!anchors(readFileSync(target, "utf8")).has(anchor))
            broken.push(`${page}: ${link} (no heading "${anchor}" in ${relative(repo, target)})`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  test("the link check finds links and anchors as GitHub makes them", () => {
    const page =
      "# svc — dictation\n\n## Home Assistant (Wyoming)\n## Notes\n## Notes\n```sh\n# not a heading\n```\n";
    expect([...anchors(page)]).toEqual(["svc--dictation", "home-assistant-wyoming", "notes", "notes-1"]);
    expect(relativeLinks("[a](docs/x.md#y) [b](https://e.org) `[c](z.md)` [d](#top)")).toEqual([
      "docs/x.md#y",
      "#top",
    ]);
  });
});
