import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
// @ts-expect-error TypeScript refuses a value import of a .d.ts; with type "text" Bun gives its text.
import sdkTypes from "../../plugins/sdk/index.d.ts" with { type: "text" };
import sdkManifest from "../../plugins/sdk/package.json" with { type: "text" };
import { assertPackageName } from "./package-name.ts";
import { sdkRuntimeSource } from "./sdk-provider.ts";
import { pluginSlug } from "./slug.ts";

const page = (name: string, slug: string) => `<!doctype html>
<html>
  <head><meta charset="utf-8" /><title>${name}</title></head>
  <body>
    <h1>${name}</h1>
    <p id="out">Open this page in svc to talk to the server.</p>
    <script>
      // svc gives plugin pages window.svc; it is absent when the page is opened on its own.
      if (window.svc) {
        window.svc
          .api("/api/plugins/${slug}/hello")
          .then((res) => res.json())
          .then((body) => (document.getElementById("out").textContent = JSON.stringify(body)));
      }
    </script>
  </body>
</html>
`;

const entry = (name: string) => `import { definePlugin, transform } from "svc-sdk";

// Options come from the plugins setting: ["${name}", { "signature": " (by voice)" }].
export default definePlugin((options: { signature?: string } = {}) => {
  let base = "";
  return {
    name: "${name}",
    setup(ctx) {
      base = ctx.basePath;
    },
    middleware: [
      (c, next) => (c.req.method === "GET" && c.req.path === \`\${base}/hello\` ? c.json({ hello: "world" }) : next()),
    ],
    afterCleanup: transform((text) => (options.signature ? \`\${text}\${options.signature}\` : text)),
  };
});
`;

const buildScript = `// bun run build: bundles src/ into dist/index.js (one module; svc provides svc-sdk) and copies ui/.
import { cpSync } from "node:fs";

const result = await Bun.build({
  entrypoints: ["src/index.ts"],
  outdir: "dist",
  naming: "index.js",
  target: "bun",
  format: "esm",
  external: ["svc-sdk"],
});
if (!result.success) {
  for (const log of result.logs) console.error(log);
  process.exit(1);
}
cpSync("ui", "dist/ui", { recursive: true });
console.log("built dist/");
`;

const testFile = `import { expect, test } from "bun:test";
import factory from "../src/index.ts";

test("the hook appends the signature from the options", async () => {
  const plugin = factory({ signature: " [signed]" });
  const output = { text: "hello" };
  const input = { text: "hello", raw: "hello", appContext: null, language: "en", signal: new AbortController().signal };
  await plugin.afterCleanup?.(input, output);
  expect(output.text).toBe("hello [signed]");
});
`;

const readme = (name: string) => `# ${name}

An svc plugin. Build it and try it on a running svc:

\`\`\`sh
bun install && bun run build && bun test
SVC_DB_PATH=/path/to/svc.db svc plugins link   # or SVC_PLUGINS_DIR=…; SVC_URL when svc is not on 127.0.0.1:4649
svc plugins enable ${name}-dev
# edit src/, then: bun run build && svc plugins reload
\`\`\`

\`vendor/svc-sdk\` is the SDK this svc was built with, so \`bun install\` needs no registry; svc provides
the SDK to the plugin at run time.
`;

/** The files of a new plugin project, by path. */
function projectFiles(name: string): Record<string, string> {
  const slug = pluginSlug(name);
  const title = name.replace(/^@[^/]+\//, "");
  const pkg = {
    name,
    version: "0.1.0",
    description: `An svc plugin: ${title}`,
    type: "module",
    main: "dist/index.js",
    files: ["dist"],
    scripts: { build: "bun build.ts", test: "bun test" },
    dependencies: { "svc-sdk": "file:./vendor/svc-sdk" },
    svc: {
      displayName: title,
      icon: "puzzle",
      contributes: { pages: [{ id: slug, title, entry: "dist/ui/index.html" }] },
    },
  };
  return {
    "package.json": `${JSON.stringify(pkg, null, 2)}\n`,
    "src/index.ts": entry(name),
    "ui/index.html": page(name, slug),
    "build.ts": buildScript,
    "test/plugin.test.ts": testFile,
    ".gitignore": "node_modules/\ndist/\n",
    "README.md": readme(name),
    "vendor/svc-sdk/package.json": String(sdkManifest),
    "vendor/svc-sdk/index.js": sdkRuntimeSource,
    "vendor/svc-sdk/index.d.ts": String(sdkTypes),
  };
}

/**
 * `svc plugins new NAME [DIR]`: writes a ready-to-build plugin project (a text hook, a route, a
 * page, a build script, a test) into `dir`, which must be missing or empty. `svc-sdk` resolves to
 * the copy svc carries, written into `vendor/svc-sdk`, so `bun install && bun run build && svc
 * plugins link` works with no registry. Returns the paths written.
 */
export function scaffoldPlugin(name: string, dir: string): string[] {
  assertPackageName(name);
  if (existsSync(dir) && readdirSync(dir).length > 0) throw new Error(`${dir} is not empty`);
  const files = projectFiles(name);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return Object.keys(files);
}
