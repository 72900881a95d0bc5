import { describe, expect, test } from "bun:test";
import { createProgressReporter } from "../../src/cli/progress.ts";

const step = (receivedBytes: number, totalBytes: number | null = 1_000_000) => ({
  receivedBytes,
  totalBytes,
  bytesPerSecond: 2_000_000,
  resumedFrom: 0,
});

describe("download progress in the terminal", () => {
  test("without a TTY prints one plain line per 10 %, starting where a resumed download starts", () => {
    const lines: string[] = [];
    const progress = createProgressReporter("base.en", { write: (text) => lines.push(text) }, false);
    for (let bytes = 450_000; bytes <= 1_000_000; bytes += 10_000) progress.update(step(bytes));
    progress.finish();
    expect(lines).toEqual([
      "base.en: 45% (0.5 MB of 1.0 MB  2.0 MB/s)\n",
      ...[50, 60, 70, 80, 90, 100].map(
        (p) => `base.en: ${p}% (${(p / 100).toFixed(1)} MB of 1.0 MB  2.0 MB/s)\n`,
      ),
    ]);
  });

  test("on a TTY redraws one bar line at most ten times a second and ends it with a newline", () => {
    const writes: string[] = [];
    const progress = createProgressReporter("base.en", { write: (text) => writes.push(text) }, true);
    for (let bytes = 0; bytes <= 1_000_000; bytes += 1_000) progress.update(step(bytes));
    progress.finish();
    expect(writes.length).toBeLessThan(10);
    expect(writes[0]).toStartWith("\r\x1b[2Kbase.en  [");
    expect(writes.at(-2)).toContain(`[${"#".repeat(30)}] 100%  1.0 MB of 1.0 MB  2.0 MB/s`);
    expect(writes.at(-1)).toBe("\n");
  });
});
