import { expect, test } from "bun:test";
import { megabytes } from "../../../src/cli/progress.ts";
import { formatBytes } from "../../../src/web/console/ui.tsx";

// One size per model everywhere: the console says what the CLI, the docs and the download page say.
test("a model's size reads the same in the console and the CLI: decimal megabytes", () => {
  const baseEn = 147_964_211;
  expect(formatBytes(baseEn)).toBe("148 MB");
  expect(megabytes(baseEn)).toBe("148.0 MB");
  expect(formatBytes(31_000_000)).toBe("31 MB");
  expect(formatBytes(1_550_000_000)).toBe("1.6 GB");
  expect(formatBytes(999)).toBe("999 B");
  expect(formatBytes(5_400)).toBe("5.4 KB");
});
