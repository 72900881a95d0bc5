import { describe, expect, test } from "bun:test";
import { dirname, join, normalize, relative } from "node:path";
import { Glob } from "bun";

// The layering rules (who may import whom) run in Biome (biome.json, noRestrictedImports). What a
// linter cannot see is a circle: two modules that import each other, directly or around a ring.
// Each one means a type or a function lives in the wrong one of them (docs/ARCHITECTURE.md).

const root = join(import.meta.dir, "..");
const importPattern =
  /(?:^|\n)\s*(?:import|export)\s+(?:type\s+)?(?:[^"';]*?\s+from\s+)?["'](\.{1,2}\/[^"']+)["']/g;

function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of new Glob("src/**/*.{ts,tsx}").scanSync(root)) {
    const source = require("node:fs").readFileSync(join(root, file), "utf8") as string;
    const targets = [...source.matchAll(importPattern)].map((match) =>
      normalize(join(dirname(file), match[1] ?? "")),
    );
    graph.set(file, targets);
  }
  return graph;
}

function circles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (file: string) => {
    state.set(file, "open");
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (!graph.has(next)) continue;
      if (state.get(next) === "open") found.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, "done");
  };
  for (const file of [...graph.keys()].sort()) if (!state.has(file)) visit(file);
  return found;
}

describe("the import graph of src/", () => {
  test("reads the imports (the graph is not empty, and knows main.ts's and the console's)", () => {
    const graph = importGraph();
    expect(graph.get("src/main.ts")).toContain("src/app.ts");
    expect(graph.get("src/web/console/app.tsx")).toContain("src/web/console/screens/dictate.tsx");
  });

  test("has no import circles", () => {
    const found = circles(importGraph()).map((ring) => ring.map((file) => relative("src", file)).join(" → "));
    expect(found).toEqual([]);
  });
});

describe("the rooms of the domain", () => {
  // A lower room that imported a higher one would make the two one floor (docs/ARCHITECTURE.md,
  // "What may import what"); Biome's rules cover the transports, these pairs sit inside the domain.
  test.each([
    ["src/formats/", "src/db/"],
    ["src/lexicon/", "src/data/"],
  ])("%s imports nothing from %s", (from, to) => {
    const found = [...importGraph()].flatMap(([file, targets]) =>
      file.startsWith(from)
        ? targets.filter((target) => target.startsWith(to)).map((t) => `${file} → ${t}`)
        : [],
    );
    expect(found).toEqual([]);
  });
});

describe("the engine registry", () => {
  // An engine is a folder, a line in ids.ts and one in registry.ts (docs/ARCHITECTURE.md, "Add a
  // speech engine"); a place elsewhere that names one by its id would be silently wrong for the next.
  test("no engine id is written outside src/dictation/engines/", () => {
    const { engineIds } = require("../src/dictation/engines/ids.ts") as { engineIds: readonly string[] };
    const literal = new RegExp(`["'\`](${engineIds.join("|")})["'\`]`);
    const found: string[] = [];
    for (const file of new Glob("src/**/*.{ts,tsx}").scanSync(root)) {
      // The console's API types are generated from the routes' schemas, and so from the registry.
      // src/engine-ids.ts is the one list of ids, a leaf so that the settings catalog can name them.
      if (
        file.startsWith("src/dictation/engines/") ||
        file === "src/engine-ids.ts" ||
        file === "src/web/console/api-paths.d.ts"
      )
        continue;
      const lines = (require("node:fs").readFileSync(join(root, file), "utf8") as string).split("\n");
      lines.forEach((line, index) => {
        if (literal.test(line)) found.push(`${file}:${index + 1}: ${line.trim()}`);
      });
    }
    expect(found).toEqual([]);
  });
});

describe("an engine's folder", () => {
  // biome.json refuses imports of dictation/engines/<id>/ from outside the registry's room; each
  // engine id needs its pattern there, or a new engine's folder would be open to the whole house.
  test("is closed to imports from outside src/dictation/engines/, for every engine id", () => {
    const { engineIds } = require("../src/dictation/engines/ids.ts") as { engineIds: readonly string[] };
    const biome = require("../biome.json") as {
      overrides: {
        includes: string[];
        linter?: {
          rules?: { style?: { noRestrictedImports?: { options: { patterns?: { group: string[] }[] } } } };
        };
      }[];
    };
    const banned = (override: (typeof biome.overrides)[number]) =>
      new Set(
        override.linter?.rules?.style?.noRestrictedImports?.options.patterns?.flatMap((p) => p.group) ?? [],
      );
    const srcRules = biome.overrides.filter((override) =>
      override.includes.some((glob) => glob.startsWith("src/") && !glob.startsWith("src/web/")),
    );
    expect(srcRules.length).toBeGreaterThan(3);
    for (const override of srcRules)
      for (const id of engineIds)
        expect({
          override: override.includes[0],
          banned: banned(override).has(`**/engines/${id}/**`),
        }).toEqual({ override: override.includes[0], banned: true });
  });
});
